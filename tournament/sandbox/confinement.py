"""Confinement of an agent's host process, applied after it is forked and before it loads the agent
(the list in :mod:`tournament.sandbox`'s docstring): its own session and no inherited descriptors
(:func:`detach`), its own directory, environment and resource limits (:func:`confine`), and, when
the runner is root, a user of its own (:func:`drop_privileges`).

Sources: ``setsid(2)``, ``setrlimit(2)``, ``prctl(2)``, ``capabilities(7)``, ``credentials(7)``
(Linux man-pages).
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import signal
import stat
import sys
import tempfile
from multiprocessing.connection import Connection
from pathlib import Path

from tournament.limits import Limits

__all__ = ["close_all_but", "confine", "detach", "drop_privileges", "prctl", "python_is_private"]

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
_PR_SET_KEEPCAPS = 8
_CAPABILITY_VERSION_3 = 0x20080522
_CAP_DAC_READ_SEARCH = 2
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    """``prctl(option, value)``; raises OSError when it fails."""
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}, {value}) failed")


def close_all_but(keep: int) -> None:
    """Close every file descriptor from 3 up but ``keep`` (the standard streams stay)."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))


def detach(conn: Connection) -> None:
    """The host's own session, and no descriptor of the runner's but its pipe (module docstring)."""
    os.setsid()
    close_all_but(conn.fileno())
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the host's streams for good
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)


def confine(workdir: str, limits: Limits) -> None:
    """The host's own directory, environment and limits (module docstring)."""
    os.chdir(workdir)
    path = os.environ.get("PATH", os.defpath)
    os.environ.clear()
    os.environ.update(PATH=path, HOME=workdir, TMPDIR=workdir, LANG="C.UTF-8")
    tempfile.tempdir = None
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.memory_mb is not None:
        size = limits.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))


def drop_privileges(uid: int, limits: Limits) -> None:
    """Become user and group ``uid``, with no supplementary groups and at most ``limits.processes``.

    Where Python's own files are out of other users' reach (:func:`python_is_private`), the host
    keeps one capability, ``CAP_DAC_READ_SEARCH`` (read any file; no writing, signalling or tracing
    beyond its user), so that the agent can still import.
    """
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    keep = python_is_private()
    if keep:
        prctl(_PR_SET_KEEPCAPS, 1)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if keep:
        header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
        mask = 1 << _CAP_DAC_READ_SEARCH
        data = (ctypes.c_uint32 * 6)(mask, mask, 0, 0, 0, 0)  # effective, permitted, inheritable x 2
        if _libc.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset failed")


@functools.cache
def python_is_private() -> bool:
    """True when a folder on ``sys.path`` cannot be read by other users (e.g. Python under /root)."""
    for entry in sys.path:
        path = Path(entry or ".").resolve()
        if not path.is_dir():
            continue
        for folder in (path, *path.parents):
            if not folder.stat().st_mode & stat.S_IXOTH:
                return True
        if not path.stat().st_mode & stat.S_IROTH:
            return True
    return False
