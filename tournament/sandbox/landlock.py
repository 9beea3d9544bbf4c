"""Landlock, the kernel's unprivileged access control (Linux 5.13 and later), through its three system
calls: a process restricts itself, and every process it starts from then on, to the files and folders
it names, on top of the usual permissions, for good.

:func:`abi` probes the kernel's Landlock ABI version (0 where there is none: an older kernel, or
Landlock not among the kernel's security modules). A :class:`Ruleset` handles every file access right
the ABI knows, from ABI 6 scopes signals and abstract Unix sockets to the processes it restricts, and,
when asked and from ABI 4, refuses binding and connecting TCP sockets (to any port: no rule grants
one; UDP and other protocols are not Landlock's);
:meth:`Ruleset.allow` grants rights beneath a path, :meth:`Ruleset.restrict` applies it to the calling
thread (the caller sets ``no_new_privs`` first, or holds ``CAP_SYS_ADMIN``).

Sources: ``landlock(7)``, ``landlock_create_ruleset(2)``, ``landlock_add_rule(2)``,
``landlock_restrict_self(2)`` (Linux man-pages); ``include/uapi/linux/landlock.h`` and
``Documentation/userspace-api/landlock.rst`` (Linux 6.18) for the ABI versions.
"""

from __future__ import annotations

import ctypes
import functools
import os
import stat

__all__ = ["ALL", "READ", "Rule", "Ruleset", "abi", "rule"]

_libc = ctypes.CDLL(None, use_errno=True)

# The same numbers on every architecture (the system calls came after the table was unified).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1

# File access rights (LANDLOCK_ACCESS_FS_*): ABI 1 has bits 0-12, ABI 2 adds REFER, ABI 3 TRUNCATE,
# ABI 5 IOCTL_DEV.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
_MAKE_AND_REMOVE = sum(
    1 << bit for bit in range(4, 13)
)  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The rights that apply to a file (not a folder): a rule on a file grants no other."""

READ = READ_FILE | READ_DIR | EXECUTE
"""Read and run files, list folders."""

ALL = READ | WRITE_FILE | _MAKE_AND_REMOVE | REFER | TRUNCATE | IOCTL_DEV
"""Every file access right."""

_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1  # ABI 6
_BIND_TCP, _CONNECT_TCP = 1 << 0, 1 << 1  # LANDLOCK_ACCESS_NET_*, ABI 4

TCP_ABI = 4
"""The first Landlock ABI with network rights (Linux 6.7)."""


class _RulesetAttr(ctypes.Structure):
    """``struct landlock_ruleset_attr`` as of ABI 6; an older kernel takes it whole, its newer fields 0."""

    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class Rule(ctypes.Structure):
    """A rule, ``struct landlock_path_beneath_attr`` (packed): made once by :func:`rule`, it may be
    added to many rulesets (:meth:`Ruleset.add`)."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _syscall(number: int, *args: object) -> int:
    """``syscall(number, *args)``; raises OSError when it fails."""
    result: int = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"Landlock system call {number}: {os.strerror(error)}")
    return result


@functools.cache
def abi() -> int:
    """The kernel's Landlock ABI version (1 on Linux 5.13, 7 on 6.15), or 0 without Landlock."""
    try:
        return _syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError:  # ENOSYS: not built in; EOPNOTSUPP: not enabled at boot
        return 0


def _handled(version: int) -> int:
    """The file access rights ABI ``version`` knows."""
    rights = ALL & ~(REFER | TRUNCATE | IOCTL_DEV)
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


@functools.cache
def _ruleset_attr(tcp: bool) -> _RulesetAttr:
    """What a :class:`Ruleset` handles: every file access right the kernel's ABI knows, from ABI 6
    the scopes of signals and abstract Unix sockets, and with ``tcp``, from ABI 4, binding and
    connecting TCP sockets (made once)."""
    version = abi()
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if version >= 6 else 0
    network = _BIND_TCP | _CONNECT_TCP if tcp and version >= TCP_ABI else 0
    return _RulesetAttr(_handled(version), network, scoped)


def rule(fd: int, rights: int) -> Rule:
    """A rule granting ``rights`` (of this module's flags the kernel's ABI knows) on the file or folder
    open as ``fd`` (``O_PATH`` will do) and, for a folder, everything beneath it; on a file, only the
    rights that apply to files. It holds to the file itself (its inode), whichever path or mount
    namespace it was opened through, and names it by ``fd``: keep that open while adding the rule."""
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        rights &= _FILE_RIGHTS
    return Rule(rights & _handled(abi()), fd)


class Ruleset:
    """A Landlock ruleset for the calling process: every file access right the kernel's ABI knows is
    denied but where a rule grants it (:meth:`allow`, :meth:`add`); from ABI 6, signals and
    connections to abstract Unix sockets reach only processes restricted by it (or within it); with
    ``tcp``, from ABI 4 (:data:`TCP_ABI`), no TCP socket may bind or connect. Raises ``OSError``
    without Landlock (:func:`abi` is 0)."""

    def __init__(self, *, tcp: bool = False) -> None:
        attr = _ruleset_attr(tcp)
        self._fd = _syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0)

    def allow(self, path: str, rights: int) -> None:
        """Grant ``rights`` (of this module's flags) on ``path`` and, for a folder, everything beneath
        it (:func:`rule`). A path that does not exist is skipped."""
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            self.add(rule(fd, rights))
        finally:
            os.close(fd)

    def add(self, prepared: Rule) -> None:
        """Add a rule made by :func:`rule` (whose descriptor is still open)."""
        _syscall(
            _ADD_RULE, ctypes.c_int(self._fd), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(prepared), 0
        )

    @property
    def descriptor(self) -> int:
        """Its file descriptor, which a process forked to restrict itself with it keeps open."""
        return self._fd

    def close(self) -> None:
        """Close it unapplied (a process that forked one to apply it keeps no copy)."""
        os.close(self._fd)

    def restrict(self) -> None:
        """Restrict the calling thread, and every process it starts from now on, to this ruleset, for
        good (call it while single-threaded: other threads keep their access)."""
        try:
            _syscall(_RESTRICT_SELF, ctypes.c_int(self._fd), ctypes.c_uint32(0))
        finally:
            self.close()
