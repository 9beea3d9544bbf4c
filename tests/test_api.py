"""The Python API of tournaments (:mod:`connectx.tournaments`): frames of the right shapes and sums, a
folder resumed, the same games as the command line's, bad input refused before any game with
nothing written, an interrupt that keeps the finished games and leaves no process, and an
``import connectx`` that loads none of it. (A real kernel interrupted in a cell: tests/test_notebooks.py.)"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import connectx
from connectx.cli import main
from tournament.store import Store

SMALL = {"rows": 4, "columns": 5, "inarow": 3, "progress": False}
"""A board on which the built-in fast agents play a game in a few plies."""

ROOT = Path(__file__).resolve().parents[1]


def _records(folder: Path) -> list[tuple]:
    """What the games stored in ``folder`` were, without their clocks."""
    with Store.open(folder, read_only=True) as store:
        return sorted(
            (
                r.game_id,
                r.pair_id,
                r.first,
                r.second,
                tuple(r.opening),
                tuple(r.moves),
                r.result,
                str(r.termination),
            )
            for r in store.records()
        )


def test_import_connectx_loads_no_run_and_the_command_line_no_api():
    code = (
        "import sys, connectx; print('pandas' in sys.modules); import connectx.cli; "
        "print(sorted(m for m in ('pandas', 'connectx.tournaments', 'tournament.driver', 'tqdm.auto') "
        "if m in sys.modules))"
    )
    alone, cli = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.splitlines()
    assert alone == "False"  # import connectx alone
    assert "connectx.tournaments" not in cli and "tqdm.auto" not in cli  # and then the command line
    assert connectx.tournament is connectx.tournaments.tournament
    assert connectx.analyze is connectx.tournaments.analyze  # no command module takes its name
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        connectx.nonsense  # noqa: B018


@pytest.mark.slow
def test_a_tournament_in_a_temporary_folder_returns_its_frames():
    result = connectx.tournament(["leftmost", "middle", "random"], games=1, **SMALL)
    assert result.games.shape[0] == 6  # 3 pairings x 1 pair x 2 colours
    assert set(result.games.columns) >= {
        "pair_id",
        "first",
        "second",
        "winner",
        "termination",
        "plies",
        "moves",
    }
    standings = result.standings
    assert list(standings.agent) and set(standings.agent) == {"leftmost", "middle", "random"}
    assert (standings.games == 4).all() and (standings.wins + standings.draws + standings.losses == 4).all()
    assert standings.wins.sum() == standings.losses.sum() == (result.games.winner != "").sum()
    assert result.crosstable.shape == (3, 3)
    first = result.games.index[0]
    assert repr(result.game(first)).startswith(f"game {first}: ")
    assert "leftmost" in repr(result) and "<table" in result._repr_html_()
    with pytest.raises(ValueError, match=r"connectx.analyze\(result\)"):
        result.moves  # noqa: B018
    folder = result.path
    assert (folder / "tournament.db").is_file()
    del result
    gc.collect()
    assert not folder.exists()


@pytest.mark.slow
def test_a_gauntlet_plays_its_agent_against_each_other_only():
    result = connectx.tournament(["random", "middle"], gauntlet="leftmost", games=1, **SMALL)
    assert result.settings.gauntlet and result.settings.entrants == ("leftmost", "random", "middle")
    pairings = {frozenset(pair) for pair in zip(result.games["first"], result.games["second"], strict=True)}
    assert len(result.games) == 4 and pairings == {
        frozenset({"leftmost", "random"}),
        frozenset({"leftmost", "middle"}),
    }
    with pytest.raises(connectx.TournamentError, match="gauntlet= takes the agent"):
        connectx.tournament(["random", "middle"], gauntlet=True, **SMALL)


@pytest.mark.slow
def test_a_folder_is_resumed_and_the_command_line_stores_the_same_games(tmp_path, reported):
    """Its games, not its reports."""
    out = tmp_path / "api"
    first = connectx.tournament(["leftmost", "random"], games=2, seed=7, out=out, **SMALL)
    stored = first.games.started_at
    again = connectx.tournament(["leftmost", "random"], games=2, seed=7, out=out, **SMALL)
    assert again.games.started_at.equals(stored)  # no game played again
    cli = tmp_path / "cli"
    argv = ["run", "--agents", "leftmost", "random", "--games", "2", "--seed", "7", "--rows", "4"]
    assert main([*argv, "--columns", "5", "--inarow", "3", "--out", str(cli)]) == 0
    assert _records(cli) == _records(out)


@pytest.mark.slow
def test_bad_input_is_one_error_before_any_game_with_nothing_written(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(connectx.AgentError, match="nosuchagent"):  # a ValueError too
        connectx.tournament(["leftmost", "nosuchagent"], out=out, **SMALL)
    with pytest.raises(connectx.TournamentError, match="inarow 6 does not fit on a 4x5 board"):
        connectx.tournament(["leftmost", "random"], out=out, **{**SMALL, "inarow": 6})
    with pytest.raises(connectx.TournamentError, match="act_timeout must be positive"):
        connectx.tournament(["leftmost", "random"], out=out, act_timeout=0, **SMALL)
    with pytest.raises(connectx.TournamentError, match="elo1"):
        connectx.sprt("leftmost", "random", elo0=5, elo1=0, out=out, **SMALL)
    with pytest.raises(connectx.TournamentError, match="a list of agents"):
        connectx.tournament("leftmost", out=out, **SMALL)
    assert not out.exists()
    connectx.tournament(["leftmost", "random"], games=1, out=out, **SMALL)
    before = _records(out)
    with pytest.raises(connectx.TournamentError, match=r"another out= or pass overwrite=True$"):
        connectx.tournament(["leftmost", "middle"], games=1, out=out, **SMALL)
    assert _records(out) == before


SLOW_AGENT = """
import time


