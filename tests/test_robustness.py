"""Bad input and faults get one clear line and a non-zero exit, and never cost a stored game.

Numeric options out of range, a second runner on a directory, a store without its settings, a
creation killed half-way, a damaged store, a read-only directory and a full disk. The last two run
the real thing in a private mount namespace (``unshare -m``: a tmpfs that fills up, a read-only bind
mount), which needs root; elsewhere they are skipped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from connectx.cli import main
from tournament import store as store_module
from tournament.schema import SCHEMA
from tournament.store import Store, StoreError

RUN = ["run", "--agents", "random", "leftmost", "--games", "2", "--openings", "none", "--workers", "1"]


def _one_line_exit(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 2) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == code
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, module_reported: list[Path]) -> Path:
    """A finished 4-game tournament (``RUN``), without its reports."""
    out = tmp_path_factory.mktemp("played")
    assert main([*RUN, "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--act-timeout", "inf"], "--act-timeout must be positive and <= 3,600, got inf"),
        (["--act-timeout", "1e300"], "--act-timeout must be positive"),
        (["--act-timeout", "nan"], "--act-timeout must be positive"),
        (["--hang-limit", "nan"], "--hang-limit must be positive"),
        (["--hang-limit=-inf"], "--hang-limit must be positive"),
        (["--games", "1000000000"], "--games must be >= 1 and <= 500,000"),
        (["--workers", "100000"], "--workers must be >= 1 and <= 256"),
        (["--columns", "1000"], "--columns must be >= 1 and <= 100"),
        (["--seed", "-1"], "--seed must be >= 0"),
        (["--opening-plies", "1000000"], "--opening-plies must be >= 0 and <= 10,000"),
        (["--games", "x"], "invalid int value: 'x'"),
        (["--no-such-option"], "unrecognized arguments"),
    ],
)
def test_bad_numbers_of_run_exit_2_with_one_line_and_write_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "x"
    err = _one_line_exit(capsys, ["run", "--agents", "random", "leftmost", *argv, "--out", str(out)])
    assert message in err and err.startswith("connectx")
    assert not (tmp_path / "x").exists()


def test_too_many_games_in_all_is_refused_before_building_the_schedule(tmp_path, capsys):
    agents = ["random", "leftmost", "one_step", "middle", "negamax"]
    argv = ["run", "--agents", *agents, "--games", "100000", "--out", str(tmp_path / "x")]
    err = _one_line_exit(capsys, argv)
    assert "make 2,000,000 games; at most 1,000,000" in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--max-games", "1000000000"], "--max-games must be >= 2 and <= 1,000,000"),
        (["--act-timeout", "nan"], "--act-timeout must be positive"),
        (["--elo1", "inf"], "must be finite"),
        (["--alpha", "nan"], "alpha and beta must be in (0, 1)"),
    ],
)
def test_bad_numbers_of_sprt_exit_2_with_one_line(argv, message, tmp_path, capsys):
    err = _one_line_exit(capsys, ["sprt", "random", "leftmost", *argv, "--out", str(tmp_path / "x")])
    assert message in err
    assert not (tmp_path / "x").exists()


def test_a_bad_agent_parameter_is_named_in_one_line(tmp_path, capsys):
    out = tmp_path / "x"
    err = _one_line_exit(capsys, ["run", "--agents", "minimax:depth=x", "random", "--out", str(out)])
    assert "bad parameters for 'minimax': depth must be an integer, got 'x'" in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--act-timeout", "nan"], "--act-timeout must be positive and <= 3,600, got nan"),
        (["--act-timeout", "inf"], "--act-timeout must be positive"),
        (["--timeout", "nan"], "--timeout must be positive"),
        (["--games", "-1"], "--games must be >= 0 and <= 1,000"),
        (["--games", "1000000000"], "--games must be >= 0 and <= 1,000"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_numbers_of_submissions_check_exit_2_with_one_line(argv, message, tmp_path, capsys):
    agent = tmp_path / "main.py"
    agent.write_text("def agent(obs, config):\n    return 0\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(agent), *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("connectx") and err.count("\n") == 1 and message in err


def test_a_second_runner_on_the_same_directory_is_refused(played, capsys):
    before = _digest(played / "tournament.db")
    with Store.open(played) as reader:
        settings = reader.settings()
    with Store.create(played, settings):  # another run holds the directory
        err = _one_line_exit(capsys, [*RUN, "--out", str(played)])
        assert f"{played} is in use by another run (process {os.getpid()})" in err
        with pytest.raises(StoreError, match="in use by another run"):
            Store.create(played, settings)
    assert _digest(played / "tournament.db") == before
    assert main([*RUN, "--out", str(played)]) == 0  # the lock went with the first store


def test_a_damaged_store_is_reported_in_one_line_and_left_as_it_is(played, tmp_path, capsys):
    out = tmp_path / "damaged"
    shutil.copytree(played, out)
    db = out / "tournament.db"
    with open(db, "r+b") as handle:  # garble the header of the page that holds the games
        handle.seek(db.stat().st_size - 4096)
        handle.write(b"\xff" * 64)
    before = _digest(db)
    for argv in ([*RUN, "--out", str(out)], ["table", str(out)]):
        err = _one_line_exit(capsys, argv)
        assert "tournament.db is damaged (database disk image is malformed)" in err
    assert _digest(db) == before


def _settings_of(directory: Path):
    with Store.open(directory) as store:
        return store.settings()


def test_a_store_without_its_settings_is_completed_when_empty(played, tmp_path, capsys):
    out = tmp_path / "half"
    out.mkdir()
    db = sqlite3.connect(out / "tournament.db")  # what an older version left when killed mid-creation
    db.executescript(SCHEMA)
    db.close()
    err = _one_line_exit(capsys, ["table", str(out)])
    assert "has no settings: its creation was interrupted" in err
    assert main([*RUN, "--out", str(out)]) == 0
    assert _settings_of(out) == _settings_of(played)
    with Store.open(out) as store:
        assert len(store.records()) == 4


def test_a_store_with_games_but_no_settings_is_refused_untouched(played, tmp_path, capsys):
    out = tmp_path / "orphans"
    shutil.copytree(played, out)
    with sqlite3.connect(out / "tournament.db") as db:
        db.execute("DELETE FROM settings")
    db.close()
    before = _digest(out / "tournament.db")
    err = _one_line_exit(capsys, [*RUN, "--out", str(out)])
    assert "holds games but not the settings that made them" in err
    assert _digest(out / "tournament.db") == before


def test_a_creation_killed_half_way_leaves_no_store(played, tmp_path, monkeypatch):
    settings = _settings_of(played)

    def killed(*args):
        raise KeyboardInterrupt  # the moment before the finished file is renamed into place

    monkeypatch.setattr(store_module.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        Store.create(tmp_path, settings)
    assert not (tmp_path / "tournament.db").exists()
    with pytest.raises(StoreError, match="no tournament"):
        Store.open(tmp_path)
    monkeypatch.undo()
    with Store.create(tmp_path, settings) as store:
        assert store.settings() == settings and store.game_ids() == set()
    assert not list(tmp_path.glob("tournament.db.new*"))


def test_a_full_database_fails_one_game_and_keeps_the_others(played, tmp_path):
    shutil.copytree(played, tmp_path / "t")
    records = _records(tmp_path / "t")
    with Store.create(tmp_path / "t", _settings_of(played)) as store:
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
        task = dataclasses.replace(records[0].task, game_id=99)
        big = dataclasses.replace(records[0], task=task, detail="x" * 100_000)
        with pytest.raises(StoreError, match="cannot store game 99 in .*: the disk is full"):
            store.add(big)
        with pytest.raises(StoreError, match="game 0 is already stored"):
            store.add(records[0])
    assert _records(tmp_path / "t") == records


def _records(directory: Path):
    with Store.open(directory) as store:
        return store.records()


# ---- a full disk and a read-only directory, for real, in a private mount namespace ----

_NAMESPACE_SCRIPT = """
import contextlib, io, json, os, subprocess, sqlite3, sys
from pathlib import Path

