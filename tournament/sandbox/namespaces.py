"""An IPC namespace and a pid namespace of each host's own (``ipc_namespaces(7)``,
``pid_namespaces(7)``).

* IPC: System V shared memory, semaphores and message queues, and POSIX message queues, belong to an
  IPC namespace. A host makes one of its own (:func:`private_ipc`) before its agent runs, so the
  other agent of its game, and every process of the machine, find none of its objects, nor it
  theirs, and every object it made goes with the namespace, when its last process ends: none
  outlives the game. (POSIX shared memory and semaphores are files in ``/dev/shm``, a tmpfs of the
  host's own: :func:`tournament.sandbox.mounts.private`.)
* pids: ``unshare(CLONE_NEWPID)`` moves not the caller but its next child into a new pid namespace,
  as its pid 1. So the process that forks the hosts (the zygote) makes one for each host just
  before it forks it, and goes back to its own for its other children (:func:`new_pids`, which
  ``setns(2)`` allows: a process may always make its own pid namespace its children's again). The
  host is then pid 1 of a namespace of its own, where ``kill(pid, 0)`` finds its own processes
  alone and ``/proc`` (mounted again there: :func:`tournament.sandbox.mounts.private`) lists them
  alone. When it ends, the kernel kills every process left in the namespace; meanwhile, as pid 1,
  it is the reaper of every orphan there, so its tree holds every process it started. Unlike another
  process, pid 1 gets no signal from its own namespace that it has no handler for (its own
  ``SIGTERM`` to itself, say), as in a container; ``SIGKILL`` and ``SIGSTOP`` from the runner's
  namespace reach it, and its parent, outside, is pid 0 to it.

Both need ``CAP_SYS_ADMIN`` (root; :func:`possible` tells). Sources: ``unshare(2)``,
``ipc_namespaces(7)``, ``pid_namespaces(7)``, ``mq_overview(7)``, ``prctl(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
from collections.abc import Iterator

__all__ = ["IPC", "PID", "new_pids", "possible", "private_ipc"]

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


@contextlib.contextmanager
def new_pids() -> Iterator[None]:
    """Within it, the calling thread's next child is pid 1 of a new pid namespace (module docstring);
    after it, its children are in its own namespace again (the child, leaving it too, changes
    nothing). Raises ``OSError`` when it may not."""
    own, caller = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC), os.getpid()
    try:
        _unshare(PID)
        try:
            yield
        finally:
            if os.getpid() == caller and _libc.setns(own, PID) != 0:
                error = ctypes.get_errno()
                raise OSError(error, f"setns(CLONE_NEWPID): {os.strerror(error)}")
    finally:
        os.close(own)


@functools.cache
def possible(flag: int) -> bool:
    """True when this process may give its hosts namespaces ``flag`` (:data:`IPC`, :data:`PID`) of
    their own, tried in a child process (a fork), which leaves nothing behind."""
    pid = os.fork()
    if pid == 0:
        made = False
        try:
            if flag == IPC:
                _unshare(flag)
            if flag == PID:  # the namespace takes its first process, and this one's own comes back
                with new_pids():
                    child = os.fork()
                    if child == 0:
                        os._exit(0)
                os.waitpid(child, 0)
            made = True
        finally:
            os._exit(0 if made else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
