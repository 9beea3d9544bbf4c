"""``connectx.Ladder``: the ladder's Python API over a small ladder (4x4 boards, three in a row, cheap
agents) -- seeded, added to, listed as a DataFrame and as HTML, reported and a member retired."""

from __future__ import annotations

import math

import pytest

from connectx.entrants import AgentError
from connectx.ladders import Ladder
from tournament.driver import Started
from tournament.ladder import LadderError, Planned
from tournament.record import GameRecord

BOARD = {"rows": 4, "columns": 4, "inarow": 3, "workers": 2}


def test_a_ladder_from_python_seeds_adds_lists_reports_and_retires(tmp_path):
    ladder = Ladder(tmp_path / "ladder")
    assert "no ladder in" in ladder._repr_html_()
    summary = ladder.init(["random", "leftmost"], pairs=1, progress=False, **BOARD)
    assert (summary.stored, summary.failed) == (2, 0)  # one game pair: two games

    events: list = []
    added = ladder.add("one_step", pairs=2, workers=2, progress=events.append)
    assert added.new and added.member.id == "one_step@1" and added.why == "pairs" and added.pairs == 2
    assert isinstance(events[0], Planned) and any(isinstance(event, Started) for event in events)
    assert sum(isinstance(event, GameRecord) for event in events) == added.played == 4

    standings = ladder.standings
    assert list(standings.index) == [entry.member.id for entry in ladder.rated().entries]
    assert sorted(standings.index) == ["leftmost@1", "one_step@1", "random@1"]
    assert standings["games"].sum() == 2 * 6  # every game counts for both its players
    assert (standings["wins"] + standings["draws"] + standings["losses"] == standings["games"]).all()
    assert standings.loc["one_step@1", "games"] == 4 and standings["retired"].isna().all()
    assert all(math.isnan(x) or isinstance(x, float) for x in standings["elo"])
    shown = ladder._repr_html_()
    assert "<table" in shown and "one_step@1" in shown and "3 members, 6 games" in shown

    written = ladder.report(tmp_path / "report")
    assert written.games == 6 and written.files[-2:] == ("ladder.md", "history.png")
    assert all((tmp_path / "report" / name).is_file() for name in written.files)
    assert (tmp_path / "report" / "report.html").is_file()

    assert ladder.remove("leftmost").retired is not None
    assert ladder.standings.loc["leftmost@1", "retired"] is not None
    with pytest.raises(LadderError, match="retired already"):
        ladder.remove("leftmost")


def test_bad_input_is_one_error_and_plays_nothing(tmp_path):
    ladder = Ladder(tmp_path / "ladder")
    with pytest.raises(LadderError, match="no ladder in"):
        ladder.add("random", pairs=1, progress=False)
    with open(tmp_path / "log.txt", "w") as log, pytest.raises(AgentError, match="refers to an open file"):
        ladder.init([lambda obs, config: log.write("move") and 0], progress=False, **BOARD)
    with pytest.raises(LadderError, match="does not fit on a 4x4 board"):
        ladder.init(["random", "leftmost"], rows=4, columns=4, inarow=5, progress=False)
    assert not (tmp_path / "ladder").exists()
