"""Each agent in a process of its own, as on Kaggle, where every agent plays from its own container.

The referee (``kaggle_environments`` in the game process) never runs agent code. It calls an
:class:`AgentProcess`, a thin proxy that sends the observation and configuration down a pipe to the
agent's *host* process and waits for the action. Nothing else crosses: no object of the referee, of
the opponent or of the runner is reachable from the host, so an agent can neither touch the board,
the rewards or the other agent, nor read or write the store.

The host is forked from the game process (the referee and our agents are imported once, in the
runner) and, before it loads the agent:

* starts a session of its own (``setsid``), so that its whole process group dies with the game;
* closes every inherited file descriptor but its pipe; stdin, stdout and stderr go to /dev/null;
* works in a fresh private directory (also ``HOME`` and ``TMPDIR``), with an environment of its own;
* gets resource limits (:class:`Limits`: address space, processes, no core files);
* when the runner is root, as in a container: drops to an unprivileged user of its own
  (:func:`agent_uid`; one per game slot and mark, so no two agents playing at once on the machine can
  signal each other: :func:`claim_slots`), so the run directory (made ``0700`` by
  :func:`protect_directory`), the runner and the referee are out of its reach;
* dies with the game process (``PR_SET_PDEATHSIG``).

It then plays the agent on its main thread, as a normal (not daemonic) process: agents that time
themselves with ``SIGALRM`` or search in child processes work as they do under ``env.run``.

Time is measured by the referee exactly as Kaggle measures an agent: around the call, here the
proxy's round trip. The proxy gives up when the move's limit has passed (``actTimeout`` plus the
agent's remaining overage bank plus :data:`GRACE`, or the tournament's ``hang_limit``) and hands
the referee kaggle's ``DeadlineExceeded`` (``TIMEOUT``); a host that dies or sends a malformed reply
is that agent's ``ERROR``. Replies are JSON of a tagged action (never pickles, which would run the
agent's code in the referee), at most :data:`MAX_REPLY` bytes.

When the game ends, :meth:`AgentProcess.close` kills the host's process group, and the game process,
a child subreaper (``PR_SET_CHILD_SUBREAPER``), kills every descendant left (:func:`kill_descendants`),
including those that left the group.

Without root the agents run as the runner's user: they still cannot reach the referee's objects, the
opponent's memory or the runner's (it is not dumpable, :func:`protect_runner`), but they can open
files that user can, and signal processes of that user. ``README.md`` states the threat model.

The host's confinement is :mod:`tournament.confinement`, the format of its replies
:mod:`tournament.replies`. Sources: ``prctl(2)``, ``setrlimit(2)``, ``credentials(7)`` (Linux
man-pages).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import tempfile
import time
import traceback
from collections.abc import Callable, Collection, Iterator
from multiprocessing.connection import Connection, Pipe
from typing import Any

import numpy as np
import numpy.random  # noqa: F401 - imported once here, not in every host (numpy imports it lazily)

from agents.registry import load_agent, parse_spec
from tournament.confinement import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    PR_SET_PDEATHSIG,
    confine,
    detach,
    drop_privileges,
    prctl,
    python_is_private,
)
from tournament.limits import Limits
from tournament.referee import DeadlineExceeded, build_agent, structify
from tournament.replies import Unreadable, decode, encode

GRACE = 0.5
"""Seconds the proxy waits beyond Kaggle's limit before it gives up on a move."""

MAX_REPLY = 1 << 20
"""Largest reply a host may send, in bytes; a longer one is the agent's ``ERROR``."""

AGENT_UID_BASE = 61000
"""Hosts run as uid ``AGENT_UID_BASE + 2 * slot + mark - 1`` (and the same gid) when the runner is root."""


def isolating() -> bool:
    """True when hosts get users of their own (the runner is root); else they run as the runner's user."""
    return os.geteuid() == 0


MAX_SLOTS = 2000
"""Game slots a machine hands out at once (uids up to ``AGENT_UID_BASE + 2 * MAX_SLOTS - 1``)."""


def agent_uid(slot: int, mark: int) -> int:
    """The uid (and gid) of the host of ``mark`` (1 or 2) in game slot ``slot`` (0, 1, ...)."""
    return AGENT_UID_BASE + 2 * slot + mark - 1


