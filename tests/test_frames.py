"""connectx.Result: a stored tournament as pandas DataFrames (any run folder, read once)."""

from __future__ import annotations

import pytest

from agents.engine.board import Board
from connectx.tournament_result import Result
from reports.stats.tables import GAMES_COLUMNS
from tests.records import settings_for, synthetic_records
from tournament.store import Store, StoreError

AGENTS = ("alpha", "crashy", "fullcol")


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    directory = tmp_path_factory.mktemp("frames")
    records = synthetic_records(AGENTS, 2)
    with Store.create(directory, settings_for(AGENTS, 2)) as store:
        for record in records:
            store.add(record)
    return directory, records


def test_a_result_gives_games_standings_crosstable_and_pairs(stored):
    directory, records = stored
    frames = Result(directory)
    assert ["game_id", *frames.games.columns] == GAMES_COLUMNS and len(frames.games) == len(records)
    assert sorted(frames.standings["agent"]) == sorted(AGENTS)
    assert list(frames.crosstable.index) == list(frames.standings["agent"])
    assert len(frames.pairs) == 3
    games = frames.games
    crash = next(r for r in records if r.termination == "error")
    row = games.loc[crash.game_id]
    assert row["offender"] == "crashy" and row["detail"] == crash.detail
    assert row["winner"] == (crash.second if crash.offender == 1 else crash.first)
    assert row["moves"] == Board.from_moves(crash.moves).notation() and row["plies"] == len(crash.moves)
    assert row["move_times"] == crash.move_times
    wins = frames.standings.set_index("agent")["wins"]
    assert wins.sum() == (frames.games["winner"] != "").sum()


def test_the_board_writes_and_reads_pons_notation():
    assert Board.from_moves((3, 3, 4)).notation() == "445" and Board().notation() == ""
    wide = Board.from_moves((9, 2, 11), rows=6, columns=12, inarow=4)
    assert wide.notation() == "10 3 12"
    assert Board.from_notation("10 3 12", columns=12).moves == (9, 2, 11)
    assert Board.from_notation("445").moves == (3, 3, 4)


def test_a_result_of_no_run_or_no_game(tmp_path):
    with pytest.raises(StoreError):
        Result(tmp_path)
    with Store.create(tmp_path, settings_for(AGENTS, 1)):
        pass
    empty = Result(tmp_path)
    assert (
        empty.games.empty and repr(empty) == f"no game between two different agents stored in {tmp_path} yet"
    )
    with pytest.raises(ValueError, match="no game"):
        empty.standings  # noqa: B018
