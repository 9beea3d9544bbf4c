"""Tournament storage: one SQLite database per tournament directory.

``DIR/tournament.db`` holds the tournament's :class:`~tournament.schedule.Settings` (table
``settings``, one JSON row) and every finished game (table ``games``, one row per
:class:`~tournament.record.GameRecord`, committed as soon as the game ends, so an interrupted
tournament loses at most the games in flight). The database is in WAL mode, so
``python -m tournament table DIR`` can read while a run is writing.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

from tournament.record import GameRecord, Termination
from tournament.schedule import Settings

DB_NAME = "tournament.db"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id INTEGER PRIMARY KEY,
    pair_id INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    rows INTEGER NOT NULL,
    columns INTEGER NOT NULL,
    inarow INTEGER NOT NULL,
    act_timeout REAL NOT NULL,
    seed INTEGER NOT NULL,
    moves TEXT NOT NULL,          -- JSON list of 0-based columns
    move_times TEXT NOT NULL,     -- JSON list of seconds per agent call
    result REAL NOT NULL,         -- score of `first`: 1, 0.5, 0
    termination TEXT NOT NULL,    -- win, draw, invalid, timeout, error
    offender INTEGER,             -- mark that forfeited, or NULL
    statuses TEXT NOT NULL,       -- JSON [first, second] kaggle statuses
    rewards TEXT NOT NULL,        -- JSON [first, second] kaggle rewards (null for a forfeit)
    detail TEXT NOT NULL,
    duration REAL NOT NULL,       -- seconds
    started_at TEXT NOT NULL,     -- ISO 8601, UTC
    opening TEXT NOT NULL DEFAULT '[]'  -- JSON list of 0-based columns the referee played first
);
"""

_JSON_FIELDS = ("moves", "move_times", "statuses", "rewards", "opening")


class StoreError(RuntimeError):
    """A tournament directory that cannot be used as asked (see the message)."""


def settings_to_json(settings: Settings) -> str:
    return json.dumps(dataclasses.asdict(settings), sort_keys=True)


def settings_from_json(text: str) -> Settings:
    """Settings from their JSON; fields a tournament stored before they existed take their defaults."""
    data = json.loads(text)
    data["entrants"] = tuple(data["entrants"])
    data["openings"] = tuple(tuple(opening) for opening in data.get("openings", ()))
    if data.get("sprt") is not None:
        data["sprt"] = tuple(data["sprt"])
    return Settings(**data)


class Store:
    """The games database of one tournament directory.

    :meth:`create` starts or resumes a tournament, :meth:`open` reads an existing one. Use as a
    context manager (or call :meth:`close`).
    """

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def create(cls, directory: Path, settings: Settings) -> Store:
        """Open ``directory`` for ``settings``: a new database, or an existing one of the same settings
        (its games are kept, so the run resumes). Raises :class:`StoreError`, touching nothing, when
        the directory holds a tournament with other settings."""
        path = Path(directory) / DB_NAME
        if path.exists():
            store = cls.open(directory)
            if store.settings() != settings:
                store.close()
                raise StoreError(
                    f"{directory} holds a different tournament; choose another --out or pass --overwrite"
                )
            return store
        Path(directory).mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA)
        with db:
            db.execute("INSERT INTO settings (id, json) VALUES (1, ?)", (settings_to_json(settings),))
        return cls(db, path)

    @classmethod
    def open(cls, directory: Path) -> Store:
        """Open the tournament stored in ``directory``; :class:`StoreError` if there is none."""
        path = Path(directory) / DB_NAME
        if not path.is_file():
            raise StoreError(f"no tournament in {directory} (expected {path})")
        try:
            db = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
            db.execute("SELECT json FROM settings").fetchone()
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            if "opening" not in columns:  # a tournament stored before openings existed
                with db:
                    db.execute("ALTER TABLE games ADD COLUMN opening TEXT NOT NULL DEFAULT '[]'")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path} is not a tournament database: {error}") from None
        return cls(db, path)

    def settings(self) -> Settings:
        return settings_from_json(self._db.execute("SELECT json FROM settings WHERE id = 1").fetchone()[0])

    def add(self, record: GameRecord) -> None:
        """Store one finished game (committed at once). Raises ``sqlite3.IntegrityError`` if a game
        with the same id is already stored."""
        row = dataclasses.asdict(record)
        for name in _JSON_FIELDS:
            row[name] = json.dumps(list(row[name]))
        row["termination"] = str(record.termination)
        names = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        with self._db:
            self._db.execute(f"INSERT INTO games ({names}) VALUES ({marks})", row)

    def game_ids(self) -> set[int]:
        return {row[0] for row in self._db.execute("SELECT game_id FROM games")}

    def records(self) -> list[GameRecord]:
        """Every stored game, by game id."""
        cursor = self._db.execute("SELECT * FROM games ORDER BY game_id")
        names = [column[0] for column in cursor.description]
        records = []
        for values in cursor:
            row = dict(zip(names, values, strict=True))
            for name in _JSON_FIELDS:
                row[name] = tuple(json.loads(row[name]))
            row["termination"] = Termination(row["termination"])
            records.append(GameRecord(**row))
        return records

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
