"""reports.stats.frames: a stored tournament as pandas DataFrames in one call."""

from __future__ import annotations

import pytest

from reports.stats.frames import GAMES_COLUMNS, load, notation
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


def test_load_gives_games_standings_crosstable_and_pairs(stored):
    directory, records = stored
    frames = load(directory)
    assert list(frames.games.columns) == GAMES_COLUMNS and len(frames.games) == len(records)
    assert sorted(frames.standings["agent"]) == sorted(AGENTS)
    assert list(frames.crosstable.index) == list(frames.standings["agent"])
    assert len(frames.pairs) == 3
    games = frames.games.set_index("game_id")
    crash = next(r for r in records if r.termination == "error")
    row = games.loc[crash.game_id]
    assert row["offender"] == "crashy" and row["detail"] == crash.detail
    assert row["winner"] == (crash.second if crash.offender == 1 else crash.first)
    assert row["moves"] == notation(crash.moves, 7) and row["plies"] == len(crash.moves)
    assert row["move_times"] == crash.move_times
    wins = frames.standings.set_index("agent")["wins"]
    assert wins.sum() == (frames.games["winner"] != "").sum()


def test_notation():
    assert notation((3, 3, 4), 7) == "445"
    assert notation((), 7) == ""
    assert notation((9, 2, 11), 12) == "10 3 12"


def test_load_errors(tmp_path):
    with pytest.raises(StoreError):
        load(tmp_path)
    with Store.create(tmp_path, settings_for(AGENTS, 1)):
        pass
    with pytest.raises(ValueError, match="no game"):
        load(tmp_path)
