"""Each agent in a process of its own, as on Kaggle, where every agent plays from its own container.

The referee (``kaggle_environments`` in the game process) never runs agent code. It calls an
:class:`AgentProcess`, a thin proxy that sends the observation and configuration down a pipe to the
agent's *host* process and waits for the action. Nothing else crosses: no object of the referee, of
the opponent or of the runner is reachable from the host, so an agent can neither touch the board,
the rewards or the other agent, nor read or write the store.

The host is forked, before its game, from the game process's :class:`Zygote` (or from the calling
process; either way the referee and our agents were imported once, in the runner) and, before it
loads the agent:

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
import select
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

from agents.engine.board import Board
from agents.registry import load_agent, parse_spec
from tournament.confinement import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    PR_SET_PDEATHSIG,
    close_all_but,
    confine,
    detach,
    drop_privileges,
    prctl,
    python_is_private,
)
from tournament.limits import Limits
from tournament.referee import BUILTIN_AGENTS, DeadlineExceeded, build_agent, structify
from tournament.replies import decode, encode
from tournament.rules import invalid_action

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


def _load(spec_text: str, seed: int) -> Callable[..., Any]:
    """The callable kaggle-environments would play for a spec (files load lazily, as on Kaggle).

    A spec that fails to load gives an agent that raises the failure at its first move.
    """
    try:
        raw = load_agent(parse_spec(spec_text), seed=seed)
        if callable(raw):
            return raw
        return build_agent(raw, BUILTIN_AGENTS, "connectx")[0]
    except Exception as error:  # noqa: BLE001 - the agent's ERROR, reported at its first move
        failure = error

        def failed(obs: Any, config: Any) -> Any:
            raise failure

        return failed


def _fork_host() -> tuple[int, Connection]:
    """Fork a *blank host*: a process that runs no agent yet. It detaches at once (:func:`detach`),
    waits for its assignment on its pipe, and becomes that agent's host (:func:`_host`). Returns its
    pid and the referee's end of its pipe. It dies with the process that forked it."""
    referee_end, host_end = Pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the blank host
        code = 0
        try:
            referee_end.close()
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() == parent:
                detach(host_end)
                _host(host_end, parent)
        except EOFError:
            pass
        except BaseException:  # noqa: BLE001 - the host may not raise into its parent's code
            code = 1
        os._exit(code)
    host_end.close()
    return pid, referee_end


def _host(conn: Connection, parent: int) -> None:
    """Become the host of the agent assigned on ``conn`` (``{"spec", "seed", "global_seed", "workdir",
    "uid", "memory_mb", "processes"}``), then serve its moves until the pipe closes: ``{"id", "obs",
    "config"}`` in, ``{"id", "action"|"error"}`` out."""
    job = json.loads(conn.recv_bytes())
    random.seed(job["global_seed"])
    np.random.seed(job["global_seed"] % 2**32)
    # In the runner's directory and as its user: a spec's relative path means what it meant on the
    # command line, and the file is read even where the agent could not.
    agent = _load(job["spec"], job["seed"])
    limits = Limits(job["memory_mb"], job["processes"])
    confine(job["workdir"], limits)
    if job["uid"] is not None:
        drop_privileges(job["uid"], limits)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # again: the uid change cleared it
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


def _ending(pid: int) -> str:
    """How a child host ended, waiting for it briefly: 'exited (exit code N)' or 'was killed by SIGX'."""
    for _ in range(50):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            break
        if done:
            if os.WIFSIGNALED(status):
                return f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
            return f"exited (exit code {os.waitstatus_to_exitcode(status)})"
        time.sleep(0.01)
    return "stopped answering"


class Zygote:
    """A process that forks the hosts of one game process's agents, and does nothing else (the
    *zygote* of Chromium's and Android's process models).

    Why: a process that forks and then keeps working pays for it, since every page it writes while
    a child still shares it is copied first. The referee writes thousands of pages a game, so forking
    the two hosts from the game process cost it about 1,100 page faults and 4-6 ms of system time a
    game. The zygote writes almost nothing: it is forked once, before the first game, and keeps two
    blank hosts ready (:func:`_fork_host`), forked whenever no request waits (during a game), so
    that no fork delays a game's start.

    * :meth:`host` hands one out: its pid and the referee's end of its pipe, passed over a Unix
      socket (``SCM_RIGHTS``); the caller sends the assignment (:class:`AgentProcess`).
    * :meth:`clear`, when a game ends: the zygote, a child subreaper, kills and reaps every process
      of that game, wherever it went (:func:`kill_descendants`), before it reads the next request,
      so no process of one game is alive when the next game's agents load. Blank hosts, which never
      ran an agent, are spared. It also asks for the next game's two hosts, which the zygote sends
      once that is done, while the game process returns its record and receives the next game.
    * :meth:`ended` says how a host that died ended (the zygote is its parent).

    It dies with the game process (``PR_SET_PDEATHSIG``), and its hosts with it. Sources:
    ``fork(2)``, ``unix(7)`` (``SCM_RIGHTS``), ``prctl(2)``.
    """

    READY = 2
    """Blank hosts kept forked ahead: one game's."""

    def __init__(self) -> None:
        python_is_private()  # computed once, here, for every host to come
        self._asked = 0  # hosts asked for and not received yet
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:  # the zygote
            code = 0
            try:
                self._control.close()
                _zygote(theirs)
            except BaseException:  # noqa: BLE001 - the zygote may not raise into the game's code
                code = 1
            os._exit(code)
        theirs.close()

    def host(self) -> tuple[int, Connection]:
        """A blank host: its pid and the referee's end of its pipe (one :meth:`clear` asked for, if
        any is left, else asked for now). Raises ``OSError`` when the zygote is gone."""
        if self._asked:
            self._asked -= 1
        else:
            self._control.send(b"host")
        message, fds, _, _ = socket.recv_fds(self._control, 64, 1)
        if not fds:
            raise OSError("the zygote sent no host")
        return int(message), Connection(fds[0])

    def clear(self) -> None:
        """Have the last game's processes killed and reaped, then the next game's two hosts sent
        (not waiting for either: :meth:`host` receives them)."""
        with contextlib.suppress(OSError):
            self._control.send(b"clear")
            while self._asked < self.READY:
                self._control.send(b"host")
                self._asked += 1

    def ended(self, pid: int) -> str:
        """How the host ``pid`` ended (see :func:`_ending`), or 'stopped answering'."""
        try:
            self._control.send(b"ended %d" % pid)
            while True:
                message, fds, _, _ = socket.recv_fds(self._control, 256, 1)
                if not fds:
                    return message.decode() or "stopped answering"
                os.close(fds[0])  # a host asked for ahead, sent first: given up (it then exits)
                self._asked -= 1
        except OSError:
            return "stopped answering"

    def alive(self) -> bool:
        """False once the zygote has ended (it is then reaped)."""
        if not self.pid:
            return False
        done, _ = os.waitpid(self.pid, os.WNOHANG)
        if done:
            self.pid = 0
        return bool(self.pid)

    def close(self) -> None:
        """Kill the zygote and, with it, its hosts (``PR_SET_PDEATHSIG``); reap it."""
        self._control.close()
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0


