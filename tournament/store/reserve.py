"""Room kept on the disk for the games a run has played: a reserve file beside the database.

A run's store could not take the record of a game just played once the disk is full (an agent
without a disk of its own filled it, or any other process did), and the game would be lost. So
while a run holds its store, :class:`Reserve` keeps :data:`RESERVE` bytes of the disk allocated in
``DIR/tournament.reserve``: when a write fails for want of space, the store removes the file and
writes again (:meth:`tournament.store.Store.add`), and the run stops before its next game
(:meth:`Reserve.room` is then False, as it is once less than :data:`MARGIN` bytes are free besides
the file). The file goes when the store closes; a run that was killed leaves it, and the next one
uses it again. Sources: ``posix_fallocate(3)``, ``statvfs(3)``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

__all__ = ["MARGIN", "RESERVE", "RESERVE_NAME", "Reserve", "disk_full"]

RESERVE = 8 << 20
"""Bytes kept: many games' records, and SQLite's write-ahead log up to its checkpoint (1,000 pages
of 4 KiB by default)."""

MARGIN = 1 << 20
"""Bytes that must be free besides the reserve for a run to play its next game."""

RESERVE_NAME = "tournament.reserve"


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` (SQLite's or the file system's) says the disk is full."""
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(error)
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


class Reserve:
    """:data:`RESERVE` bytes allocated in ``directory``/:data:`RESERVE_NAME` (module docstring).
    Raises ``OSError`` (``ENOSPC``) when the disk has not that much room."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / RESERVE_NAME
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.posix_fallocate(fd, 0, RESERVE)
        except OSError:
            os.close(fd)
            self.path.unlink(missing_ok=True)
            raise
        os.close(fd)
        self.held = True

    def release(self) -> bool:
        """Give the room back to the disk; False when it was given back already."""
        held, self.held = self.held, False
        if held:
            self.path.unlink(missing_ok=True)
        return held

    def free(self) -> int:
        """Bytes free on the disk for this process, besides the reserve."""
        stats = os.statvfs(self.path.parent)
        return stats.f_bavail * stats.f_frsize

    def room(self) -> bool:
        """True while the reserve is held and the disk has :data:`MARGIN` bytes free besides it."""
        return self.held and self.free() >= MARGIN

    def close(self) -> None:
        """Remove the file (again: nothing)."""
        self.release()
