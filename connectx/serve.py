"""``connectx serve [DIR]``: the runs in DIR, a board to play on, and tournaments as they are played, in
the browser (:mod:`web`).

The app (:func:`web.app.create_app`) runs on uvicorn in this process, which listens on ``--host``
(127.0.0.1: this machine only) and ``--port`` (0: any free port) and prints the address. Agents' moves
run in sandboxed processes of their own (:mod:`web.tables`), forked by zygotes that a fork server
forks (:mod:`web.forkserver`), started first, before any of the server's objects or threads exist;
this process becomes their runner: it is not dumpable (:func:`tournament.sandbox.protect_runner`),
and a child subreaper (:func:`tournament.sandbox.become_subreaper`) that kills whatever is left.

Ctrl-C (or SIGTERM) stops it within seconds: the agents thinking are stopped, the requests in flight
answered (those still running after 2 s are dropped), every board's processes and their temporary
folders removed, and then anything left is killed (:func:`tournament.sandbox.kill_descendants`); it
exits with 0 at once, without waiting for a worker thread still computing.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
from pathlib import Path
from types import FrameType

from connectx.options import check_ranges

DEFAULT_DIR = Path("runs")

LIMITS: dict[str, tuple[float, float]] = {"port": (0, 65535)}


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the subcommands ``commands``."""
    # Alike in every subcommand module (connectx.cli calls each one's add_commands): argparse's own shape.
    command = commands.add_parser(
        "serve",
        help="the runs, a board to play on and tournaments as they are played, in the browser",
        description="Serve DIR's runs in the browser: each run's report with every game replayable "
        "(and continued from any ply on the board), a run being played as it goes, and a board on which "
        "either side is a person or an agent (played in a sandboxed process, as in a tournament), with "
        "the perfect-play score of every column. Prints the address; Ctrl-C stops it.",
    )
    command.add_argument(
        "dir", metavar="DIR", nargs="?", type=Path, default=DEFAULT_DIR,
        help=f"the folder of runs (default {DEFAULT_DIR}/, made when missing); games saved on the board "
        "go there too",
    )  # fmt: skip
    command.add_argument(
        "--host", default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; another prints a warning)",
    )  # fmt: skip
    command.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0: any free port)")
    command.add_argument(
        "--agent", dest="agents", metavar="FILE.py", type=Path, action="append", default=[],
        help="a .py agent file outside DIR that the board may play (repeatable); files under DIR always may",
    )  # fmt: skip
    command.set_defaults(handler=_serve)


def _listen(host: str, port: int, parser: argparse.ArgumentParser) -> socket.socket:
    """A socket listening on ``host``:``port``; exit 2 with one line when it cannot be had."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, _, _, _, address = infos[0]
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(128)
    except OSError as error:
        parser.error(f"cannot listen on {host}:{port}: {error.strerror or error}")
    listener.set_inheritable(False)
    return listener


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx serve``: 0 once stopped (Ctrl-C, SIGTERM), 2 bad input or a port that cannot be had."""
    from tournament import sandbox
    from web.forkserver import ForkServer, prepare

    check_ranges(args, parser, LIMITS)
    root: Path = args.dir
    if not root.is_dir():
        if root != DEFAULT_DIR or root.exists():
            parser.error(f"{root} is not a folder: name the folder of runs to serve")
        root.mkdir()
    for agent in args.agents:
        if agent.suffix != ".py" or not agent.is_file():
            parser.error(f"--agent {agent}: not a .py file")
    listener = _listen(args.host, args.port, parser)
    loopback = _loopback(args.host)
    if not loopback:
        print(
            f"warning: listening on {args.host}, not this machine alone: whoever reaches it can read the "
            f"runs in {root}, have agents played and store games there",
            file=sys.stderr,
            flush=True,
        )
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"serving {root.resolve()} at http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    sandbox.protect_runner()
    sandbox.become_subreaper()
    try:
        prepare()  # the solver and the agents, once for the server and every host (pages wait meanwhile)
    except KeyboardInterrupt:
        print("stopped", flush=True)
        return 0
    forks = ForkServer.start()  # before anything of the server exists, or a thread (web.forkserver)

    import uvicorn

    from web.app import LOOPBACK, create_app

    hosts = LOOPBACK if loopback else None
    app = create_app(root, agents=tuple(args.agents), hosts=hosts, forks=forks)
    tables = app.state.server.tables

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            tables.cancel_all()  # the agents thinking stop, so that their requests end now
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    try:
        Server(config).run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn raises the signal again once it has shut down
        pass
    finally:
        tables.close_all()
        forks.close()
        sandbox.kill_descendants()
        listener.close()
    print("stopped", flush=True)
    sys.stderr.flush()
    # Ended here, not by returning: the interpreter's exit would join every worker thread, and one
    # may be in the middle of a long computation (a position's scores, solved in Python up to the
    # databases' depth) that nothing stops; the server has nothing left to save or remove.
    os._exit(0)
