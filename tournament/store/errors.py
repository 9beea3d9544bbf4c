"""The failures of a tournament store, each one line a person reads: :class:`StoreError`, and
:func:`failures`, which turns SQLite's and the file system's errors into one."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

__all__ = ["StoreError", "Unwritable", "cannot_write", "describe", "failures"]


class StoreError(RuntimeError):
    """A tournament directory that cannot be used as asked (see the message, one line)."""


class Unwritable(StoreError):
    """SQLite could not open or write the database in the mode asked (a read-only file system or
    folder): :meth:`~tournament.store.Store.open` then tries a read-only mode."""


def describe(path: Path, doing: str, error: sqlite3.Error | OSError) -> str:
    """One line for a failed SQLite or file operation ``doing`` (e.g. ``"store game 7 in"``) on ``path``."""
    text = str(error) if isinstance(error, sqlite3.Error) else (error.strerror or str(error))
    if "malformed" in text or "not a database" in text:
        return (
            f"{path} is damaged ({text}); restore it from a copy, or start over with --overwrite "
            "(its games are lost then)"
        )
    if "full" in text or "No space left" in text:
        return f"cannot {doing} {path}: the disk is full; free some space and run again to resume"
    if "readonly" in text or "unable to open" in text:
        return f"cannot {doing} {path}: {text} (is its directory writable?)"
    return f"cannot {doing} {path}: {text}"


def cannot_write(error: sqlite3.Error) -> bool:
    """SQLite failed for want of writing: it could not open or create a file (the database's ``-wal``
    or ``-shm`` in a read-only folder: ``SQLITE_CANTOPEN``), or could not write one (``SQLITE_READONLY``
    and its extended codes)."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY"))


@contextlib.contextmanager
def failures(path: Path, doing: str) -> Iterator[None]:
    """Turn SQLite and OS errors inside the block into a :class:`StoreError` (see :func:`describe`)."""
    try:
        yield
    except (sqlite3.Error, OSError) as error:
        raise StoreError(describe(path, doing, error)) from None
