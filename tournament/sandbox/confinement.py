"""Confinement of an agent's host process: its own session and no inherited descriptors
(:func:`detach`, as soon as it is forked), then, once it has loaded its agent, its own directory,
environment and resource limits (:func:`confine`), and no privilege (:func:`drop_privileges`: a
user of its own when the runner is root, no capability, ``no_new_privs``). What it may read is
:mod:`tournament.sandbox.isolation`'s.

Sources: ``setsid(2)``, ``setrlimit(2)``, ``prctl(2)``, ``capabilities(7)``, ``credentials(7)``,
``capset(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys
import tempfile
from multiprocessing.connection import Connection

from tournament.limits import Limits

__all__ = [
    "clear_environment",
    "close_all_but",
    "confine",
    "detach",
    "drop_privileges",
    "empty_bounding_set",
    "prctl",
]

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
_PR_SET_KEEPCAPS = 8
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
_CAP_DAC_READ_SEARCH = 2
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    """``prctl(option, value)``; raises OSError when it fails."""
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}, {value}) failed")


def close_all_but(*keep: int) -> None:
    """Close every file descriptor from 3 up but those in ``keep`` (the standard streams stay)."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def detach(conn: Connection, keep: tuple[int, ...] = ()) -> None:
    """The host's own session, and no descriptor of the runner's but its pipe and ``keep``."""
    os.setsid()
    close_all_but(conn.fileno(), *keep)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the host's streams for good
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)


def clear_environment() -> None:
    """Keep nothing of the environment but ``PATH``, with ``LANG=C.UTF-8`` (and ``HOME`` and
    ``TMPDIR`` if set). The zygote does it once for its hosts, which then have nothing to do: it
    costs a process that has not about 1 ms (``os.environ``'s pages copied on write, ``putenv``)."""
    if os.environ.keys() - {"PATH", "LANG", "HOME", "TMPDIR"} or os.environ.get("LANG") != "C.UTF-8":
        path = os.environ.get("PATH", os.defpath)
        os.environ.clear()
        os.environ.update(PATH=path, LANG="C.UTF-8")


def confine(workdir: str, limits: Limits, *, address_space: bool = True) -> None:
    """Work in ``workdir`` (also ``HOME`` and ``TMPDIR``), with an environment of its own (``PATH``
    and ``LANG`` alone besides: :func:`clear_environment`), no core files, no file larger than
    ``limits.disk_mb`` MiB (``RLIMIT_FSIZE``: a longer write fails with ``EFBIG``, Python ignoring
    ``SIGXFSZ``) and, with ``address_space`` (the fallback where no memory cgroup bounds the host's
    tree: :mod:`~tournament.sandbox.memory`), at most ``limits.memory_mb`` MiB of address space."""
    os.chdir(workdir)
    clear_environment()
    os.environ.update(HOME=workdir, TMPDIR=workdir)
    tempfile.tempdir = None
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.disk_mb << 20, limits.disk_mb << 20))
    if address_space and limits.memory_mb is not None:
        size = limits.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))


_emptied: bool | None = None
"""``keep_read`` of the :func:`empty_bounding_set` call that emptied this process's bounding set, if
any: a process forked from it inherits both."""


def empty_bounding_set(keep_read: bool = False) -> None:
    """Drop every capability but, with ``keep_read``, ``CAP_DAC_READ_SEARCH`` from the calling
    process's bounding set, where it may (``CAP_SETPCAP``): no ``execve`` of it or of a process it
    forks from then on can grant them. The capabilities it holds stay: the bounding set bounds only
    what ``execve`` gives. A process forked from one that did it does nothing (the zygote does it
    once, for all its hosts)."""
    global _emptied
    if _emptied == keep_read:
        return
    capability = 0
    while (keep_read and capability == _CAP_DAC_READ_SEARCH) or _drop_from_bounding_set(capability):
        capability += 1
    _emptied = keep_read


def _drop_from_bounding_set(capability: int) -> bool:
    """False once ``capability`` is past the last the kernel knows (EINVAL), or may not be dropped."""
    dropped: bool = _libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) == 0
    return dropped


def drop_privileges(uid: int | None, limits: Limits, *, keep_read: bool = False) -> None:
    """Hold no privilege from now on, nor gain any: as root, become user and group ``uid`` with no
    supplementary groups and at most ``limits.processes`` processes, after emptying the capability
    bounding set (where it may: ``CAP_SETPCAP``); then clear the ambient, inheritable, permitted
    and effective capabilities and set ``no_new_privs`` (no ``execve`` grants any: setuid and file
    capabilities are ignored). With ``uid`` None (the runner is not root), it keeps its user.

    ``keep_read`` keeps one capability, ``CAP_DAC_READ_SEARCH`` (read any file; no writing,
    signalling or tracing beyond its user): the fallback where Python's own files are out of the
    agents' users' reach and no mount namespace can expose them
    (:func:`tournament.sandbox.isolation.needs_capability`). Raises ``OSError`` when a step fails.
    """
    keep = 1 << _CAP_DAC_READ_SEARCH if keep_read and uid is not None else 0
    if uid is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        empty_bounding_set(keep_read)
        if keep:
            prctl(_PR_SET_KEEPCAPS, 1)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    with contextlib.suppress(OSError):  # EINVAL before Linux 4.3, which has no ambient set
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)(keep, keep, 0, 0, 0, 0)  # effective, permitted, inheritable; twice
    if _libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    prctl(_PR_SET_NO_NEW_PRIVS, 1)
