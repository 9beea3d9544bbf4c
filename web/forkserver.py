"""The board's clean zygote: a *fork server* (in ``multiprocessing``'s sense) that forks each table's
zygote, so that no agent's host is a copy of the server.

Why: a process forked from the server carries a copy of its memory: its tables, its stores, its
requests, and the state of every thread of it at that instant (a lock one of them held stays held in
the child, with no thread to release it, and the child's first collection runs finalizers of objects
those threads were using). :class:`ForkServer` is forked once, before the server has built anything
(``connectx serve`` starts it first; :func:`web.app.create_app` otherwise), and it is single-threaded.
What every host needs, the compiled solver and the agents imported with their default weights
(:func:`prepare`), is made before it is forked (``connectx serve`` calls :func:`prepare` first,
while it has a single thread: library state, none of the server's objects), or else by the fork
server itself; then it waits. On request it forks a zygote (:class:`tournament.sandbox.Zygote`), hands the
server the zygote's end of its socket and a pidfd of it over its own socket (``SCM_RIGHTS``), and
forgets them: the server then talks to the zygote as a game process talks to its own
(:class:`ServedZygote`). The fork server is the zygotes' parent and a child subreaper: it reaps each zygote
as it ends and kills and reaps every process one leaves (:func:`tournament.sandbox.kill_descendants`),
at once, so no ``<defunct>`` process stays under the server. It dies with the server
(``PR_SET_PDEATHSIG``), and its zygotes with it.

A caller that already has threads (a Jupyter kernel: :mod:`connectx.playing`) cannot fork a clean
one: it starts the fork server as a fresh interpreter instead (:meth:`ForkServer.spawn`:
``posix_spawn`` then ``exec``, so nothing of the caller is copied into it), which then serves as
above.

Every wait of the server on the fork server or a zygote is bounded (:data:`ANSWER`): a zygote that
never answers costs a move an error, never a thread of the server. Sources: ``fork(2)``,
``pidfd_open(2)``, ``unix(7)``, ``prctl(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys
import threading

from tournament import sandbox

__all__ = ["ANSWER", "ForkServer", "ServedZygote", "prepare", "serve"]

ANSWER = 30.0
"""Seconds the server waits at most for the fork server or a zygote to answer (a fork, a host)."""

READY = 300.0
"""Seconds the first request waits at most for the fork server's warm-up."""

SPAWNED_FD = 3
"""The descriptor of the socket in a fork server started by :meth:`ForkServer.spawn`."""

CLOSING = 2.0
"""Seconds a zygote (then the fork server) is given to clear up and exit when closed before it is killed."""


class ServedZygote(sandbox.Zygote):
    """A table's zygote forked by the fork server (the module docstring), as the server sees it: the
    zygote's ``pid``, its end of the zygote's socket and a pidfd of it. It answers :meth:`host`,
    :meth:`clear` and :meth:`ended` as :class:`tournament.sandbox.Zygote` does, over the same socket
    (whose protocol, in ``_control`` and ``_asked``, this class shares), within :data:`ANSWER` seconds
    (else ``OSError``); the fork server, its parent, reaps it."""

    def __init__(self, pid: int, control: socket.socket, pidfd: int) -> None:  # no fork: it exists
        self.pid, self._control, self._asked, self._pidfd = pid, control, 0, pidfd
        control.settimeout(ANSWER)

    def alive(self) -> bool:
        """False once the zygote has ended."""
        if self.pid and _ended(self._pidfd, 0):
            self.pid = 0
        return bool(self.pid)

    def kill(self) -> None:
        """Kill the zygote now (its hosts die with it: ``PR_SET_PDEATHSIG``); no wait."""
        if self._pidfd >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def close(self) -> None:
        """End the zygote: closing its socket tells it to kill every process it has left and exit;
        one that has not within :data:`CLOSING` seconds is killed."""
        self._control.close()
        if self._pidfd >= 0:
            if not _ended(self._pidfd, CLOSING):
                self.kill()
                _ended(self._pidfd, CLOSING)
            os.close(self._pidfd)
            self._pidfd = -1
        self.pid = 0


