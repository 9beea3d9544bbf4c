"""Tournament storage: one SQLite database per tournament directory.

``DIR/tournament.db`` holds the tournament's :class:`~tournament.schedule.Settings` (table
``settings``, one JSON row) and every finished game (table ``games``, one row per
:class:`~tournament.record.GameRecord`, committed as soon as the game ends, so an interrupted
tournament loses at most the games in flight). Move analysis adds table ``solved``, its cache of
solved positions (:meth:`Store.solved`). The database is in WAL mode, so
``connectx table DIR`` can read while a run is writing. The columns of ``games`` follow
the fields of the record and its task, and ``PRAGMA user_version`` holds their layout's version
(:mod:`tournament.schema`); an older store is migrated when opened.

Safety: a new database is built under a temporary name and renamed into place, so a run killed
while creating it leaves no half-made store (one left by an older version, without its settings, is
completed when it holds no games, and reported otherwise). A run holds an exclusive lock on
``DIR/tournament.lock`` (``fcntl.flock``) while its store is open, so a second run on the same
directory is refused. Every SQLite or file-system failure -- a read-only directory, a full disk, a
damaged file -- becomes a :class:`StoreError` whose message is one line; a failed write is rolled
back, so the games stored before it stay intact.

Reading a store that cannot be written (a read-only file system or mount, a folder or file without
write permission): :meth:`Store.open` falls back to SQLite's read-only mode (URI ``mode=ro``), which
reads a WAL database when its ``-wal`` and ``-shm`` files are there (a run writing it through another
mount) and needs to create them otherwise; if it cannot, to ``immutable=1`` (no locking, no side
files), used only when no writer can exist: no run holds the directory's lock (checked with a shared
``flock``, held until :meth:`Store.close` so no run starts meanwhile) and no ``-wal`` file holds
frames that ``immutable`` would not read. A store of an older layout is migrated in a copy in memory,
the file left as it is. Such a store is :attr:`Store.read_only`: its write methods raise
:class:`StoreError`. (SQLite: https://www.sqlite.org/uri.html, https://www.sqlite.org/wal.html#readonly)
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlencode

from tournament.record import GameRecord
from tournament.schedule import Settings
from tournament.schema import COLUMNS, SCHEMA, SCHEMA_VERSION, SchemaError, from_row, migrate, to_row

DB_NAME = "tournament.db"
LOCK_NAME = "tournament.lock"
_NEW_SUFFIX = ".new"
"""A database being created is ``tournament.db.new`` until it is complete."""
_SIDE_FILES = ("", "-wal", "-shm", "-journal")

_OUR_TABLES = {"settings", "games"}
SOLVED_TABLE = "solved"
"""The cache of move analysis (:meth:`Store.solved`): made by the first analysis, not by a run."""
_SOLVED_SCHEMA = f"CREATE TABLE IF NOT EXISTS {SOLVED_TABLE} (key INTEGER PRIMARY KEY, scores TEXT NOT NULL)"


class StoreError(RuntimeError):
    """A tournament directory that cannot be used as asked (see the message, one line)."""


class _Unwritable(StoreError):
    """SQLite could not open or write the database in the mode asked (a read-only file system or
    folder): :meth:`Store.open` then tries a read-only mode."""


def _describe(path: Path, doing: str, error: BaseException) -> str:
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


def _cannot_write(error: sqlite3.Error) -> bool:
    """SQLite failed for want of writing: it could not open or create a file (the database's ``-wal``
    or ``-shm`` in a read-only folder: ``SQLITE_CANTOPEN``), or could not write one (``SQLITE_READONLY``
    and its extended codes)."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY"))


def _uri(path: Path, query: dict[str, str]) -> str:
    """SQLite's URI of the file ``path`` with the parameters ``query`` (``mode``, ``immutable``); the
    path is percent-encoded, so a folder named ``a?b#c`` is that folder."""
    return f"{Path(os.path.abspath(path)).as_uri()}?{urlencode(query)}"


def _in_memory(db: sqlite3.Connection) -> sqlite3.Connection:
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


