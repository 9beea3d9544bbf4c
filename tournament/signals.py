"""SIGTERM handled as Ctrl-C is: an exception in the main thread, so that what a run holds is let go.

Killed by SIGTERM's default action (``kill PID``, a job scheduler's stop, ``timeout``), a run would
end at once with exit status 143, saying nothing and leaving its game processes' scratch
directories and its store's disk reserve behind. Within :func:`sigterm_raises`, SIGTERM raises
:class:`Terminated` instead, a ``KeyboardInterrupt``: every ``finally`` and ``with`` on the way out
runs, as for Ctrl-C (SIGINT), and a caller that tells the two apart exits 143 (128 + 15, the shell's
status of a process that SIGTERM ended), as the default action would have. Source: ``signal(7)``;
Python's ``signal`` module (handlers run in the main thread, between bytecodes).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

__all__ = ["TERMINATED", "Terminated", "sigterm_raises"]

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a command that SIGTERM ended: 143."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived within :func:`sigterm_raises` (a ``KeyboardInterrupt``, so that what handles
    Ctrl-C handles it too)."""


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in this process. Only in the main thread
    and when SIGTERM has its default action (a handler the caller set is left alone); a process forked
    meanwhile that gets SIGTERM takes the default action, as it would have. The previous action is
    restored after the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    owner = os.getpid()

    def terminated(number: int, frame: object) -> None:
        if os.getpid() != owner:  # a child forked within the block: die as SIGTERM's default says
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated(f"terminated by signal {number}")

    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
