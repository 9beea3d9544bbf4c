"""The positions move analysis has solved, kept beside its ``moves.csv``: :func:`load`, :func:`keep`.

:func:`reports.stats.judging.judge` solves every position of a game column by column
(:class:`reports.exact.ExactScores` keeps them while it runs); solving is the costly part of an
analysis, and a run analysed again (after more games, or by a newer toolkit) meets the same
positions. They are kept in ``solved.db`` (:data:`CACHE_FILE`, SQLite, table
``solved``: a position's key -> the JSON list of its column scores), in the folder the analysis
writes, so a second analysis solves only new positions. It is a cache: a missing file is an empty
cache, and deleting it costs time, never a result.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

from reports.exact import Scores

__all__ = ["CACHE_FILE", "CacheError", "keep", "load"]

CACHE_FILE = "solved.db"
"""The cache's file, in the folder of the analysis's ``moves.csv``."""

_SCHEMA = "CREATE TABLE IF NOT EXISTS solved (key INTEGER PRIMARY KEY, scores TEXT NOT NULL)"


class CacheError(OSError):
    """The cache could not be read or written (one line: the file and what SQLite said)."""


def load(folder: Path | str) -> dict[int, Scores]:
    """The positions kept in ``folder``'s :data:`CACHE_FILE` (key -> scores, as
    :attr:`reports.stats.judging.Judged.solved`); empty when there is none. Raises
    :class:`CacheError` for a file that cannot be read."""
    path = Path(folder) / CACHE_FILE
    if not path.is_file():
        return {}
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT key, scores FROM solved").fetchall()
    except sqlite3.Error as error:
        raise CacheError(f"cannot read {path}: {error}") from None
    return {key: tuple(json.loads(scores)) for key, scores in rows}


def keep(folder: Path | str, solved: Mapping[int, Scores]) -> None:
    """Add ``solved`` to ``folder``'s :data:`CACHE_FILE` (made if missing; a key already there is
    kept), in one transaction. Raises :class:`CacheError` when it cannot be written (a read-only
    folder)."""
    path = Path(folder) / CACHE_FILE
    rows = [(key, json.dumps(list(scores))) for key, scores in solved.items()]
    try:
        with closing(sqlite3.connect(path)) as db, db:
            db.execute(_SCHEMA)
            db.executemany("INSERT OR IGNORE INTO solved VALUES (?, ?)", rows)
    except sqlite3.Error as error:
        raise CacheError(f"cannot write {path}: {error}") from None
