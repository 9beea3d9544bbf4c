"""No network for an agent: a network namespace of its host's own (``network_namespaces(7)``).

A new network namespace holds one device, a loopback ``lo`` of its own, which :func:`isolate` brings
up, as Docker's ``--network none`` leaves a container: an agent may talk to itself over
``127.0.0.1`` (a search in worker processes, say) but reaches no other address, no listener of the
machine's or of the other agent's, and no abstract Unix socket bound outside it (those belong to a
network namespace too). Making one needs ``CAP_SYS_ADMIN``, so the runner must be root (a container
may refuse it even then: :func:`possible` tells); without it, Landlock's TCP rules
(:mod:`~tournament.sandbox.landlock`, ABI 4) refuse TCP, where the kernel has them.

A zygote makes two namespaces once (:func:`make`), one for the hosts of each mark, which each enters
when it is assigned (:func:`enter`): making one costs about a millisecond of CPU time, entering one
microseconds. So the hosts of one game never share one, and those that share one never run at once
(every process of a game is killed before the next game's hosts are assigned). A host forked
without a zygote makes its own (:func:`isolate`).
Sources: ``unshare(2)``, ``setns(2)``, ``network_namespaces(7)``, ``netdevice(7)``
(``SIOCSIFFLAGS``), Linux man-pages.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import socket
import struct

__all__ = ["enter", "isolate", "make", "possible"]

_libc = ctypes.CDLL(None, use_errno=True)

_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS = 0x8913, 0x8914
_IFF_UP = 0x1
_IFREQ = "16sH14x"
"""``struct ifreq`` with its flags: the device's name, ``ifr_flags``, padding to 32 bytes."""


def isolate() -> None:
    """Move the calling process (single-threaded, holding ``CAP_SYS_ADMIN``) into a new network
    namespace and bring its loopback device up. Raises ``OSError`` when it may not."""
    if _libc.unshare(_CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"unshare(CLONE_NEWNET): {os.strerror(error)}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack(_IFREQ, b"lo", 0)
        flags = struct.unpack(_IFREQ, fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def enter(namespace: int) -> None:
    """Move the calling process (holding ``CAP_SYS_ADMIN``) into the network namespace open as
    ``namespace`` (:func:`make`). Raises ``OSError`` when it may not."""
    if _libc.setns(namespace, _CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns(CLONE_NEWNET): {os.strerror(error)}")


def make() -> int:
    """A new network namespace with its loopback up (:func:`isolate`), as a descriptor that keeps it
    alive, made by the calling process without leaving its own. Raises ``OSError`` when it may not."""
    own = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        isolate()
        try:
            return os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        finally:
            enter(own)
    finally:
        os.close(own)


@functools.cache
def possible() -> bool:
    """True when this process may give its hosts network namespaces of their own (:func:`isolate`),
    tried in a child process (a fork), which leaves nothing behind."""
    pid = os.fork()
    if pid == 0:
        made = False
        try:
            isolate()
            made = True
        finally:
            os._exit(0 if made else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