def _reader_lock(path: Path) -> int | None:
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
    with _failures(lock_path, "read"):
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    holder = _flock_or_holder(fd, fcntl.LOCK_SH)
    if holder is not None:
        raise StoreError(
            f"{directory} is being written by a run (process {holder}) and cannot be read safely while it "
            "runs, since it cannot be written here; wait for the run to end"
        ) from None
    return fd


def _flock_or_holder(fd: int, mode: int) -> str | None:
    """Take the lock ``mode`` (``fcntl.LOCK_SH`` or ``LOCK_EX``) on the lock file ``fd`` without
    waiting; None when taken, else the pid its holder wrote in it (``"?"`` if none), ``fd`` closed."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        return holder
    return None


@contextlib.contextmanager
def _failures(path: Path, doing: str) -> Iterator[None]:
    """Turn SQLite and OS errors inside the block into a :class:`StoreError` (see :func:`_describe`)."""
    try:
        yield
    except (sqlite3.Error, OSError) as error:
        raise StoreError(_describe(path, doing, error)) from None


def _lock(directory: Path) -> int:
    """Take the run lock of ``directory``; returns its file descriptor (closing it releases the lock).

    Raises :class:`StoreError` when another run holds it, or the directory cannot be written.
    """
    path = directory / LOCK_NAME
    with _failures(path, "create the lock file"):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    holder = _flock_or_holder(fd, fcntl.LOCK_EX)
    if holder is not None:
        raise StoreError(
            f"{directory} is in use by another run (process {holder}); "
            "wait for it to end or choose another --out"
        ) from None
    try:
        with _failures(path, "write"):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)  # for the message a second run prints
    except StoreError:
        os.close(fd)
        raise
    return fd


_INSERT_SETTINGS = "INSERT INTO settings (id, json) VALUES (1, ?)"


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _stored_settings(db: sqlite3.Connection) -> str | None:
    """The settings JSON of a tournament database, or None if it has none (tables or row missing)."""
    if "settings" not in _tables(db):
        return None
    row = db.execute("SELECT json FROM settings WHERE id = 1").fetchone()
    return None if row is None else row[0]


def _new_database(path: Path, settings: Settings) -> None:
    """Create the database ``path`` holding ``settings`` and no games, atomically: it is written as
    ``path.new`` and renamed into place once complete. Call with the run lock held."""
    temporary = path.with_name(path.name + _NEW_SUFFIX)
    for suffix in _SIDE_FILES:  # what a creation killed half-way left behind
        Path(f"{temporary}{suffix}").unlink(missing_ok=True)
    db = sqlite3.connect(temporary)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        with db:
            db.execute(_INSERT_SETTINGS, (settings_to_json(settings),))
    finally:
        db.close()  # checkpoints the WAL into the file and removes it
    os.replace(temporary, path)


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


def continuation(stored: Settings, asked: Settings, directory: Path) -> Settings:
    """The settings a run of ``asked`` continues in ``directory``, which holds ``stored``.

    Equal settings resume. Settings that differ only in a larger ``games`` extend the tournament:
    the schedule is prefix-stable (:func:`tournament.schedule.schedule`), so the games already
    played keep their ids, seeds and openings and only the new ones are played. The stored openings
    are kept when ``asked`` has them as its start (random openings are drawn as many as the pairs a
    pairing plays, so a larger ``games`` draws more: later pairs cycle through the stored ones).

    Raises :class:`StoreError` for other differences (a different tournament) and for a smaller
    ``games``: its schedule would leave games already played out of the tournament the settings
    describe, and ``table`` already reports a tournament as far as it was played.
    """
    if asked == stored:
        return stored
    openings = stored.openings if asked.openings[: len(stored.openings)] == stored.openings else None
    if dataclasses.replace(asked, games=stored.games, openings=openings or asked.openings) != stored:
        raise StoreError(
            f"{directory} holds a different tournament; choose another --out or pass --overwrite"
        )
    if asked.games < stored.games:
        raise StoreError(
            f"{directory} holds this tournament with {stored.games} game pairs a pairing, more than the "
            f"{asked.games} asked; ask for {stored.games} or more to resume or extend it"
        )
    return dataclasses.replace(stored, games=asked.games)


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
    ) -> None:
        self._db = connection
        self.path = path
        self._lock = lock
        self._reader_lock = reader_lock  # the shared lock an immutable read holds (see open)
        self.read_only = read_only
        """True when the store was opened read-only, its folder or file being unwritable (see
        :meth:`open`): :meth:`add`, :meth:`add_solved` and :meth:`add_entrants` raise
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
        damaged (SQLite's ``quick_check``), or the directory cannot be created or written. A database
        without its settings row (its creation was killed) is completed when it holds no games and
        refused otherwise.
        """
        directory = Path(directory)
        path = directory / DB_NAME
        with _failures(directory, "create the directory"):
            directory.mkdir(parents=True, exist_ok=True)
        lock = _lock(directory)
        db = None
        try:
            with _failures(path, "create"):
                if overwrite:
                    for suffix in _SIDE_FILES:
                        Path(f"{path}{suffix}").unlink(missing_ok=True)
                if not path.exists():
                    _new_database(path, settings)
            db = cls._connect(path)
            with _failures(path, "read"):
                problems = [row[0] for row in db.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise sqlite3.DatabaseError(f"database disk image is malformed: {problems[0]}")
            with _failures(path, "complete"):
                if not _tables(db) >= _OUR_TABLES:  # a creation killed before the schema was complete
                    db.execute("PRAGMA journal_mode=WAL")
                    db.executescript(SCHEMA)
                stored = _stored_settings(db)
                if stored is None:
                    if db.execute("SELECT count(*) FROM games").fetchone()[0]:
                        raise StoreError(
                            f"{path} holds games but not the settings that made them; "
                            "start over with --overwrite"
                        )
                    with db:  # a creation killed before its settings row: complete it
                        db.execute(_INSERT_SETTINGS, (settings_to_json(settings),))
                else:
                    continued = continuation(settings_from_json(stored), settings, directory)
                    if continued != settings_from_json(stored):
                        with db:
                            row = (settings_to_json(continued),)
                            db.execute("UPDATE settings SET json = ? WHERE id = 1", row)
            return cls(db, path, lock)
        except BaseException:
            if db is not None:
                db.close()
            os.close(lock)
            raise

    @classmethod
    def open(cls, directory: Path) -> Store:
        """Open the tournament stored in ``directory`` to read it (no run lock: a run may be writing).

        Read-write when the store can be written (an older layout is then migrated in place), else
        read-only (:attr:`read_only`; see the module docstring: ``mode=ro``, then ``immutable=1``
        when no writer can exist, holding a shared lock that keeps runs out until :meth:`close`; an
        older layout migrated in memory).

        Raises :class:`StoreError` (one line) if there is none, it is not a tournament database, it
        lacks its settings (a creation that was killed: run the tournament again to complete it), or
        it cannot be written and cannot be read safely either (a run holds the directory while the
        side files SQLite needs are missing).
        """
        path = Path(directory) / DB_NAME
        if not path.is_file():
            raise StoreError(f"no tournament in {directory} (expected {path})")
        lock, db = None, None
        read_only = not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
        if not read_only:
            try:
                db = cls._connect(path)
            except _Unwritable:
                read_only = True
        if db is None:
            try:
                db = cls._connect(path, mode="ro")
            except _Unwritable:
                lock = _reader_lock(path)
                try:
                    db = cls._connect(path, mode="ro", immutable=True)
                except BaseException:
                    if lock is not None:
                        os.close(lock)
                    raise
        store = cls(db, path, read_only=read_only, reader_lock=lock)
        try:
            with _failures(path, "read"):
                if _stored_settings(db) is None:
                    raise StoreError(
                        f"{path} has no settings: its creation was interrupted; run the tournament "
                        "again to complete it"
                    )
        except BaseException:
            store.close()
            raise
        return store

    @staticmethod
    def _connect(path: Path, mode: str = "rw", *, immutable: bool = False) -> sqlite3.Connection:
        """A connection to the existing database ``path``: a tournament database (brought up to date)
        or a part of one (a creation killed before its schema was complete). ``mode``: SQLite's URI
        ``mode``, ``rw`` or ``ro`` (an older layout is then migrated in a copy in memory);
        ``immutable``: SQLite's ``immutable=1`` (only when no writer can exist).

        Raises :class:`StoreError` for any other file, and its subclass :class:`_Unwritable` when
        SQLite cannot open or write the file in ``mode`` (a read-only file system or folder)."""
        query = {"mode": mode} | ({"immutable": "1"} if immutable else {})
        with _failures(path, "open"):
            db = sqlite3.connect(_uri(path, query), uri=True)
        try:
            tables = _tables(db)
            if not tables <= _OUR_TABLES | {SOLVED_TABLE}:
                others = ", ".join(sorted(tables - _OUR_TABLES - {SOLVED_TABLE}))
                raise sqlite3.DatabaseError(f"it holds other tables ({others})")
            if "games" in tables:
                if mode == "ro" and db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                    db = _in_memory(db)
                migrate(db)
        except SchemaError as error:
            db.close()
            raise StoreError(f"{path} {error}") from None
        except sqlite3.Error as error:
            db.close()
            if _cannot_write(error):
                raise _Unwritable(_describe(path, "open", error)) from None
            if type(error) is sqlite3.DatabaseError and "malformed" not in str(error):
                raise StoreError(f"{path} is not a tournament database: {error}") from None
            raise StoreError(_describe(path, "open", error)) from None
        return db

    def settings(self) -> Settings:
        """The stored :class:`Settings`."""
        with _failures(self.path, "read"):
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
        with _failures(self.path, "write the entrants of"), self._db:
            self._db.execute("UPDATE settings SET json = ? WHERE id = 1", (settings_to_json(settings),))
        return settings

    def add(self, record: GameRecord) -> None:
        """Store one finished game (committed at once, or not at all). Raises :class:`StoreError` if a
        game with the same id is already stored, or the write fails (e.g. a full disk)."""
        self._writable(f"store game {record.game_id} in")
        row = to_row(record)
        names = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        try:
            with self._db:
                self._db.execute(f"INSERT INTO games ({names}) VALUES ({marks})", row)
        except sqlite3.IntegrityError:
            raise StoreError(f"game {record.game_id} is already stored in {self.path}") from None
        except (sqlite3.Error, OSError) as error:
            raise StoreError(_describe(self.path, f"store game {record.game_id} in", error)) from None

    def game_ids(self) -> set[int]:
        """Ids of the stored games."""
        with _failures(self.path, "read"):
            return {row[0] for row in self._db.execute("SELECT game_id FROM games")}

    def records(self) -> list[GameRecord]:
        """Every stored game, by game id."""
        with _failures(self.path, "read"):
            cursor = self._db.execute(f"SELECT {', '.join(COLUMNS)} FROM games ORDER BY game_id")
            rows = [dict(zip(COLUMNS, values, strict=True)) for values in cursor]
        return [from_row(row) for row in rows]

    def solved(self) -> dict[int, tuple[int | None, ...]]:
        """The positions that move analysis solved (:mod:`reports.stats.judging`): a position's key
        -> the score of each of its columns (None for a full one). Empty before the first analysis."""
        with _failures(self.path, "read"):
            if SOLVED_TABLE not in _tables(self._db):
                return {}
            rows = self._db.execute(f"SELECT key, scores FROM {SOLVED_TABLE}").fetchall()
        return {key: tuple(json.loads(scores)) for key, scores in rows}

    def add_solved(self, solved: dict[int, tuple[int | None, ...]]) -> None:
        """Add positions to the cache that :meth:`solved` reads (a key already there is kept), in one
        transaction. Raises :class:`StoreError` when the write fails (e.g. a read-only directory);
        the games are never touched."""
        self._writable("cache solved positions in")
        rows = [(key, json.dumps(list(scores))) for key, scores in solved.items()]
        with _failures(self.path, "cache solved positions in"), self._db:
            self._db.execute(_SOLVED_SCHEMA)
            self._db.executemany(f"INSERT OR IGNORE INTO {SOLVED_TABLE} VALUES (?, ?)", rows)

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
        for name in ("_lock", "_reader_lock"):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
