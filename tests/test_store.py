"""SQLite storage keeps every record exactly, and refuses to mix tournaments."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.records import game_task
from tournament.record import GameRecord, Termination
from tournament.schedule import Settings, schedule
from tournament.schema import SCHEMA_VERSION
from tournament.store import DB_NAME, Store, StoreError

SETTINGS = Settings(entrants=("random", "leftmost", "minimax:depth=2"), games=2)


def record(game_id: int, **changes) -> GameRecord:
    task = game_task(game_id=game_id, pair_id=game_id // 2, first="random", second="leftmost", seed=9)
    fields = dict(
        moves=(3, 3, 4),
        move_times=(0.1, 0.2, 0.3, 0.01),
        result=0.0,
        termination=Termination.INVALID,
        offender=1,
        statuses=("INVALID", "DONE"),
        rewards=(None, 0),
        detail="mark 1 returned '3' (builtins.str)",
        duration=1.5,
        started_at="2026-11-21T23:00:00+00:00",
    )
    fields.update(changes)
    return GameRecord(task=task, **fields)


def test_records_round_trip(tmp_path):
    games = [record(0), record(1, result=0.5, termination=Termination.DRAW, offender=None, rewards=(0, 0))]
    with Store.create(tmp_path, SETTINGS) as store:
        for game in games:
            store.add(game)
    with Store.open(tmp_path) as store:
        assert store.records() == games
        assert store.settings() == SETTINGS
        assert store.game_ids() == {0, 1}


def test_same_settings_resume_and_other_settings_are_refused(tmp_path):
    with Store.create(tmp_path, SETTINGS) as store:
        store.add(record(0))
    with Store.create(tmp_path, SETTINGS) as store:
        assert store.game_ids() == {0}
    other = Settings(entrants=("random", "leftmost"), games=2)
    with pytest.raises(StoreError, match="different tournament"):
        Store.create(tmp_path, other)
    with Store.open(tmp_path) as store:
        assert store.records() == [record(0)]


def test_open_refuses_a_directory_without_a_tournament(tmp_path):
    with pytest.raises(StoreError, match="no tournament"):
        Store.open(tmp_path)
    (tmp_path / "tournament.db").write_text("not sqlite")
    with pytest.raises(StoreError, match="not a tournament database"):
        Store.open(tmp_path)


def test_record_rejects_inconsistent_fields():
    with pytest.raises(ValueError):
        record(0, offender=None)
    with pytest.raises(ValueError):
        record(0, result=0.25)


def test_schedule_pairs_every_pairing_with_colours_swapped():
    tasks = schedule(SETTINGS)
    assert len(tasks) == 3 * 2 * 2
    assert [t.game_id for t in tasks] == list(range(12))
    for a, b in zip(tasks[::2], tasks[1::2], strict=True):
        assert (a.first, a.second) == (b.second, b.first)
        assert a.pair_id == b.pair_id and a.seed == b.seed
    assert len({t.seed for t in tasks}) == 6
    played = {frozenset((t.first, t.second)) for t in tasks}
    assert len(played) == 3


def test_gauntlet_plays_only_the_first_entrant():
    tasks = schedule(Settings(entrants=("negamax", "random", "leftmost"), games=1, gauntlet=True))
    assert len(tasks) == 4 and all("negamax" in (t.first, t.second) for t in tasks)


# The games table as the unversioned code (store schema 0) wrote it: a fixture of the old format.
_V0_GAMES = """CREATE TABLE games (
    game_id INTEGER PRIMARY KEY, pair_id INTEGER NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
    rows INTEGER NOT NULL, columns INTEGER NOT NULL, inarow INTEGER NOT NULL, act_timeout REAL NOT NULL,
    seed INTEGER NOT NULL, moves TEXT NOT NULL, move_times TEXT NOT NULL, result REAL NOT NULL,
    termination TEXT NOT NULL, offender INTEGER, statuses TEXT NOT NULL, rewards TEXT NOT NULL,
    detail TEXT NOT NULL, duration REAL NOT NULL, started_at TEXT NOT NULL{opening}
)"""


def _v0_store(directory, settings, *, opening_column=True):
    """A store as the unversioned code wrote it, holding game 0 of :func:`record` (opening (3,))."""
    db = sqlite3.connect(directory / DB_NAME)
    db.execute("CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)")
    db.execute(_V0_GAMES.format(opening=", opening TEXT NOT NULL DEFAULT '[]'" if opening_column else ""))
    db.execute("INSERT INTO settings VALUES (1, ?)", (json.dumps(dataclasses.asdict(settings)),))
    names = "game_id, pair_id, first, second, rows, columns, inarow, act_timeout, seed, moves, move_times, "
    names += "result, termination, offender, statuses, rewards, detail, duration, started_at"
    values = [0, 0, "random", "leftmost", 6, 7, 4, 2.0, 9, "[3, 3, 4]", "[0.1, 0.2, 0.3, 0.01]", 0.0,
              "invalid", 1, '["INVALID", "DONE"]', "[null, 0]", "mark 1 returned '3' (builtins.str)", 1.5,
              "2026-11-21T23:00:00+00:00"]  # fmt: skip
    if opening_column:
        names, values = names + ", opening", [*values, "[3]"]
    db.execute(f"INSERT INTO games ({names}) VALUES ({', '.join('?' * len(values))})", values)
    db.commit()
    db.close()


def _version(directory) -> int:
    with sqlite3.connect(directory / DB_NAME) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def test_a_new_store_records_its_schema_version(tmp_path):
    Store.create(tmp_path, SETTINGS).close()
    assert _version(tmp_path) == SCHEMA_VERSION


@pytest.mark.parametrize("opening_column", [True, False])
def test_an_unversioned_store_is_migrated_and_keeps_its_games(tmp_path, opening_column):
    settings = dataclasses.replace(SETTINGS, hang_limit=4.0)
    _v0_store(tmp_path, settings, opening_column=opening_column)
    with Store.open(tmp_path) as store:
        (game,) = store.records()
    assert _version(tmp_path) == SCHEMA_VERSION
    task = dataclasses.replace(record(0).task, hang_limit=4.0, opening=(3,) if opening_column else ())
    assert game == dataclasses.replace(record(0), task=task)
    with Store.create(tmp_path, settings) as store:  # and a run resumes it
        store.add(dataclasses.replace(record(1), task=dataclasses.replace(record(1).task, hang_limit=4.0)))
        assert store.game_ids() == {0, 1}


def test_a_store_of_a_newer_schema_is_refused_in_one_line(tmp_path):
    Store.create(tmp_path, SETTINGS).close()
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer toolkit") as error:
        Store.open(tmp_path)
    assert "\n" not in str(error.value)


def test_the_schedule_is_prefix_stable_in_games():
    settings = Settings(entrants=("random", "leftmost", "middle"), games=3, openings=((3,), (2,), (4,), (1,)))
    short, long = schedule(settings), schedule(dataclasses.replace(settings, games=7))
    assert long[: len(short)] == short
    assert len(long) == 7 * 3 * 2
    assert {task.opening for task in long} == set(settings.openings)  # past the short ones: every opening


def test_more_games_extend_a_stored_tournament(tmp_path):
    with Store.create(tmp_path, SETTINGS) as store:
        store.add(record(0))
    bigger = dataclasses.replace(SETTINGS, games=5)
    with Store.create(tmp_path, bigger) as store:
        assert store.settings() == bigger
        assert store.game_ids() == {0}
    with Store.open(tmp_path) as store:
        assert store.settings().games == 5 and store.records() == [record(0)]


def test_an_extension_keeps_the_stored_random_openings(tmp_path):
    stored = dataclasses.replace(SETTINGS, openings=((3,), (2,)), opening_source="random, 1 plies")
    Store.create(tmp_path, stored).close()
    asked = dataclasses.replace(stored, games=4, openings=((3,), (2,), (4,), (1,)))  # drawn for 4 pairs
    with Store.create(tmp_path, asked) as store:
        assert store.settings() == dataclasses.replace(stored, games=4)


def test_fewer_games_or_other_differences_are_refused(tmp_path):
    with Store.create(tmp_path, SETTINGS) as store:
        store.add(record(0))
    with pytest.raises(StoreError, match="2 game pairs a pairing, more than the 1 asked"):
        Store.create(tmp_path, dataclasses.replace(SETTINGS, games=1))
    with pytest.raises(StoreError, match="different tournament"):
        Store.create(tmp_path, dataclasses.replace(SETTINGS, games=5, seed=2))
    with Store.open(tmp_path) as store:
        assert store.settings() == SETTINGS and store.records() == [record(0)]


def test_a_store_in_a_folder_whose_name_reads_as_uri_syntax_is_that_folder(tmp_path):
    folder = tmp_path / "run ?mode=ro#1 100%"
    with Store.create(folder, SETTINGS) as store:
        store.add(record(0))
    with Store.open(folder) as store:
        assert store.records() == [record(0)] and not store.read_only
    assert sorted(path.name for path in tmp_path.iterdir()) == [folder.name]


# ---- a read-only view of a store: a read-only bind mount in a private mount namespace ----

_READ_ONLY_VIEW = """
import json, subprocess, sys
source, view = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])  # this checkout's packages
subprocess.run(["mount", "--bind", source, view], check=True)
subprocess.run(["mount", "-o", "remount,bind,ro", view], check=True)
from tournament.store import Store, StoreError
try:
    open(view + "/probe", "w")
