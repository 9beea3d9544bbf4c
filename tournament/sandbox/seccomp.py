"""An agent's CPUs are those of its game: a seccomp filter refuses ``sched_setaffinity(2)``.

A host inherits the CPU affinity of its game process (the game's share of the machine's CPUs:
:func:`tournament.runner.cpu_share`). Any process may widen its own affinity to every CPU of the
machine; a host refuses itself that call, for good and for every process it starts, with a seccomp
filter (:func:`lock_affinity`): ``sched_setaffinity`` fails with ``EPERM`` (Python's
``os.sched_setaffinity`` raises ``PermissionError``), ``sched_getaffinity`` still answers. The
filter knows the call's number on x86-64 (also through the x32 and i386 ABIs) and arm64 (also
through 32-bit arm); elsewhere, or where the kernel has no seccomp filters, :func:`available` is
False and the affinity is not locked.

Installing a filter needs ``no_new_privs`` (set by
:func:`~tournament.sandbox.confinement.drop_privileges`) or ``CAP_SYS_ADMIN``; ``TSYNC`` applies it
to every thread of the host. Sources: ``seccomp(2)``, ``sched_setaffinity(2)``, Linux's
``Documentation/userspace-api/seccomp_filter.rst``; the system call numbers from the kernel's
``arch/x86/entry/syscalls/syscall_64.tbl`` and ``syscall_32.tbl``, ``include/uapi/asm-generic/unistd.h``
and ``arch/arm/tools/syscall.tbl``; ``AUDIT_ARCH_*`` from ``include/uapi/linux/audit.h``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform

__all__ = ["available", "lock_affinity"]

_libc = ctypes.CDLL(None, use_errno=True)

_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
_SECCOMP_RET_ALLOW, _SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
_EPERM = 1
_X32 = 0x40000000
_SECCOMP = {"x86_64": 317, "aarch64": 277}
"""The number of ``seccomp(2)`` itself, by machine."""
_REFUSED: dict[str, dict[int, tuple[int, ...]]] = {
    "x86_64": {0xC000003E: (203, 203 | _X32), 0x40000003: (241,)},  # x86-64 (and x32), i386
    "aarch64": {0xC00000B7: (122,), 0x40000028: (241,)},  # arm64, arm
}
"""By machine: by ``AUDIT_ARCH_*``, the numbers of ``sched_setaffinity``."""

# Classic BPF (``linux/filter.h``): the instruction classes and modes the filter uses.
_LD_W_ABS, _JEQ_K, _RET_K = 0x20, 0x15, 0x06
_NR, _ARCH = 0, 4
"""Offsets in ``struct seccomp_data`` of the system call's number and of its ``AUDIT_ARCH_*``."""


class _Instruction(ctypes.Structure):
    """``struct sock_filter``: one classic BPF instruction."""

    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    """``struct sock_fprog``: the filter's length and instructions."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def _program(refused: dict[int, tuple[int, ...]]) -> list[tuple[int, int, int, int]]:
    """The filter, as ``(code, jt, jf, k)``: for each architecture of ``refused``, its numbers fail
    with ``EPERM``; every other call is allowed.

    >>> for instruction in _program({0xC000003E: (203,)}):
    ...     print(*(hex(field) for field in instruction))
    0x20 0x0 0x0 0x4
    0x15 0x0 0x4 0xc000003e
    0x20 0x0 0x0 0x0
    0x15 0x1 0x0 0xcb
    0x6 0x0 0x0 0x7fff0000
    0x6 0x0 0x0 0x50001
    0x6 0x0 0x0 0x7fff0000
    """
    refuse = (_RET_K, 0, 0, _SECCOMP_RET_ERRNO | _EPERM)
    allow = (_RET_K, 0, 0, _SECCOMP_RET_ALLOW)
    blocks: list[list[tuple[int, int, int, int]]] = []
    for arch, numbers in refused.items():
        block = [(_LD_W_ABS, 0, 0, _NR)]
        for index, number in enumerate(numbers):  # equal: jump past the rest and `allow`, to `refuse`
            block.append((_JEQ_K, len(numbers) - index, 0, number))
        block.append(allow)
        block.append(refuse)
        # the block is entered only for its architecture: skip it otherwise
        blocks.append([(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 0, len(block), arch), *block])
    return [instruction for block in blocks for instruction in block] + [allow]


@functools.cache
def _filter() -> tuple[_Program, ctypes.Array[_Instruction]] | None:
    """This machine's filter, made once (a process forks its hosts with it made), with the array it
    points to; None where the machine's system call numbers are not known here."""
    refused = _REFUSED.get(platform.machine())
    if refused is None:
        return None
    instructions = _program(refused)
    array = (_Instruction * len(instructions))(*(_Instruction(*each) for each in instructions))
    return _Program(len(instructions), array), array


def lock_affinity() -> None:
    """Refuse ``sched_setaffinity`` to the calling process, all its threads and every process it
    starts, for good (the module docstring). Raises ``OSError`` when it cannot (no seccomp filters
    in the kernel, an unknown machine, no ``no_new_privs`` and no ``CAP_SYS_ADMIN``)."""
    made = _filter()
    if made is None:
        raise OSError(f"no seccomp filter for this machine ({platform.machine()})")
    number = _SECCOMP[platform.machine()]
    flags = _SECCOMP_FILTER_FLAG_TSYNC
    result = _libc.syscall(ctypes.c_long(number), _SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(made[0]))
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"seccomp: {os.strerror(error)}")


@functools.cache
def available() -> bool:
    """True when a host may lock its affinity (:func:`lock_affinity`), tried in a child process (a
    fork) with ``no_new_privs``, which leaves nothing behind."""
    _filter()  # made here, for every process forked from this one
    pid = os.fork()
    if pid == 0:
        locked = False
        try:
            if _libc.prctl(38, 1, 0, 0, 0) == 0:  # PR_SET_NO_NEW_PRIVS
                lock_affinity()
                try:
                    os.sched_setaffinity(0, os.sched_getaffinity(0))
                except PermissionError:
                    locked = True
        finally:
            os._exit(0 if locked else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
