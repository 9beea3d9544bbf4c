"""No network for an agent: a network namespace of its host's own (``network_namespaces(7)``).

A new network namespace holds one device, a loopback ``lo`` of its own, which :func:`isolate` brings
up, as Docker's ``--network none`` leaves a container: an agent may talk to itself over
``127.0.0.1`` (a search in worker processes, say) but reaches no other address, no listener of the
machine's or of the other agent's, and no abstract Unix socket bound outside it (those belong to a
network namespace too). Making one needs ``CAP_SYS_ADMIN``, so the runner must be root (a container
may refuse it even then: :func:`possible` tells); without it, Landlock's TCP rules
(:mod:`~tournament.sandbox.landlock`, ABI 4) refuse TCP, where the kernel has them.

Each blank host makes its namespace as soon as it is forked (:func:`~tournament.sandbox.host.fork_host`),
before any game needs it, and the kernel frees it with the host's last process.
Sources: ``unshare(2)``, ``network_namespaces(7)``, ``netdevice(7)`` (``SIOCSIFFLAGS``), Linux
man-pages.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import socket
import struct

__all__ = ["isolate", "possible"]

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