except OSError as error:
    refused = error.strerror
else:
    refused = None
try:
    with Store.open(view) as store:
        found = {"read_only": store.read_only, "game_ids": sorted(store.game_ids()),
                 "records": len(store.records()), "entrants": list(store.settings().entrants)}
        try:
            store.add(store.records()[0])
        except StoreError as error:
            found["add"] = str(error)
except StoreError as error:
    found = {"error": str(error)}
found["writing the view"] = refused
print(json.dumps(found))
"""


def read_only_view(tmp_path, source) -> dict:
    """Open the store in ``source`` through a read-only bind mount of it (``unshare -m``: a mount
    namespace of its own, so nothing outside sees the mount) and report what :meth:`Store.open` read
    and what its writes said. Skips where mount namespaces are not allowed (not root)."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    view = tmp_path / "view"
    view.mkdir(exist_ok=True)
    script = tmp_path / "view.py"
    script.write_text(_READ_ONLY_VIEW)
    root = Path(__file__).parent.parent
    done = subprocess.run(
        ["unshare", "-m", sys.executable, str(script), str(source), str(view), str(root)],
        capture_output=True, text=True, timeout=60, cwd=root,
    )  # fmt: skip
    if done.returncode != 0 and ("mount" in done.stderr or "unshare" in done.stderr):
        pytest.skip(f"no read-only bind mount here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["writing the view"] == "Read-only file system"  # the view really is read-only
    return found


def _files(directory) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def test_a_store_on_a_read_only_file_system_is_read_and_left_untouched(tmp_path):
    source = tmp_path / "run"
    with Store.create(source, SETTINGS) as store:
        store.add(record(0))
        store.add(record(1))
    before = _files(source)
    assert sorted(before) == ["tournament.db", "tournament.lock"]  # no -wal or -shm: immutable=1
    found = read_only_view(tmp_path, source)
    assert found["read_only"] is True and found["game_ids"] == [0, 1] and found["records"] == 2
    assert found["entrants"] == list(SETTINGS.entrants)
    assert found["add"] == (
        f"cannot store game 0 in {tmp_path}/view/tournament.db: it is open read-only, its folder cannot be "
        "written here"
    )
    assert _files(source) == before


def test_a_read_only_view_reads_the_games_a_run_is_writing_through_its_wal(tmp_path):
    source = tmp_path / "run"
    with Store.create(source, SETTINGS) as store:  # a run, holding its lock, writing as we read
        store.add(record(0))
        store.add(record(1))
        assert (source / "tournament.db-wal").stat().st_size > 0  # the games are in the WAL still
        found = read_only_view(tmp_path, source)  # SQLite's mode=ro with the run's -shm
    assert found["read_only"] is True and found["game_ids"] == [0, 1]


def test_an_older_store_is_read_only_migrated_in_memory(tmp_path):
    source = tmp_path / "run"
    source.mkdir()
    _v0_store(source, SETTINGS)
    before = _files(source)
    found = read_only_view(tmp_path, source)
    assert found["read_only"] is True and found["game_ids"] == [0] and found["records"] == 1
    assert found["add"].endswith("it is open read-only, its folder cannot be written here")
    assert _files(source) == before and _version(source) == 0


def test_a_read_only_view_that_a_writer_may_change_unseen_is_refused_in_one_line(tmp_path):
    import fcntl
    import os

    source = tmp_path / "run"
    with Store.create(source, SETTINGS) as store:
        store.add(record(0))
    # a run that has taken the directory's lock and has not opened the database yet
    fd = os.open(source / "tournament.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, b"4242\n", 0)
        found = read_only_view(tmp_path, source)
    finally:
        os.close(fd)
    assert found["error"] == (
        f"{tmp_path}/view is being written by a run (process 4242) and cannot be read safely while it "
        "runs, since it cannot be written here; wait for the run to end"
    )
    # a write-ahead log with games in it but no -shm: immutable=1 would not read those games
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(source / "tournament.db")],
        capture_output=True, text=True, cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert killed.returncode == -9, killed.stderr
    (source / "tournament.db-shm").unlink()
    found = read_only_view(tmp_path, source)
    view = f"{tmp_path}/view/tournament.db"
    assert found["error"].startswith(f"cannot read {view}: its folder cannot be written here, and its write")
    assert "\n" not in found["error"]
    with Store.open(source) as store:  # where it can be written, the log is read (and checkpointed)
        assert store.game_ids() == {0, 1}


_KILLED_WRITER = """
import dataclasses, os, signal, sys
sys.path[:0] = [".", "tests"]
from test_store import record
from tournament.store import Store
store = Store.open(sys.argv[1].rpartition("/")[0])
store._db.execute("PRAGMA wal_autocheckpoint = 0")
store.add(record(1))
os.kill(os.getpid(), signal.SIGKILL)  # no checkpoint: the game stays in the -wal file
"""


def test_open_read_only_reads_a_run_being_written_and_cannot_write(tmp_path):
    from tournament.store.locks import held

    source = tmp_path / "run"
    assert not held(source)
    with Store.create(source, SETTINGS) as writer:  # a run holding its lock
        writer.add(record(0))
        assert held(source)
        with Store.open(source, read_only=True) as reader:
            assert reader.read_only and reader.game_ids() == {0}
            writer.add(record(1))  # the reader takes no lock that keeps the run from writing
            assert reader.game_ids() == {0, 1}
            with pytest.raises(StoreError, match="open read-only"):
                reader.add(record(2))
    assert not held(source)  # released with the run's store
    with Store.open(source) as store:
        assert store.game_ids() == {0, 1}


def test_held_reads_the_kernels_table_of_locks(tmp_path):
    import os

    from tournament.store.locks import LOCK_NAME, held

    (tmp_path / LOCK_NAME).write_text("")
    status = os.stat(tmp_path / LOCK_NAME)
    device = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}"
    table = tmp_path / "locks"
    for line, expected in (
        (f"1: FLOCK  ADVISORY  WRITE 4242 {device}:{status.st_ino} 0 EOF", True),
        (f"1: -> FLOCK  ADVISORY  WRITE 4243 {device}:{status.st_ino} 0 EOF", False),  # a waiter
        (f"2: FLOCK  ADVISORY  READ 4242 {device}:{status.st_ino} 0 EOF", False),  # a reader's lock
        (f"3: FLOCK  ADVISORY  WRITE 4242 {device}:{status.st_ino + 1} 0 EOF", False),  # another file
    ):
        table.write_text(f"{line}\n")
        assert held(tmp_path, locks=str(table)) is expected, line
