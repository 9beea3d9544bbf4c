"""Agents cannot touch the referee, the opponent, the store or the runner (``tests/cheats/``).

Each cheating agent tries its attack at every move and otherwise plays leftmost, in a gauntlet
against negamax through the command line. Every attack must fail: negamax wins every game by four
in a row (no forfeit by either side), the run finishes, and the store holds exactly the games played.
Running as root (as CI and containers do) gives each agent a user of its own; without root some of
these attacks are out of the sandbox's reach (README: threat model), and those tests are skipped.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from connectx.cli import main
from tournament import sandbox
from tournament.limits import Limits
from tournament.record import GameRecord, Termination
from tournament.runner import run_games
from tournament.sandbox import AGENT_UID_BASE
from tournament.schedule import GameTask
from tournament.scratch import Scratch
from tournament.store import Store

CHEATS = sorted(
    path for path in (Path(__file__).parent / "cheats").glob("*.py") if not path.name.startswith("_")
)

MISBEHAVING = Path(__file__).parent / "misbehaving"

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="agents get users of their own only when run as root")


@as_root
def test_every_cheat_loses_every_game_and_the_store_holds_exactly_the_games_played(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["run", "--agents", "negamax", *map(str, CHEATS), "--gauntlet", "--games", "1"]
    assert main([*args, "--openings", "none", "--out", str(out), "--workers", "2"]) == 0
    capsys.readouterr()
    with Store.open(out) as store:
        records = store.records()
    assert sorted(record.game_id for record in records) == list(range(2 * len(CHEATS)))
    for record in records:
        assert record.termination is Termination.WIN, (record.first, record.second, record.detail)
        assert record.score_of("negamax") == 1.0, (record.first, record.second)
    with sqlite3.connect(out / "tournament.db") as db:  # nothing beside the records either
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == len(records)
    assert oct(out.stat().st_mode & 0o777) == "0o700"


@as_root
def test_no_process_outlives_its_game(tmp_path):
    """An agent whose children fork children, some in sessions of their own, leaves no process behind."""
    spawner = tmp_path / "spawner.py"
    spawner.write_text(
        "import os, time\n"
        "def agent(obs, config):\n"
        "    for _ in range(5):\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(600)\n"
        "            time.sleep(600)\n"
        "    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n"
    )
    out = tmp_path / "run"
    command = [sys.executable, "-m", "connectx", "run", "--agents", "leftmost", str(spawner)]
    subprocess.run(
        [*command, "--games", "1", "--openings", "none", "--out", str(out)], check=True, capture_output=True
    )
    time.sleep(0.5)
    assert [line for line in _agent_processes() if str(spawner) in line] == []


def _agent_processes() -> list[str]:
    """The command lines of living processes whose user is one of the agents' (any slot)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            uid = int((proc / "status").read_text().split("Uid:")[1].split()[0])
            if AGENT_UID_BASE <= uid < AGENT_UID_BASE + 1000:
                found.append((proc / "cmdline").read_text())
        except (OSError, IndexError, ValueError):
            continue
    return found


def _limited_game(tmp_path: Path, source: str, limits: Limits) -> GameRecord:
    agent = tmp_path / "agent.py"
    agent.write_text(source)
    task = GameTask(0, 0, str(agent), "leftmost", 6, 7, 4, 2.0, None, seed=1)
    (record,) = run_games([task], workers=1, limits=limits)
    return record


def test_an_agent_over_its_memory_limit_gets_a_memory_error(tmp_path):
    source = "def agent(obs, config):\n    block = bytearray(3 << 30)\n    return 3\n"
    record = _limited_game(tmp_path, source, Limits(memory_mb=2048))
    assert record.termination is Termination.ERROR and "MemoryError" in record.detail


@as_root
def test_an_agent_cannot_start_more_processes_than_its_limit(tmp_path):
    source = (
        "import os, time\n"
        "def agent(obs, config):\n"
        "    started = 0\n"
        "    for _ in range(12):\n"
        "        try:\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(30)\n"
        "                os._exit(0)\n"
        "            started += 1\n"
        "        except OSError:\n"
        "            break\n"
        "    return min(started, 6)\n"
    )
    assert _limited_game(tmp_path, source, Limits(processes=4)).moves[0] < 4
    assert _limited_game(tmp_path, source, Limits(processes=64)).moves[0] == 6  # the test can tell


def test_slots_claimed_at_once_are_disjoint_and_freed_on_exit() -> None:
    """Two runners on one machine never share a slot (their agents' users); a name bound by someone
    else is skipped, and a slot is free again once its claim ends."""
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with sandbox.claim_slots(1) as (first,):
        squatter.bind(f"\0connectx-slot-{first + 1}")
        with sandbox.claim_slots(2) as others:
            assert first not in others and first + 1 not in others
    squatter.close()
    with sandbox.claim_slots(1) as again:
        assert again == [first]


def test_an_agent_whose_process_exits_is_an_error_at_once_whatever_its_children_hold():
    """Its child keeps the pipe open: the proxy still sees the agent's process end (not a TIMEOUT
    after the 62.5 s a move may take)."""
    task = GameTask(0, 0, str(MISBEHAVING / "forks_then_exits.py"), "leftmost", 6, 7, 4, 2.0, None, seed=1)
    began = time.monotonic()
    (record,) = run_games([task], workers=1)
    assert time.monotonic() - began < 5
    assert record.termination is Termination.ERROR and record.offender == 1, record.detail
    assert "process exited (exit code 1) during its move" in record.detail


def test_the_directory_of_an_agent_whose_player_was_killed_goes_with_the_next_scratch(tmp_path, monkeypatch):
    """A ``connectx play`` closed with its terminal (SIGHUP) cannot remove its agent's working
    directory: the next scratch directory made (every run makes one) removes it, since its maker is
    gone."""
    play = subprocess.Popen(
        [sys.executable, "-m", "connectx", "play", "random", "--out", str(tmp_path / "play")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    shown = b""
    while b"your move" not in shown and select.select([play.stdout], [], [], 30)[0]:
        shown += os.read(play.stdout.fileno(), 4096)
    (left,) = tmp_path.glob("connectx-scratch-mark2-*")
    play.send_signal(signal.SIGHUP)
    play.wait()
    assert left.is_dir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    Scratch("slot0").close()
    assert not list(tmp_path.glob("connectx-*"))
