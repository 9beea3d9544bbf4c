"""Tournament storage: one SQLite database per tournament directory.

``DIR/tournament.db`` holds the tournament's :class:`~tournament.schedule.Settings` (table
``settings``, one JSON row) and every finished game (table ``games``, one row per
:class:`~tournament.record.GameRecord`, committed as soon as the game ends, so an interrupted
tournament loses at most the games in flight). The database is in WAL mode, so
``connectx table DIR`` can read while a run is writing. The columns of ``games`` follow
the fields of the record and its task, and ``PRAGMA user_version`` holds their layout's version
(:mod:`tournament.schema`); an older store is migrated when opened.

Safety: a new database is built under a temporary name and renamed into place, so a run killed
while creating it leaves no half-made store (one left by an older version, without its settings, is
completed when it holds no games, and reported otherwise). A run holds an exclusive lock on
``DIR/tournament.lock`` (``fcntl.flock``) while its store is open, so a second run on the same
directory is refused. Every SQLite or file-system failure -- a read-only directory, a full disk, a
damaged file -- becomes a :class:`StoreError` whose message is one line; a failed write is rolled
back, so the games stored before it stay intact. While a run holds the store, room is kept on the
disk for the games it plays (:mod:`~tournament.store.reserve`): a game that finds the disk full is
still stored, and :meth:`Store.room` tells the run to stop before the next.

Reading a store that cannot be written (a read-only file system or mount, a folder or file without
write permission): :meth:`Store.open` falls back to SQLite's read-only mode (URI ``mode=ro``), which
reads a WAL database when its ``-wal`` and ``-shm`` files are there (a run writing it through another
mount) and needs to create them otherwise; if it cannot, to ``immutable=1`` (no locking, no side
files), used only when no writer can exist: no run holds the directory's lock (checked with a shared
``flock``, held until :meth:`Store.close` so no run starts meanwhile) and no ``-wal`` file holds
frames that ``immutable`` would not read. A store of an older layout is migrated in a copy in memory,
the file left as it is. Such a store is :attr:`Store.read_only`: its write methods raise
:class:`StoreError`. (SQLite: https://www.sqlite.org/uri.html, https://www.sqlite.org/wal.html#readonly)

The package's modules, one job each: :mod:`~tournament.store.database` (the SQLite file: made,
opened, checked), :mod:`~tournament.store.locks` (the directory's locks),
:mod:`~tournament.store.settings` (the settings' JSON, and what a run continues) and
:mod:`~tournament.store.errors` (:class:`StoreError`, in one line); :class:`Store` is here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from tournament.record import GameRecord
from tournament.schedule import Settings
from tournament.schema import COLUMNS, SCHEMA, from_row, to_row
from tournament.store.database import (
    DB_NAME,
    INSERT_SETTINGS,
    OUR_TABLES,
    SIDE_FILES,
    connect,
    new_database,
    stored_settings,
    table_names,
)
from tournament.store.errors import StoreError, Unwritable, describe, failures
from tournament.store.locks import LOCK_NAME, reader_lock, run_lock
from tournament.store.reserve import RESERVE, Reserve, disk_full
from tournament.store.settings import continuation, settings_from_json, settings_to_json

__all__ = [
    "DB_NAME",
    "LOCK_NAME",
    "Store",
    "StoreError",
    "continuation",
    "settings_from_json",
    "settings_to_json",
]


class Store:
    """The games database of one tournament directory.

    :meth:`create` starts or resumes a tournament (and holds the directory's run lock until
    :meth:`close`), :meth:`open` reads an existing one, also where it cannot be written
    (:attr:`read_only`). Use as a context manager (or call
    :meth:`close`). Every method raises :class:`StoreError` (one line) when SQLite or the file system
    fails: a read-only directory, a full disk, a damaged file.
    """

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        lock: int | None = None,
        *,
        read_only: bool = False,
        reader_lock: int | None = None,
        reserve: Reserve | None = None,
    ) -> None:
        self._db = connection
        self.path = path
        self._lock = lock
        self._reserve = reserve  # a run's (create): room kept for its games
        self._reader_lock = reader_lock  # the shared lock an immutable read holds (see open)
        self.read_only = read_only
        """True when the store was opened read-only, its folder or file being unwritable (see
        :meth:`open`): :meth:`add` and :meth:`add_entrants` raise
        :class:`StoreError`."""

    @classmethod
    def create(cls, directory: Path, settings: Settings, *, overwrite: bool = False) -> Store:
        """Open ``directory`` for a run of ``settings``: a new database, or an existing one of the same
        settings (its games are kept, so the run resumes) or of the same settings with fewer
        ``games`` (extended: :func:`continuation`; :meth:`settings` then reads the larger ``games``,
        and the run plays the schedule of :meth:`settings`); ``overwrite`` deletes a stored
        tournament first. Takes the directory's run lock, held until :meth:`close`.

        Raises :class:`StoreError`, touching no stored game, when another run holds the lock, the
        directory holds a tournament with other settings or more ``games`` (unless ``overwrite``;
        see :func:`continuation`), the database is
        damaged (SQLite's ``quick_check``), the directory cannot be created or written, or its disk
        has not the room a run keeps (:mod:`~tournament.store.reserve`). A database
        without its settings row (its creation was killed) is completed when it holds no games and
        refused otherwise.
        """
        directory = Path(directory)
        path = directory / DB_NAME
        with failures(directory, "create the directory"):
            directory.mkdir(parents=True, exist_ok=True)
        lock = run_lock(directory)
        db, reserve = None, None
        try:
            try:
                reserve = Reserve(directory)
            except OSError as error:
                if not disk_full(error):
                    raise StoreError(describe(directory, "keep room for the games in", error)) from None
                raise StoreError(
                    f"cannot start a run in {directory}: the disk is full (less than {RESERVE >> 20} MiB "
                    "free, which a run keeps for the games it plays); free some space and run again"
                ) from None
            with failures(path, "create"):
                if overwrite:
                    for suffix in SIDE_FILES:
                        Path(f"{path}{suffix}").unlink(missing_ok=True)
                if not path.exists():
                    new_database(path, settings)
            db = connect(path)
            with failures(path, "read"):
                problems = [row[0] for row in db.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise sqlite3.DatabaseError(f"database disk image is malformed: {problems[0]}")
            with failures(path, "complete"):
                if not table_names(db) >= OUR_TABLES:  # a creation killed before the schema was complete
                    db.execute("PRAGMA journal_mode=WAL")
                    db.executescript(SCHEMA)
                stored = stored_settings(db)
                if stored is None:
                    if db.execute("SELECT count(*) FROM games").fetchone()[0]:
                        raise StoreError(
                            f"{path} holds games but not the settings that made them; "
                            "start over with --overwrite"
                        )
                    with db:  # a creation killed before its settings row: complete it
                        db.execute(INSERT_SETTINGS, (settings_to_json(settings),))
                else:
                    continued = continuation(settings_from_json(stored), settings, directory)
                    if continued != settings_from_json(stored):
                        with db:
                            row = (settings_to_json(continued),)
                            db.execute("UPDATE settings SET json = ? WHERE id = 1", row)
            return cls(db, path, lock, reserve=reserve)
        except BaseException:
            if db is not None:
                db.close()
            if reserve is not None:
                reserve.close()
            os.close(lock)
            raise

    @classmethod
    def open(cls, directory: Path, *, read_only: bool = False) -> Store:
        """Open the tournament stored in ``directory`` to read it (no run lock: a run may be writing).

        Read-write when the store can be written (an older layout is then migrated in place), else,
        or with ``read_only``, read-only (:attr:`read_only`; see the module docstring: ``mode=ro``,
        then ``immutable=1`` when no writer can exist, holding a shared lock that keeps runs out
        until :meth:`close`; an older layout migrated in memory). A reader that must never change a
        run, such as a page watching it (:mod:`web`), asks for ``read_only``: it writes nothing but
        SQLite's side files, which a run's own connection uses too, and takes no lock while a run
        writes.

        Raises :class:`StoreError` (one line) if there is none, it is not a tournament database, it
        lacks its settings (a creation that was killed: run the tournament again to complete it), or
        it cannot be written and cannot be read safely either (a run holds the directory while the
        side files SQLite needs are missing).
        """
        path = Path(directory) / DB_NAME
        if not path.is_file():
            raise StoreError(f"no tournament in {directory} (expected {path})")
        lock, db = None, None
        read_only = read_only or not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
        if not read_only:
            try:
                db = connect(path)
            except Unwritable:
                read_only = True
        if db is None:
            try:
                db = connect(path, mode="ro")
            except Unwritable:
                lock = reader_lock(path)
                try:
                    db = connect(path, mode="ro", immutable=True)
                except BaseException:
                    if lock is not None:
                        os.close(lock)
                    raise
        store = cls(db, path, read_only=read_only, reader_lock=lock)
        try:
            with failures(path, "read"):
                if stored_settings(db) is None:
                    raise StoreError(
                        f"{path} has no settings: its creation was interrupted; run the tournament "
                        "again to complete it"
                    )
        except BaseException:
            store.close()
            raise
        return store

    def settings(self) -> Settings:
        """The stored :class:`Settings`."""
        with failures(self.path, "read"):
            row = self._db.execute("SELECT json FROM settings WHERE id = 1").fetchone()
        return settings_from_json(row[0])

    def add_entrants(self, names: Sequence[str]) -> Settings:
        """Append to the stored entrants each of ``names`` not among them yet, in order, and return the
        settings now stored (the same when none is new).

        For a store whose games are added as they come, not played from its schedule: imported Kaggle
        episodes (:mod:`tournament.episodes`) meet new agents as the store grows. Call it on a store
        from :meth:`create` (whose run lock it holds). Raises :class:`StoreError` on a store opened to
        read, or when the write fails.
        """
        if self._lock is None:
            raise StoreError(f"{self.path} is open to read only; its entrants cannot change")
        settings = self.settings()
        new = tuple(dict.fromkeys(name for name in names if name not in settings.entrants))
        if not new:
            return settings
        settings = dataclasses.replace(settings, entrants=settings.entrants + new)
        with failures(self.path, "write the entrants of"), self._db:
            self._db.execute("UPDATE settings SET json = ? WHERE id = 1", (settings_to_json(settings),))
        return settings

    def add(self, record: GameRecord) -> None:
        """Store one finished game (committed at once, or not at all). A run's store that finds the
        disk full gives up its reserve and writes again (:mod:`~tournament.store.reserve`; the run
        should then stop: :meth:`room`). Raises :class:`StoreError` if a game with the same id is
        already stored, or the write fails (e.g. a full disk, with no reserve left)."""
        self._writable(f"store game {record.game_id} in")
        row = to_row(record)
        names = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        while True:
            try:
                with self._db:
                    self._db.execute(f"INSERT INTO games ({names}) VALUES ({marks})", row)
                return
            except sqlite3.IntegrityError:
                raise StoreError(f"game {record.game_id} is already stored in {self.path}") from None
            except (sqlite3.Error, OSError) as error:
                if self._db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.rollback()
                if not (disk_full(error) and self._reserve is not None and self._reserve.release()):
                    raise StoreError(describe(self.path, f"store game {record.game_id} in", error)) from None

    def room(self) -> bool:
        """Whether a run may play its next game: its store still keeps its room on the disk, and the
        disk has a little more (:meth:`~tournament.store.reserve.Reserve.room`). Always True for a
        store opened to read."""
        return self._reserve is None or self._reserve.room()

    def free_mib(self) -> int:
        """MiB free on the store's disk for this process."""
        stats = os.statvfs(self.path.parent)
        return stats.f_bavail * stats.f_frsize >> 20

    def game_ids(self) -> set[int]:
        """Ids of the stored games."""
        with failures(self.path, "read"):
            return {row[0] for row in self._db.execute("SELECT game_id FROM games")}

    def records(self) -> list[GameRecord]:
        """Every stored game, by game id."""
        with failures(self.path, "read"):
            cursor = self._db.execute(f"SELECT {', '.join(COLUMNS)} FROM games ORDER BY game_id")
            rows = [dict(zip(COLUMNS, values, strict=True)) for values in cursor]
        return [from_row(row) for row in rows]

    def _writable(self, doing: str) -> None:
        """Raise :class:`StoreError` (one line: cannot ``doing`` the store) when it is :attr:`read_only`
        (a store migrated in memory would otherwise take the write and lose it)."""
        if self.read_only:
            raise StoreError(
                f"cannot {doing} {self.path}: it is open read-only, its folder cannot be written here"
            )

    def close(self) -> None:
        """Close the database and release the run lock (if :meth:`create` took it) or the shared lock
        of a read-only :meth:`open`."""
        self._db.close()
        if self._reserve is not None:
            self._reserve.close()
        for name in ("_lock", "_reader_lock"):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