def _zygote(control: socket.socket) -> None:
    """The zygote's loop (:class:`Zygote`): serve requests until the game process closes its end.
    It keeps no descriptor but its socket (and the standard streams): a pipe or socket of the
    runner's, such as a Ray worker's connection, stays open no longer than the game process."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    close_all_but(control.fileno())
    become_subreaper()
    ready: list[tuple[int, Connection]] = []
    while True:
        if len(ready) < Zygote.READY and not select.select([control], [], [], 0)[0]:
            ready.append(_fork_host())  # only while no request waits
            continue
        request = control.recv(64)
        if not request:
            break
        command, _, argument = request.partition(b" ")
        if command == b"host":
            if not ready:
                ready.append(_fork_host())
            pid, conn = ready.pop(0)
            socket.send_fds(control, [b"%d" % pid], [conn.fileno()])
            conn.close()
        elif command == b"clear":
            kill_descendants(spare={pid for pid, _ in ready})
        elif command == b"ended":
            control.send(_ending(int(argument)).encode())


class AgentProcess:
    """The referee's proxy for one agent, played in a host process of its own (module docstring).

    ``spec`` is an agent spec (:mod:`agents.registry`), ``mark`` 1 or 2, ``slot`` the game's slot
    among the runner's workers (it picks the host's user), ``seed`` the agent's seed and
    ``global_seed`` the seed of the host's global ``random`` and numpy generators (Kaggle's built-in
    agents use them). ``hang_limit`` optionally caps a move in seconds. ``on_turn(mark, board)`` is
    called before each move with the board the agent is shown (Kaggle's layout: row-major, top row
    first, 0 empty, else the mark). The host comes from ``zygote`` (:class:`Zygote`, which then
    reaps it), else it is forked here (:meth:`close` reaps it). After a forfeit, :attr:`note` says
    what happened and :attr:`last_action` is the action the agent returned last. Raises ``OSError``
    when the zygote is gone.
    """

    def __init__(
        self,
        spec: str,
        mark: int,
        *,
        seed: int,
        global_seed: int,
        slot: int = 0,
        limits: Limits = Limits(),  # noqa: B008 - immutable
        hang_limit: float | None = None,
        on_turn: Callable[[int, list[int]], None] = lambda mark, board: None,
        zygote: Zygote | None = None,
    ) -> None:
        self.mark, self.hang_limit, self.on_turn = mark, hang_limit, on_turn
        self.note = ""
        self.last_action: Any = None
        self._id = 0
        self._zygote = zygote
        uid = agent_uid(slot, mark) if isolating() else None
        python_is_private()  # computed before any fork, for every host to come
        self.workdir = tempfile.mkdtemp(prefix=f"connectx-mark{mark}-")
        if uid is not None:
            os.chown(self.workdir, uid, uid)
        self.pid, self.conn = zygote.host() if zygote is not None else _fork_host()
        self.group = self.pid
        job = {"spec": spec, "seed": seed, "global_seed": global_seed, "workdir": self.workdir, "uid": uid}
        job.update(memory_mb=limits.memory_mb, processes=limits.processes)
        self.conn.send_bytes(json.dumps(job).encode())

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

    def describe_action(self, board: Board) -> str:
        """Why the referee ruled the last action INVALID on ``board``, the position the agent was shown,
        for the verdict's detail: :func:`tournament.rules.invalid_action` of this agent's mark, e.g.
        ``mark 1 chose column 4, which is full (it returned 3, counting from 0)``."""
        return invalid_action(self.mark, self.last_action, board)

    def _ended(self) -> str:
        """How the host ended: 'exited (exit code N)', 'was killed by SIGX' or 'stopped answering'."""
        how = self._zygote.ended(self.pid) if self._zygote is not None else _ending(self.pid)
        if how != "stopped answering":
            self.pid = 0  # reaped: its number may be reused
        return how

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
        """Kill the host (:meth:`kill`) and, unless a zygote forked it, reap it."""
        self.kill()
        if self.pid and self._zygote is None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
