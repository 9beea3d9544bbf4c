"""The zygote: a process that forks the hosts of one game process's agents, and does nothing else
(the *zygote* of Chromium's and Android's process models).

Why: a process that forks and then keeps working pays for it, since every page it writes while a
child still shares it is copied first. The referee writes thousands of pages a game, so forking the
two hosts from the game process cost it about 1,100 page faults and 4-6 ms of system time a game.
The zygote writes almost nothing: it is forked once, before the first game, and keeps two blank
hosts ready (:func:`~tournament.sandbox.host.fork_host`), forked whenever no request waits (during a
game), so that no fork delays a game's start. Sources: ``fork(2)``, ``unix(7)`` (``SCM_RIGHTS``),
``prctl(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
from collections.abc import Callable
from multiprocessing.connection import Connection

from tournament.sandbox import freezer, isolation, landlock, memory, network
from tournament.sandbox.confinement import (
    PR_SET_PDEATHSIG,
    clear_environment,
    close_all_but,
    empty_bounding_set,
    prctl,
)
from tournament.sandbox.host import ending, fork_host
from tournament.sandbox.processes import become_subreaper, kill_descendants, reap
from tournament.sandbox.rules import Shared
from tournament.sandbox.users import isolating

CLOSING = 1.0
"""Seconds :meth:`Zygote.close` gives the zygote to clear up and exit before it kills it."""


class Zygote:
    """The zygote of the calling game process (module docstring), forked here.

    * :meth:`host` hands out a blank host: its pid and the referee's end of its pipe, passed over a
      Unix socket (``SCM_RIGHTS``); the caller sends the assignment
      (:class:`~tournament.sandbox.host.AgentProcess`).
    * :meth:`clear`, when a game ends: the zygote, a child subreaper, kills and reaps every process
      of that game, wherever it went (:func:`~tournament.sandbox.processes.kill_descendants`),
      before it reads the next request, so no process of one game is alive when the next game's
      agents load. Blank hosts, which never ran an agent, are spared. It also asks for the next
      game's two hosts, which the zygote sends once that is done, while the game process returns
      its record and receives the next game.
    * :meth:`ended` says how a host that died ended (the zygote is its parent).

    It dies with the game process (``PR_SET_PDEATHSIG``), and its hosts with it.
    """

    READY = 2
    """Blank hosts kept forked ahead: one game's."""

    def __init__(self) -> None:
        isolation.python_folders()  # computed once, here, for every host to come
        self._asked = 0  # hosts asked for and not received yet
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:  # the zygote
            code = 0
            try:
                self._control.close()
                _serve(theirs)
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

    def clear(self, hosts: int = READY) -> None:
        """Have the last game's processes killed and reaped, then the next game's ``hosts`` hosts sent
        (not waiting for either: :meth:`host` receives them). A host sent and not received when the
        next game is cleared is killed with it: ask for as many as a game takes."""
        with contextlib.suppress(OSError):
            self._control.send(b"clear")
            while self._asked < hosts:
                self._control.send(b"host")
                self._asked += 1

    def ended(self, pid: int) -> str:
        """How the host ``pid`` ended (see :func:`~tournament.sandbox.host.ending`), or 'stopped
        answering'."""
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
        """End the zygote and reap it: closing its socket tells it to kill every process it has left
        and remove their cgroups, then exit; one that has not within :data:`CLOSING` seconds is
        killed, and its hosts with it (``PR_SET_PDEATHSIG``). A zygote that something else of this
        process already reaped (a wait for any child) is gone: nothing is left to do."""
        self._control.close()
        if self.pid:
            with contextlib.suppress(ChildProcessError):  # reaped already: gone
                reap(self.pid, CLOSING, 0.002)
            self.pid = 0


def _serve(control: socket.socket) -> None:
    """The zygote's loop (:class:`Zygote`): serve requests until the game process closes its end.
    It keeps no descriptor but its socket (and the standard streams): a pipe or socket of the
    runner's, such as a Ray worker's connection, stays open no longer than the game process. Once,
    for all its hosts, it clears its environment, builds the agents' mount namespace
    (:mod:`tournament.sandbox.mounts`) and the network namespaces of each mark's hosts
    (:mod:`tournament.sandbox.network`), empties its capability bounding set and opens the Landlock
    rules all hosts share (:class:`~tournament.sandbox.rules.Shared`); each host gets a ruleset
    holding them. It removes the cgroup of each host it killed (:func:`~tournament.sandbox.freezer.remove`;
    first, those that runners killed left: :func:`~tournament.sandbox.freezer.sweep`), and when its
    socket closes it kills every process left before it exits."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    close_all_but(control.fileno())
    become_subreaper()
    clear_environment()  # once, here, for every host to come
    freezer.sweep()
    memory.sweep()
    view = isolation.build_view()
    if isolating():
        empty_bounding_set(isolation.needs_capability(view is not None))
    how = isolation.plan().network
    shared = Shared(view, tcp=how == isolation.LANDLOCK_TCP) if landlock.abi() else None
    networks = (network.make(), network.make()) if how == isolation.NAMESPACE else None

    forked: set[int] = set()  # hosts alive, or dead with their cgroups still to be removed
    dead: list[int] = []  # hosts killed whose cgroups are to be removed, when nothing waits

    def fork() -> tuple[int, Connection]:
        pid, conn = fork_host(view, shared.ruleset() if shared is not None else None, networks)
        forked.add(pid)
        return pid, conn

    def clear(spare: set[int]) -> None:
        kill_descendants(spare=spare)
        dead.extend(forked - spare)
        forked.intersection_update(spare)

    ready: list[tuple[int, Connection]] = []

    def idle() -> bool:
        """Do one thing that waits for no request (False when nothing is left): fork a blank host
        while fewer than :data:`Zygote.READY` are, else remove a dead host's cgroup."""
        if len(ready) < Zygote.READY:
            ready.append(fork())
        elif dead:
            _remove(dead.pop())
        else:
            return False
        return True

    try:
        while request := _next(control, idle):
            command, _, argument = request.partition(b" ")
            if command == b"host":
                if not ready:
                    ready.append(fork())
                pid, conn = ready.pop(0)
                socket.send_fds(control, [b"%d" % pid], [conn.fileno()])
                conn.close()
            elif command == b"clear":
                clear({pid for pid, _ in ready})
            elif command == b"ended":
                control.send(ending(int(argument)).encode())
    except OSError:  # the game process closed its end while hosts or answers were on their way
        pass
    clear(set())
    for pid in dead:
        _remove(pid)


def _remove(pid: int) -> None:
    """Remove the cgroups of host ``pid``, which was killed (:func:`tournament.sandbox.freezer.remove`,
    :func:`tournament.sandbox.memory.remove`)."""
    freezer.remove(pid)
    memory.remove(pid)


def _next(control: socket.socket, idle: Callable[[], bool]) -> bytes:
    """The next request on ``control``, doing ``idle`` work while none waits and some is left;
    ``b""`` once the game process has closed its end."""
    while not select.select([control], [], [], 0)[0] and idle():
        pass
    return control.recv(64)
