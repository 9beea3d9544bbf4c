"""The SQLite file of a tournament store: its name and side files, a new one made atomically
(:func:`new_database`), and a connection to an existing one, checked and brought up to date
(:func:`connect`; the layout is :mod:`tournament.schema`'s). SQLite's URIs:
https://www.sqlite.org/uri.html."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

from agents.files import replace_atomically
from tournament.schedule import Settings
from tournament.schema import SCHEMA, SCHEMA_VERSION, SchemaError, migrate
from tournament.store.errors import StoreError, Unwritable, cannot_write, describe, failures
from tournament.store.settings import settings_to_json

__all__ = [
    "DB_NAME",
    "INSERT_SETTINGS",
    "OUR_TABLES",
    "SIDE_FILES",
    "connect",
    "new_database",
    "stored_settings",
    "table_names",
]

DB_NAME = "tournament.db"
NEW_SUFFIX = ".new"
"""A database being created is ``tournament.db.new`` until it is complete."""
SIDE_FILES = ("", "-wal", "-shm", "-journal")
"""The suffixes of a database's files: the database itself, then SQLite's side files."""

OUR_TABLES = {"settings", "games"}
FORMER_TABLES = {"solved"}
"""Tables an older version kept in a store, left as they are: ``solved``, move analysis's cache,
which now has a file of its own (:mod:`reports.stats.solved`)."""


def uri(path: Path, query: dict[str, str]) -> str:
    """SQLite's URI of the file ``path`` with the parameters ``query`` (``mode``, ``immutable``); the
    path is percent-encoded, so a folder named ``a?b#c`` is that folder."""
    return f"{Path(os.path.abspath(path)).as_uri()}?{urlencode(query)}"


def in_memory(db: sqlite3.Connection) -> sqlite3.Connection:
    """A copy of ``db`` in memory (``db`` is closed): a store read read-only is migrated there."""
    memory = sqlite3.connect(":memory:")
    try:
        db.backup(memory)
    except BaseException:
        memory.close()
        raise
    finally:
        db.close()
    return memory


INSERT_SETTINGS = "INSERT INTO settings (id, json) VALUES (1, ?)"


def table_names(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def stored_settings(db: sqlite3.Connection) -> str | None:
    """The settings JSON of a tournament database, or None if it has none (tables or row missing)."""
    if "settings" not in table_names(db):
        return None
    row = db.execute("SELECT json FROM settings WHERE id = 1").fetchone()
    return None if row is None else row[0]


def new_database(path: Path, settings: Settings) -> None:
    """Create the database ``path`` holding ``settings`` and no games, atomically: it is written as
    ``path.new`` and renamed into place once complete (:func:`agents.files.replace_atomically`). Call
    with the run lock held."""
    temporary = path.with_name(path.name + NEW_SUFFIX)
    for suffix in SIDE_FILES:  # what a creation killed half-way left behind
        Path(f"{temporary}{suffix}").unlink(missing_ok=True)

    def make(file: Path) -> None:
        db = sqlite3.connect(file)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            with db:
                db.execute(INSERT_SETTINGS, (settings_to_json(settings),))
        finally:
            db.close()  # checkpoints the WAL into the file and removes it

    replace_atomically(path, make, temporary=temporary)


def connect(path: Path, mode: str = "rw", *, immutable: bool = False) -> sqlite3.Connection:
    """A connection to the existing database ``path``: a tournament database (brought up to date)
    or a part of one (a creation killed before its schema was complete). ``mode``: SQLite's URI
    ``mode``, ``rw`` or ``ro`` (an older layout is then migrated in a copy in memory);
    ``immutable``: SQLite's ``immutable=1`` (only when no writer can exist).

    Raises :class:`StoreError` for any other file, and its subclass :class:`Unwritable` when
    SQLite cannot open or write the file in ``mode`` (a read-only file system or folder)."""
    query = {"mode": mode} | ({"immutable": "1"} if immutable else {})
    with failures(path, "open"):
        db = sqlite3.connect(uri(path, query), uri=True)
    try:
        tables = table_names(db)
        if not tables <= OUR_TABLES | FORMER_TABLES:
            others = ", ".join(sorted(tables - OUR_TABLES - FORMER_TABLES))
            raise sqlite3.DatabaseError(f"it holds other tables ({others})")
        if "games" in tables:
            if mode == "ro" and db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                db = in_memory(db)
            migrate(db)
    except SchemaError as error:
        db.close()
        raise StoreError(f"{path} {error}") from None
    except sqlite3.Error as error:
        db.close()
        if cannot_write(error):
            raise Unwritable(describe(path, "open", error)) from None
        if type(error) is sqlite3.DatabaseError and "malformed" not in str(error):
            raise StoreError(f"{path} is not a tournament database: {error}") from None
        raise StoreError(describe(path, "open", error)) from None
    return db