class ForkServer:
    """The fork server (module docstring) of pid ``pid``, the server's end of its socket ``control``:
    :meth:`start` forks one from the calling process; call it before building anything the hosts
    should not hold, while the process has a single thread. :meth:`zygote` asks it for a zygote;
    :meth:`close` ends it, and its zygotes with it."""

    def __init__(self, pid: int, control: socket.socket) -> None:
        self.pid, self._control = pid, control
        self._lock = threading.Lock()  # one request at a time on its socket
        self._ready = False

    @classmethod
    def start(cls) -> ForkServer:
        """Fork the fork server now (the class docstring)."""
        return cls(*_start())  # forked before the object exists: the fork server's frames hold none

    @classmethod
    def spawn(cls) -> ForkServer:
        """Start the fork server as a fresh Python interpreter (``posix_spawn(3)``, which execs it at
        once: nothing of this process is copied), for a caller with threads, which cannot fork a
        clean one (module docstring). It runs :func:`serve` on its end of the socket, in this
        process's working directory and environment, with its ``sys.path`` (so it imports what this
        process imports, a folder a notebook put on it included). It dies when the thread that
        called this ends (``PR_SET_PDEATHSIG`` follows the parent *thread*): call it from one that
        lives as long as the fork server is needed (a kernel's main thread). It runs in a session of
        its own, as :mod:`connectx.background`'s run process does: a kernel's interrupt, which
        signals the kernel's process group, does not end it (and its board's agent with it); and a
        kernel shutting down, which signals the children of its group and waits until none is left
        (ipykernel's ``_progressively_terminate_all_children``), does not wait for it, ended but not
        yet reaped, until the kernel itself is killed (2.2 s more, and no ``atexit`` closed the
        board then)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # dup2 onto another number clears close-on-exec on the child's copy alone
        target = SPAWNED_FD if theirs.fileno() != SPAWNED_FD else SPAWNED_FD + 1
        code = f"import sys; sys.path[:] = {sys.path!r}; from web.forkserver import serve; serve({target})"
        try:
            pid = os.posix_spawn(
                sys.executable,
                [sys.executable, "-c", code],
                os.environ,
                file_actions=[(os.POSIX_SPAWN_DUP2, theirs.fileno(), target)],
                setsid=True,
            )
        finally:
            theirs.close()
        return cls(pid, ours)

    def zygote(self) -> ServedZygote:
        """A new zygote. Raises ``OSError`` when the fork server does not send one within
        :data:`ANSWER` seconds (it is gone, or the machine cannot fork)."""
        with self._lock:
            if self._control.fileno() < 0:
                raise OSError("the server is stopping")
            if not self._ready:  # its warm-up: a first start compiles the solver
                self._control.settimeout(READY)
                if self._control.recv(64) != b"ready":
                    raise OSError("the fork server ended while it started")
                self._ready = True
                self._control.settimeout(ANSWER)
            self._control.send(b"zygote")
            message, fds, _, _ = socket.recv_fds(self._control, 64, 2)
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            raise OSError(f"the fork server sent no zygote{': ' + message.decode() if message else ''}")
        return ServedZygote(int(message), socket.socket(fileno=fds[0]), fds[1])

    def close(self) -> None:
        """End the fork server: its zygotes are told to exit and, after :data:`CLOSING` seconds, killed
        with their hosts; it is then reaped (killed, if it has not exited within that time again)."""
        with self._lock:
            self._control.close()
        if self.pid:
            sandbox.reap(self.pid, 2 * CLOSING, 0.005)
            self.pid = 0


def _ended(pidfd: int, timeout: float) -> bool:
    """Whether the process of ``pidfd`` has ended, waiting up to ``timeout`` seconds."""
    return bool(select.select([pidfd], [], [], timeout)[0])


def _start() -> tuple[int, socket.socket]:
    """Fork the fork server: its pid and the server's end of its socket."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            ours.close()
            _serve(theirs)
        except BaseException:  # noqa: BLE001 - nothing may run on into the server's code
            code = 1
        os._exit(code)
    theirs.close()
    return pid, ours


def serve(fd: int) -> None:
    """The fork server's program in an interpreter :meth:`ForkServer.spawn` started: serve on the
    socket ``fd`` until the caller closes its end, then exit (never return)."""
    code = 0
    try:
        _serve(socket.socket(fileno=fd))
    except BaseException:  # noqa: BLE001 - it exits with a status, whatever went wrong
        code = 1
    os._exit(code)


def _serve(control: socket.socket) -> None:
    """The fork server's loop: warm up, then fork a zygote for each request, and reap and clear up
    after each one that ends, until the server closes its end (then every zygote is closed)."""
    sandbox.become_game_process()  # it dies with the server, and is a child subreaper
    os.closerange(3, control.fileno())
    os.closerange(control.fileno() + 1, os.sysconf("SC_OPEN_MAX"))
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # the server's stdout is its user's terminal
    os.close(devnull)
    prepare()
    control.send(b"ready")
    zygotes: dict[int, int] = {}  # pidfd -> pid, of the zygotes alive
    while True:
        ready = select.select([control.fileno(), *zygotes], [], [])[0]
        ended = [fd for fd in ready if fd in zygotes]
        for pidfd in ended:
            os.waitpid(zygotes.pop(pidfd), 0)
            os.close(pidfd)
        if ended:  # what an ended zygote left (its hosts, orphans now) is killed and reaped here
            sandbox.kill_descendants(spare=set(zygotes.values()))
        if control.fileno() not in ready:
            continue
        try:
            request = control.recv(64)
        except OSError:
            request = b""
        if request != b"zygote":
            break
        try:
            zygote = sandbox.Zygote()
        except OSError as error:
            with contextlib.suppress(OSError):
                control.send(str(error).encode()[:200])
            continue
        pidfd = os.pidfd_open(zygote.pid)
        zygotes[pidfd] = zygote.pid
        with contextlib.suppress(OSError):  # else the server is gone: its zygote ends with the loop
            socket.send_fds(control, [b"%d" % zygote.pid], [zygote._control.fileno(), pidfd])
        zygote._control.close()  # the server's alone now: the zygote exits when the server closes it
    for pidfd in zygotes:  # their sockets went with the server's: they are clearing up and exiting
        select.select([pidfd], [], [], CLOSING)
    sandbox.kill_descendants()


def prepare() -> None:
    """Compile the solver (:func:`agents.engine.solver.warm_up`) and import every agent with its
    default weights (:func:`agents.registry.parse_spec`), once in a process, so that no zygote or
    host forked from it compiles or imports them again (and :meth:`web.server.Server.warm` finds
    them done)."""
    from agents.engine.solver import warm_up
    from agents.registry import BUILTIN, parse_spec

    warm_up()
    for name in BUILTIN:
        try:
            parse_spec(name)
        except Exception:  # noqa: BLE001 - that agent's host says what is wrong when it plays
            continue
