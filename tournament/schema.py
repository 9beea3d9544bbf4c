"""The layout of a tournament database: its tables, derived from the record's dataclasses, a game's
row, and the migration of older layouts.

Table ``games`` has one column per field of :class:`~tournament.schedule.GameTask`, then one per
other field of :class:`~tournament.record.GameRecord` (:data:`COLUMNS`); tuples are stored as JSON
lists, the termination and the statuses as their values (:class:`~tournament.record.Termination`,
:class:`~tournament.record.Status`). SQLite's ``PRAGMA user_version`` holds the layout's
:data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from typing import Any

from tournament.record import GameRecord, Status, Termination
from tournament.schedule import GameTask

__all__ = ["COLUMNS", "SCHEMA", "SCHEMA_VERSION", "SchemaError", "from_row", "migrate", "to_row"]

SCHEMA_VERSION = 1
"""The layout this code writes. Version 0 is the unversioned layout written before: it lacks
``hang_limit`` (and, older still, ``opening``); :func:`migrate` brings it up to date."""


class SchemaError(Exception):
    """A database whose layout this code cannot read (the message completes ``"<path> ..."``)."""


def _declaration(annotation: str) -> str:
    """The SQL type of a dataclass field from its annotation; a tuple is stored as a JSON list.

    Raises KeyError for a type the table cannot hold, so a new field of an unknown type fails at
    import rather than being stored wrongly.
    """
    if annotation.startswith("tuple["):
        return "TEXT NOT NULL"
    base, none, _ = annotation.partition(" | None")
    sql = {"int": "INTEGER", "float": "REAL", "str": "TEXT", "Termination": "TEXT"}[base]
    return sql if none else f"{sql} NOT NULL"


_TASK_FIELDS = tuple(field.name for field in dataclasses.fields(GameTask))
_FIELDS = [
    *dataclasses.fields(GameTask),
    *(field for field in dataclasses.fields(GameRecord) if field.name != "task"),
]
COLUMNS = {
    field.name: "INTEGER PRIMARY KEY" if field.name == "game_id" else _declaration(str(field.type))
    for field in _FIELDS
}
"""Every column of ``games`` with its SQL declaration, in table order."""
_JSON_FIELDS = tuple(field.name for field in _FIELDS if str(field.type).startswith("tuple["))

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS games (\n    "
    + ",\n    ".join(f"{name} {declaration}" for name, declaration in COLUMNS.items())
    + "\n);\n"
    f"PRAGMA user_version = {SCHEMA_VERSION};\n"
)
"""The statements that create a tournament database (``settings`` holds one JSON row)."""


def to_row(record: GameRecord) -> dict[str, Any]:
    """The ``games`` row of ``record``, by column name."""
    row = {name: getattr(record.task, name) for name in _TASK_FIELDS}
    row |= {name: getattr(record, name) for name in COLUMNS if name not in row}
    for name in _JSON_FIELDS:
        row[name] = json.dumps(list(row[name]))
    row["termination"] = str(record.termination)
    return row


def from_row(row: dict[str, Any]) -> GameRecord:
    """The record of a ``games`` row (by column name, every column of :data:`COLUMNS`)."""
    row = dict(row)
    for name in _JSON_FIELDS:
        row[name] = tuple(json.loads(row[name]))
    row["termination"] = Termination(row["termination"])
    first, second = row["statuses"]
    row["statuses"] = (Status(first), Status(second))
    task = GameTask(**{name: row.pop(name) for name in _TASK_FIELDS})
    return GameRecord(task=task, **row)


def migrate(db: sqlite3.Connection) -> None:
    """Bring the ``games`` table of ``db`` to :data:`SCHEMA_VERSION`, in one transaction.

    Version 0 gains ``opening`` (``[]``: those tournaments had no openings) if it lacks it, and
    ``hang_limit`` (the tournament's own, from its settings: every game of a tournament had it).
    Raises :class:`SchemaError` for a newer version, or a table whose columns are not
    :data:`COLUMNS` after migrating; sqlite3 errors as they come (nothing is changed then).
    """
    db.execute("BEGIN IMMEDIATE")  # one process migrates; another then sees the new version
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"was written by a newer toolkit (store schema {version}, this one reads up to "
                f"{SCHEMA_VERSION}); upgrade the toolkit to read it"
            )
        if version == 0:
            columns = _columns(db)
            if "opening" not in columns:
                db.execute("ALTER TABLE games ADD COLUMN opening TEXT NOT NULL DEFAULT '[]'")
            if "hang_limit" not in columns:
                tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                query = "SELECT json FROM settings WHERE id = 1"
                settings = db.execute(query).fetchone() if "settings" in tables else None
                hang_limit = json.loads(settings[0]).get("hang_limit") if settings else None
                db.execute("ALTER TABLE games ADD COLUMN hang_limit REAL")
                db.execute("UPDATE games SET hang_limit = ?", (hang_limit,))
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if sorted(_columns(db)) != sorted(COLUMNS):
            raise SchemaError(
                f"does not hold the games table of store schema {SCHEMA_VERSION}; "
                "start over with --overwrite (its games are lost then)"
            )
        db.commit()
    except BaseException:
        db.rollback()
        raise


def _columns(db: sqlite3.Connection) -> list[str]:
    return [row[1] for row in db.execute("PRAGMA table_info(games)")]