@contextlib.contextmanager
def claim_slots(count: int) -> Iterator[list[int]]:
    """Claim ``count`` game slots no other runner on this machine holds; yield their numbers.

    Every runner claims its slots here, so games played at once on one machine (two ``connectx
    run``, or the games of a Ray node, each its own runner) never give their agents the same users.
    A slot is held by binding a Unix socket in the abstract namespace, ``connectx-slot-N``: the
    kernel releases it when the socket closes, even when the runner is killed, and no file is left
    behind. A name bound by anyone else (an agent, say) is skipped. Raises ``RuntimeError`` when
    fewer than ``count`` of :data:`MAX_SLOTS` are free. Source: ``unix(7)``, "Abstract sockets".
    """
    held: list[tuple[int, socket.socket]] = []
    try:
        for slot in range(MAX_SLOTS):
            if len(held) == count:
                break
            claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                claim.bind(f"\0connectx-slot-{slot}")
            except OSError:
                claim.close()
                continue
            held.append((slot, claim))
        if len(held) < count:
            raise RuntimeError(f"only {len(held)} of {count} game slots are free on this machine")
        yield [slot for slot, _ in held]
    finally:
        for _, claim in held:
            claim.close()


def protect_runner() -> None:
    """Make this process (the runner) non-dumpable: no other process of its user may read its memory,
    environment or working directory through ``/proc``, nor attach to it."""
    prctl(PR_SET_DUMPABLE, 0)


def protect_directory(path: os.PathLike[str] | str) -> None:
    """Make a run directory private (mode 0700) when hosts run as other users, so no agent can list,
    read or write the store in it. Does nothing otherwise."""
    if isolating():
        os.chmod(path, 0o700)


def become_subreaper() -> None:
    """Make this process a child subreaper: orphaned descendants are re-parented to it, not to init,
    so that :func:`kill_descendants` finds them."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def become_game_process() -> None:
    """Set up the calling process (a game, forked by the runner) to own its agents' processes: it
    dies with its parent, and it is a child subreaper."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    become_subreaper()


def children() -> list[int]:
    """The pids of this process's children (``/proc/self/task/*/children``)."""
    pids: list[int] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as file:
                pids.extend(int(pid) for pid in file.read().split())
        except OSError:
            continue
    return pids


def kill_descendants(spare: Collection[int] = ()) -> None:
    """Kill and reap every descendant of this process but the children ``spare`` and theirs (meant
    for a subreaper: see the module docstring).

    Kills the children, reaps them, and repeats with the orphans re-parented to it until none is left.
    """
    while pids := [pid for pid in children() if pid not in spare]:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _load(spec_text: str, builtin_agents: dict[str, Any], seed: int) -> Callable[..., Any]:
    """The callable kaggle-environments would play for a spec (files load lazily, as on Kaggle).

    A spec that fails to load gives an agent that raises the failure at its first move.
    """
    try:
        raw = load_agent(parse_spec(spec_text), seed=seed)
        if callable(raw):
            return raw
        return build_agent(raw, builtin_agents, "connectx")[0]
    except Exception as error:  # noqa: BLE001 - the agent's ERROR, reported at its first move
        failure = error

        def failed(obs: Any, config: Any) -> Any:
            raise failure

        return failed


