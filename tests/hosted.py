"""Run a command as in a hosted notebook's container (Kaggle's, Colab's): root, but namespaces and cgroups
refused::

    python -m tests.hosted COMMAND [ARGUMENT ...]

It execs COMMAND (a Jupyter kernel, in :mod:`tests.test_notebooks`) after two steps, which it and every
process it starts keep for good:

* the cgroup hierarchies are read-only: in a mount namespace of its own, every mount at and beneath
  ``/sys/fs/cgroup`` is made read-only again, as Docker mounts them in a container;
* a seccomp filter refuses, with ``EPERM``, ``unshare(2)``, ``setns(2)``, every mount call
  (``mount``, ``umount2``, ``pivot_root`` and the new mount API) and ``clone(2)`` with any
  ``CLONE_NEW*`` flag, and ``clone3(2)`` with ``ENOSYS`` (its flags lie in memory a filter cannot
  read, so the C library falls back to ``clone``), as Docker's default seccomp profile does for a
  container without ``CAP_SYS_ADMIN``.

Landlock, seccomp filters of the sandbox's own and the users of root stay. x86-64 only
(:func:`supported`). Sources: ``seccomp(2)``, ``clone(2)``, ``mount(2)``, ``mount_namespaces(7)``,
Linux's ``arch/x86/entry/syscalls/syscall_64.tbl``; Docker's ``profiles/seccomp/default.json``.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

_libc = ctypes.CDLL(None, use_errno=True)

_AUDIT_ARCH_X86_64 = 0xC000003E
_CLONE, _CLONE3 = 56, 435
_REFUSED = (272, 308, 165, 166, 155, 428, 429, 430, 431, 432, 433, 442)
"""unshare, setns, mount, umount2, pivot_root, open_tree, move_mount, fsopen, fsconfig, fsmount,
fspick, mount_setattr."""
_NEW_NAMESPACES = 0x7E020080
"""Every ``CLONE_NEW*`` flag: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME."""

_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_ALLOW, _ERRNO, _EPERM, _ENOSYS = 0x7FFF0000, 0x00050000, 1, 38
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_CLONE_NEWNS = 0x20000
CGROUPS = "/sys/fs/cgroup"


class _Instruction(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def supported() -> bool:
    """True on x86-64 as root, where this module can make its container."""
    return platform.machine() == "x86_64" and os.geteuid() == 0


def program() -> list[tuple[int, int, int, int]]:
    """The seccomp filter (module docstring) as classic BPF ``(code, jt, jf, k)``."""
    allow, refuse = (_RET_K, 0, 0, _ALLOW), (_RET_K, 0, 0, _ERRNO | _EPERM)
    enosys = (_RET_K, 0, 0, _ERRNO | _ENOSYS)
    # After the checks and their `allow`: clone's flags (the low word of its first argument), then
    # `allow` for clone without CLONE_NEW*, `refuse`, `enosys`.
    tail = [(_LD_W_ABS, 0, 0, 16), (_JSET_K, 1, 0, _NEW_NAMESPACES), allow, refuse, enosys]
    checks = [(_JEQ_K, 0, 0, number) for number in (_CLONE, _CLONE3, *_REFUSED)]
    body = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64), refuse, (_LD_W_ABS, 0, 0, 0)]
    # Offsets are counted from the instruction after the jump; the tail follows the checks, then allow.
    program = body[:]
    for index, (code, _, _, number) in enumerate(checks):
        after = len(checks) - index - 1 + 1  # the checks left, then the `allow` after them
        if number == _CLONE:
            target = after  # the flags check opens the tail
        elif number == _CLONE3:
            target = after + 4
        else:
            target = after + 3
        program.append((code, target, 0, number))
    return [*program, allow, *tail]


def confine() -> None:
    """Make the calling process's cgroups read-only and install the filter (module docstring). Raises
    ``OSError`` when it cannot."""

    def check(result: int, what: str) -> None:
        if result != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"{what}: {os.strerror(error)}")

    check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    check(_libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount(/, MS_PRIVATE)")
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        points = [line.split()[4] for line in handle]
    for point in points:
        if point == CGROUPS or point.startswith(CGROUPS + "/"):
            flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY
            check(_libc.mount(None, point.encode(), None, flags, None), f"remount {point} read-only")
    instructions = program()
    array = (_Instruction * len(instructions))(*(_Instruction(*each) for each in instructions))
    filter_program = _Program(len(instructions), array)
    check(_libc.syscall(ctypes.c_long(317), 1, 1, ctypes.byref(filter_program)), "seccomp")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m tests.hosted COMMAND [ARGUMENT ...]")
    confine()
    os.execvp(sys.argv[1], sys.argv[1:])
