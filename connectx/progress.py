"""Progress on the terminal that never goes quiet: a tqdm bar whose clock keeps running.

tqdm redraws a bar only when it changes, so during a long step -- a game of two agents that think
for seconds a move, the ratings of a large run, a file being checked -- its elapsed time stands
still and the terminal looks hung. :class:`Ticking` redraws the bar every :data:`INTERVAL` seconds
from a thread of its own while it is open, on a terminal only (a log gets the bar's own lines).

The thread is safe in a process that forks (the runner forks its game processes while the games'
bar ticks): it takes no lock that a forked child could inherit held. It formats the bar itself
(``str(bar)``: tqdm's ``format_meter`` over the bar's counters, read without tqdm's lock) and writes
it with one ``os.write`` to the bar's file descriptor, bypassing ``sys.stderr``'s buffer and its
lock; it waits on an event of its own. Its redraws and tqdm's are each a whole line starting with
a carriage return, so neither garbles the other.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

__all__ = ["INTERVAL", "Ticking", "bar"]

INTERVAL = 1.0
"""Seconds between two redraws of a ticking bar."""


def bar(**options: Any) -> Any:
    """A tqdm bar on stderr (``options``: tqdm's), with ``dynamic_ncols``, shown on a terminal only
    (``disable=None``; ``disable=False`` shows it in a log too), and no monitor thread, which a
    process that forks should not have (tqdm has no type information, hence ``Any``)."""
    from tqdm import tqdm

    tqdm.monitor_interval = 0
    return tqdm(**{"dynamic_ncols": True, "file": sys.stderr, "disable": None, **options})


class Ticking:
    """Redraw ``shown`` (a tqdm bar) every ``interval`` seconds, the first time after ``delay``
    seconds (default ``interval``), until :meth:`stop` (or the end of a ``with`` block), when its file
    is a terminal; else do nothing. See the module docstring. Stopping clears the line it drew, for
    the bar's own ``close`` to print its last state (``leave=True``) or nothing."""

    def __init__(self, shown: Any, interval: float = INTERVAL, *, delay: float | None = None) -> None:
        self.bar, self.interval = shown, interval
        self.delay = interval if delay is None else delay
        self._width = 0  # of the line last drawn
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        stream = getattr(shown, "fp", None)
        try:
            self._fd = stream.fileno() if stream is not None and stream.isatty() else None
        except (AttributeError, OSError, ValueError):  # a wrapped or closed stream, a test's buffer
            self._fd = None
        if self._fd is not None and not getattr(shown, "disable", False):
            self._thread = threading.Thread(target=self._tick, name="progress-ticker", daemon=True)
            self._thread.start()

    def _tick(self) -> None:
        wait = self.delay
        while not self._stop.wait(wait):
            wait = self.interval
            try:
                self._draw(str(self.bar))
            except Exception:  # noqa: BLE001 - a redraw that fails (a closed terminal) ends the ticking
                return

    def _draw(self, line: str) -> None:
        """Write ``line`` over the line last drawn."""
        assert self._fd is not None
        os.write(self._fd, ("\r" + line + " " * max(0, self._width - len(line))).encode())
        self._width = len(line)

    def stop(self) -> None:
        """Stop redrawing and clear the line drawn, if any (at once; again: nothing)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            if self._width:
                with contextlib.suppress(OSError):
                    self._draw("")  # blanks over the line
                    self._draw("")  # back to its start

    def __enter__(self) -> Ticking:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