def _host(conn: Connection, agent: Callable[..., Any], parent: int) -> None:
    """Serve moves until the pipe closes: ``{"id", "obs", "config"}`` in, ``{"id", "action"|"error"}`` out."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after the uid change, which clears it
    if os.getppid() != parent:
        return
    while True:
        request = json.loads(conn.recv_bytes())
        reply: dict[str, Any] = {"id": request["id"]}
        try:
            reply["action"] = encode(agent(structify(request["obs"]), structify(request["config"])))
        except BaseException as error:  # noqa: BLE001 - every failure is the agent's ERROR
            reply["error"] = f"{type(error).__name__}: {error}"
            reply["traceback"] = traceback.format_exc()[-4000:]
        conn.send_bytes(json.dumps(reply).encode())


class AgentProcess:
    """The referee's proxy for one agent, played in a host process of its own (module docstring).

    ``spec`` is an agent spec (:mod:`agents.registry`), ``mark`` 1 or 2, ``slot`` the game's slot
    among the runner's workers (it picks the host's user), ``seed`` the agent's seed and
    ``global_seed`` the seed of the host's global ``random`` and numpy generators (Kaggle's built-in
    agents use them). ``hang_limit`` optionally caps a move in seconds. ``on_turn(mark, board)`` is
    called before each move with the board the agent is shown (Kaggle's layout: row-major, top row
    first, 0 empty, else the mark). After a forfeit, :attr:`note` says what happened and
    :attr:`last_action` is the action the agent returned last.
    """

    def __init__(
        self,
        spec: str,
        mark: int,
        *,
        seed: int,
        global_seed: int,
        builtin_agents: dict[str, Any],
        slot: int = 0,
        limits: Limits = Limits(),  # noqa: B008 - immutable
        hang_limit: float | None = None,
        on_turn: Callable[[int, list[int]], None] = lambda mark, board: None,
    ) -> None:
        self.mark, self.hang_limit, self.on_turn = mark, hang_limit, on_turn
        self.note = ""
        self.last_action: Any = None
        self._id = 0
        uid = agent_uid(slot, mark) if isolating() else None
        python_is_private()  # computed once, here, for every host to come
        self.workdir = tempfile.mkdtemp(prefix=f"connectx-mark{mark}-")
        if uid is not None:
            os.chown(self.workdir, uid, uid)
        self.conn, child = Pipe()
        parent = os.getpid()
        self.pid = self.group = os.fork()
        if self.pid == 0:  # the host
            code = 0
            try:
                self.conn.close()
                detach(child)
                random.seed(global_seed)
                np.random.seed(global_seed % 2**32)
                # In the runner's directory and as its user: a spec's relative path means what it
                # meant on the command line, and the file is read even where the agent could not.
                agent = _load(spec, builtin_agents, seed)
                confine(self.workdir, limits)
                if uid is not None:
                    drop_privileges(uid, limits)
                _host(child, agent, parent)
            except EOFError:
                pass
            except BaseException:  # noqa: BLE001 - the host may not raise into the game's code
                code = 1
            os._exit(code)
        child.close()

    def __call__(self, obs: Any, config: Any) -> Any:
        self.on_turn(self.mark, list(obs.board))
        limit = float(config.actTimeout) + float(obs.remainingOverageTime) + GRACE
        if self.hang_limit is not None:
            limit = min(limit, self.hang_limit)
        self._id += 1
        deadline = time.monotonic() + limit
        try:
            self.conn.send_bytes(json.dumps({"id": self._id, "obs": obs, "config": config}).encode())
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not self.conn.poll(left):
                    self.note = f"mark {self.mark} did not return within {limit:.1f} s"
                    return DeadlineExceeded(self.note)
                reply = json.loads(self.conn.recv_bytes(MAX_REPLY))
                if isinstance(reply, dict) and reply.get("id") == self._id:
                    break
            if "error" in reply:
                self.note = f"mark {self.mark} raised {reply['error']}\n{reply.get('traceback', '')}".rstrip()
                raise RuntimeError(self.note)
            self.last_action = decode(reply.get("action"))
        except (EOFError, OSError):
            self.note = f"mark {self.mark}'s process {self._ended()} during its move"
            raise RuntimeError(self.note) from None
        except (ValueError, TypeError, KeyError):
            self.note = f"mark {self.mark} sent a malformed reply"
            raise RuntimeError(self.note) from None
        return self.last_action

    def describe_action(self) -> str:
        """The last action and its type, e.g. ``3 (numpy.int64)``, for an INVALID verdict's detail."""
        action = self.last_action
        if isinstance(action, Unreadable):
            return f"{action.text} ({action.type_name})"
        return f"{action!r} ({type(action).__module__}.{type(action).__name__})"

    def _ended(self) -> str:
        """How the host ended, waiting for it briefly: 'exited (exit code N)' or 'was killed by SIGX'."""
        for _ in range(50):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.pid = 0
                if os.WIFSIGNALED(status):
                    return f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
                return f"exited (exit code {os.waitstatus_to_exitcode(status)})"
            time.sleep(0.01)
        return "stopped answering"

    def kill(self) -> None:
        """Kill the host's process group and the host, and remove its directory, without waiting for
        them to end: a killed process runs no more code, and the kernel frees it meanwhile. Whoever
        owns the host reaps it: :meth:`close`, or :func:`kill_descendants` (a game process)."""
        if not self.conn.closed:
            self.conn.close()
        for kill, pid in ((os.killpg, self.group), (os.kill, self.pid)):
            try:
                if pid:
                    kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.rmdir(self.workdir)  # the common case, an agent that wrote nothing: one system call
        except OSError:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def close(self) -> None:
        """Kill the host (:meth:`kill`) and reap it."""
        self.kill()
        if self.pid:
            os.waitpid(self.pid, 0)
            self.pid = 0