def agent(obs, config):
    time.sleep(0.3)  # its 4 games last about 5 s: time to interrupt them on a busy machine
    return next(c for c in range(config.columns) if obs.board[c] == 0)
"""

CALLER = """
import sys

import connectx

try:
    connectx.tournament(["leftmost", "random", sys.argv[2]], games=1, out=sys.argv[1], workers=1,
                        rows=4, columns=5, inarow=3, progress=False)
except connectx.RunInterrupted as stop:
    print("interrupted", stop.stored, len(stop.result.games), flush=True)
"""


def _marked(mark: str) -> list[int]:
    """The processes whose environment holds ``mark``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
def test_an_interrupt_keeps_the_finished_games_and_leaves_no_process(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW_AGENT)
    out, mark = tmp_path / "out", f"CONNECTX_TEST_MARK={uuid.uuid4()}"
    env = {**os.environ, "CONNECTX_TEST_MARK": mark.split("=", 1)[1]}
    caller = subprocess.Popen([sys.executable, "-c", CALLER, str(out), str(slow)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 120
    stored = 0  # one worker: the game pair of leftmost and random, then the slow agent's 4 (about 5 s)
    while stored < 2 and time.monotonic() < deadline and caller.poll() is None:
        time.sleep(0.05)
        if (out / "tournament.db").is_file():
            stored = len(_records(out))
    assert stored >= 2, "the games did not start"
    caller.send_signal(signal.SIGINT)
    printed, _ = caller.communicate(timeout=60)
    finished = _records(out)
    kept = len(finished)
    assert printed.split() == ["interrupted", str(kept), str(kept)] and 2 <= kept < 6
    assert _marked(mark) == []  # the run's process and its games' are gone
    again = connectx.tournament(["leftmost", "random", str(slow)], games=1, out=out, workers=1, **SMALL)
    assert len(again.games) == 6
    assert set(finished) <= set(_records(out))


@pytest.mark.slow
def test_an_sprt_stops_at_its_max_games_and_its_moves_are_judged_on_the_standard_board_only():
    result = connectx.sprt("leftmost", "random", max_games=4, elo1=1000, **SMALL)
    assert len(result.games) <= 4 and result.settings.sprt == (0.0, 1000.0, 0.05, 0.05)
    assert result.decision in (None, "H0", "H1")
    with pytest.raises(connectx.TournamentError, match="6x7"):
        connectx.analyze(result, progress=False)
    with pytest.raises(connectx.TournamentError, match="no tournament"):
        connectx.analyze(result.path / "nothing", progress=False)


def test_a_callable_that_cannot_be_sent_is_one_sentence_and_no_game(tmp_path):
    out = tmp_path / "out"
    with open(tmp_path / "log.txt", "w", encoding="utf-8") as log:

        def my_agent(obs, config):
            log.write("moved\n")
            return 0

        with pytest.raises(
            connectx.AgentError, match=r"^my_agent cannot be sent to its sandbox: .*log\.txt"
        ) as raised:
            connectx.tournament([my_agent, "random"], out=out, **SMALL)
    assert "\n" not in str(raised.value)
    assert not out.exists()  # nothing written, no game played
