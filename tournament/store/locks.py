"""The locks of a tournament directory (``fcntl.flock`` on ``DIR/tournament.lock``): a run's
exclusive lock (:func:`run_lock`), and the shared lock of a reader that can only read the database as
``immutable`` (:func:`reader_lock`); whether a run holds a directory, asked without taking a lock
(:func:`held`). The holder of the run lock writes its pid in the file, for the message a second run
prints. Sources: ``flock(2)``, ``proc(5)`` (``/proc/locks``) (Linux man-pages)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tournament.store.errors import StoreError, failures

__all__ = ["LOCK_NAME", "flock_or_holder", "held", "reader_lock", "run_lock"]

LOCK_NAME = "tournament.lock"


def run_lock(directory: Path) -> int:
    """Take the run lock of ``directory``; returns its file descriptor (closing it releases the lock).

    Raises :class:`StoreError` when another run holds it, or the directory cannot be written.
    """
    path = directory / LOCK_NAME
    fd, holder = _take(path, os.O_RDWR | os.O_CREAT, fcntl.LOCK_EX, "create the lock file")
    if holder is not None:
        raise StoreError(
            f"{directory} is in use by another run (process {holder}); "
            "wait for it to end or choose another --out"
        ) from None
    try:
        with failures(path, "write"):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)  # for the message a second run prints
    except StoreError:
        os.close(fd)
        raise
    return fd


def held(directory: Path, *, locks: str = "/proc/locks") -> bool:
    """Whether a run holds the run lock of ``directory`` now (a run is playing there).

    Read from the kernel's table of locks, ``locks`` (``/proc/locks``: a held ``flock`` is a line
    ``N: FLOCK ADVISORY WRITE PID MAJOR:MINOR:INODE 0 EOF``, device numbers in hex), not by trying
    the lock: a reader that took it, even for a moment, could make a run that starts meanwhile find
    its directory in use. False without a lock file, or where the table cannot be read.

    >>> held(Path("/nonexistent"))
    False
    """
    try:
        status = os.stat(directory / LOCK_NAME)
        with open(locks, encoding="ascii", errors="replace") as table:
            lines = table.read().splitlines()
    except OSError:
        return False
    lock = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    for line in lines:
        fields = line.split()
        if fields[1:2] == ["FLOCK"] and "WRITE" in fields and lock in fields:
            return True  # (a waiter's line, "N: -> FLOCK ...", holds nothing)
    return False


def reader_lock(path: Path) -> int | None:
    """Make sure that no writer can exist for the database ``path``, which SQLite could open neither
    read-write nor read-only, so that it may be read as ``immutable`` (which neither locks nor reads
    the write-ahead log): its ``-wal`` file holds no frames, and no run holds the directory's lock.
    Returns the file descriptor of a shared lock on the run lock (None without a lock file), to hold
    while reading: a run cannot start writing meanwhile.

    Raises :class:`StoreError` (one line) when a writer may exist, or the lock cannot be read."""
    directory = path.parent
    wal = Path(f"{path}-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise StoreError(
            f"cannot read {path}: its folder cannot be written here, and its write-ahead log {wal.name} "
            "holds changes that SQLite reads only through a -shm file it cannot create; read it where it "
            "is writable, or copy the folder"
        )
    lock_path = directory / LOCK_NAME
    if not lock_path.exists():
        return None
    fd, holder = _take(lock_path, os.O_RDONLY, fcntl.LOCK_SH, "read")
    if holder is not None:
        raise StoreError(
            f"{directory} is being written by a run (process {holder}) and cannot be read safely while it "
            "runs, since it cannot be written here; wait for the run to end"
        ) from None
    return fd


def _take(path: Path, flags: int, mode: int, doing: str) -> tuple[int, str | None]:
    """Open the lock file ``path`` (``os.open`` ``flags``; created ``0644``) and take the lock ``mode``
    on it without waiting (:func:`flock_or_holder`): its file descriptor, and the holder's pid when
    another process holds it (the descriptor closed then). Raises :class:`StoreError` when ``doing``,
    opening it, fails."""
    with failures(path, doing):
        fd = os.open(path, flags | os.O_CLOEXEC, 0o644)
    return fd, flock_or_holder(fd, mode)


def flock_or_holder(fd: int, mode: int) -> str | None:
    """Take the lock ``mode`` (``fcntl.LOCK_SH`` or ``LOCK_EX``) on the lock file ``fd`` without
    waiting; None when taken, else the pid its holder wrote in it (``"?"`` if none), ``fd`` closed."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        return holder
    return None
