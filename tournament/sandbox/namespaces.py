"""An IPC namespace and a pid namespace of each host's own (``ipc_namespaces(7)``,
``pid_namespaces(7)``).

* IPC: System V shared memory, semaphores and message queues, and POSIX message queues, belong to an
  IPC namespace. A host makes one of its own (:func:`private_ipc`) before its agent runs, so the
  other agent of its game, and every process of the machine, find none of its objects, nor it
  theirs, and every object it made goes with the namespace, when its last process ends: none
  outlives the game. (POSIX shared memory and semaphores are files in ``/dev/shm``, a tmpfs of the
  host's own: :func:`tournament.sandbox.mounts.private`.)
* pids: ``unshare(CLONE_NEWPID)`` moves not the caller but its next child into a new pid namespace,
  as its pid 1. So a host, once assigned, splits (:func:`own_pids`): its child goes on as the
  agent's process, pid 1 of a namespace of its own, where ``kill(pid, 0)`` finds its own processes
  alone and ``/proc`` (mounted again there) lists them alone; the host itself stays, a *keeper* that
  holds nothing of the agent's, waits for it, and ends as it ended (its exit code, or the signal that
  killed it), so the proxy, the zygote and the game process, which watch the host's pid, see the
  agent's end. The agent's process dies with its keeper (``PR_SET_PDEATHSIG``), and every process of
  the namespace with it (the kernel kills them when pid 1 ends). As pid 1 it is also the reaper of
  every orphan of the namespace, so its tree holds every process it started. Unlike another process,
  pid 1 gets no signal from its own namespace that it has no handler for (its own ``SIGTERM`` to
  itself, say); ``SIGKILL`` and ``SIGSTOP`` from the runner's namespace reach it.

Both need ``CAP_SYS_ADMIN`` (root; :func:`possible` tells). Sources: ``unshare(2)``,
``ipc_namespaces(7)``, ``pid_namespaces(7)``, ``mq_overview(7)``, ``prctl(2)`` (Linux man-pages).
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal

from tournament.sandbox.confinement import PR_SET_PDEATHSIG, close_all_but, prctl

__all__ = ["IPC", "PID", "own_pids", "possible", "private_ipc"]

IPC, PID = 0x08000000, 0x20000000
"""``CLONE_NEWIPC``, ``CLONE_NEWPID``."""

_libc = ctypes.CDLL(None, use_errno=True)


def _unshare(flag: int) -> None:
    if _libc.unshare(flag) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"unshare({flag:#x}): {os.strerror(error)}")


def private_ipc() -> None:
    """Move the calling process (holding ``CAP_SYS_ADMIN``) into a new IPC namespace. Raises
    ``OSError`` when it may not."""
    _unshare(IPC)


def own_pids() -> None:
    """Split the calling process (a host, root, single-threaded) in two (module docstring): return in
    its child, pid 1 of a new pid namespace, which dies with it; the caller itself closes every
    descriptor and never returns: it waits for the child and ends as it did. Raises ``OSError``
    (in the caller) when it may not."""
    _unshare(PID)
    keeper = os.getpid()
    child = os.fork()
    if child == 0:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        return
    close_all_but()
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(keeper, number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


@functools.cache
def possible(flag: int) -> bool:
    """True when this process may give its hosts namespaces ``flag`` (:data:`IPC`, :data:`PID`) of
    their own, tried in a child process (a fork), which leaves nothing behind."""
    pid = os.fork()
    if pid == 0:
        made = False
        try:
            _unshare(flag)
            if flag == PID:  # the namespace takes its first process
                child = os.fork()
                if child == 0:
                    os._exit(0)
                os.waitpid(child, 0)
            made = True
        finally:
            os._exit(0 if made else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