import tournament.store
from connectx.cli import main

work = Path(sys.argv[1])
run = json.loads(sys.argv[2])
scenario = sys.argv[3]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", str(work)], check=True)  # a run keeps 8
out = work / "t"

real_add = tournament.store.Store.add
def add(self, record):  # an interrupted first run: 5 games stored
    real_add(self, record)
    if len(self.game_ids()) == 5:
        raise KeyboardInterrupt
tournament.store.Store.add = add
assert main([*run, "--out", str(out)]) == 130
tournament.store.Store.add = real_add

def rows():
    with sqlite3.connect(out / "tournament.db") as db:
        return [list(row) for row in db.execute("SELECT * FROM games ORDER BY game_id")]

before = rows()
if scenario == "full":
    free = os.statvfs(work).f_bavail * os.statvfs(work).f_frsize
    with open(work / "filler", "wb") as handle:
        handle.write(b"\\0" * (free - 64 * 1024))
    commands = [[*run, "--out", str(out)]]
else:
    subprocess.run(["mount", "--bind", str(out), str(out)], check=True)
    subprocess.run(["mount", "-o", "remount,ro,bind", str(out)], check=True)
    commands = [[*run, "--out", str(out)], ["table", str(out)], [*run, "--out", str(out / "new")]]
results = []
for command in commands:  # in this process, as the first run: stderr's last line and the exit status
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(command)
        except SystemExit as exit:
            code = exit.code
    results.append([code, err.getvalue().strip().splitlines()[-1:]])
after = rows()
with sqlite3.connect(out / "tournament.db") as db:
    check = db.execute("PRAGMA integrity_check").fetchone()[0]
print(json.dumps({"results": results, "before": before, "after": after, "check": check}))
"""


def _in_private_mounts(tmp_path: Path, scenario: str) -> dict:
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs root and unshare -m for a tmpfs and a read-only bind mount")
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -m is not permitted here")
    work = tmp_path / "mnt"
    work.mkdir()
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(_NAMESPACE_SCRIPT))
    argv = [*RUN[:5], "400", *RUN[6:]]  # far more games than the disk holds
    done = subprocess.run(
        ["unshare", "-m", sys.executable, str(script), str(work), json.dumps(argv), scenario],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_full_disk_stops_the_run_with_one_line_and_keeps_the_stored_games(tmp_path):
    found = _in_private_mounts(tmp_path, "full")
    [(code, last_line)] = found["results"]
    assert code == 2
    assert "the disk is full" in last_line[0] or "No space left on device" in last_line[0]
    assert found["check"] == "ok"
    assert len(found["before"]) == 5 and found["after"][:5] == found["before"]
    assert len(found["after"]) < 800


@pytest.mark.slow
def test_a_read_only_directory_gets_one_line_and_keeps_the_stored_games(tmp_path):
    found = _in_private_mounts(tmp_path, "read-only")
    run, table, run_elsewhere = found["results"]
    for code, last_line in (run, run_elsewhere):
        assert code == 2 and last_line and last_line[0].startswith("connectx")
        assert "Read-only file system" in last_line[0] or "readonly" in last_line[0], last_line
    assert table == [0, []]  # reading needs no writing: the standings print, no file is written
    assert found["after"] == found["before"] and found["check"] == "ok"
