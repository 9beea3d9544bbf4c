"""Counting records; the standings, crosstable and pairs tables; writing the reports. Hand-built records."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import reports.render.write
import reports.stats.results
from reports.render.plots import progress_figure
from reports.render.terminal import format_standings
from reports.render.write import write_reports
from reports.report import build, notes
from reports.stats.headtohead import WDL, Pentanomial, estimate_pentanomial, estimate_wdl
from reports.stats.results import Results
from reports.stats.tables import PAIRS_COLUMNS, crosstable, pairs, standings
from reports.stats.tally import forfeits, head_to_head, oriented, pentanomials
from tests.records import game_record, settings_for
from tournament.record import Termination


def game(first, second, result, *, pair_id=0, termination=None, offender=None, game_id=0):
    """A finished 6x7 game; ``result`` is ``first``'s score."""
    if termination is None:
        termination = Termination.DRAW if result == 0.5 else Termination.WIN
    return game_record(
        game_id=game_id, pair_id=pair_id, first=first, second=second, rows=6, columns=7, inarow=4,
        act_timeout=2.0, seed=game_id, moves=(), move_times=(), result=result, termination=termination,
        offender=offender,
    )  # fmt: skip


def match(a, b, scores_of_a, start=0):
    """Games of ``a`` against ``b`` with colours alternating (``a`` first in even games), paired 2k, 2k+1."""
    records = []
    for k, score in enumerate(scores_of_a):
        game_id = start + k
        if k % 2 == 0:
            records.append(game(a, b, score, pair_id=game_id // 2, game_id=game_id))
        else:
            records.append(game(b, a, 1 - score, pair_id=game_id // 2, game_id=game_id))
    return records


def report_of(records):
    """The report of ``records`` (its settings name their entrants)."""
    names = tuple(dict.fromkeys(name for record in records for name in (record.first, record.second)))
    return build(Results(records, settings_for(names, 2)), name="t")


def tournament():
    """A 3-agent round robin: strong beats mid 3-1 (of 4), mid beats weak 3.5-0.5, strong beats weak 4-0."""
    return (
        match("strong", "mid", [1, 1, 1, 0])
        + match("mid", "weak", [1, 1, 1, 0.5], start=4)
        + match("weak", "strong", [0, 0, 0, 0], start=8)
    )


def test_head_to_head_counts_each_pairing_from_the_first_name():
    records = tournament() + [game("mid", "mid", 1.0)]  # self-play is left out
    h2h = head_to_head(records)
    assert h2h == {
        ("mid", "strong"): WDL(1, 0, 3),
        ("mid", "weak"): WDL(3, 1, 0),
        ("strong", "weak"): WDL(4, 0, 0),
    }
    assert oriented(h2h, "strong", "mid") == WDL(3, 0, 1)
    assert oriented(h2h, "mid", "strong") == WDL(1, 0, 3)
    with pytest.raises(KeyError):
        oriented(h2h, "weak", "nobody")


def test_pentanomials_count_colour_swapped_pairs():
    records = match("A", "B", [1, 1, 1, 0, 0.5, 0.5, 0, 0.5, 1])  # the last pair is incomplete
    penta = pentanomials(records)
    # pairs of A: (1, 1) = WW, (1, 0) = WL, (0.5, 0.5) = DD, (0, 0.5) = LD
    assert penta == {("A", "B"): Pentanomial(ll=0, ld=1, dd_wl=2, wd=0, ww=1)}
    assert oriented(penta, "B", "A") == Pentanomial(ll=1, ld=0, dd_wl=2, wd=1, ww=0)


def test_malformed_pairs_raise():
    same_colours = [game("A", "B", 1, pair_id=0), game("A", "B", 0, pair_id=0)]
    with pytest.raises(ValueError, match="colours"):
        pentanomials(same_colours)
    three = [game("A", "B", 1, pair_id=0), game("B", "A", 0, pair_id=0), game("A", "B", 1, pair_id=0)]
    with pytest.raises(ValueError, match="pair 0"):
        pentanomials(three)


def test_forfeits_are_charged_to_the_offender():
    records = [
        game("A", "B", 0.0, termination=Termination.TIMEOUT, offender=1),
        game("A", "B", 1.0, termination=Termination.INVALID, offender=2),
        game("B", "A", 0.0, termination=Termination.ERROR, offender=1),
        game("B", "A", 1.0, termination="timeout", offender=2),
        game("B", "A", 1.0),
        game("A", "A", 0.0, termination=Termination.ERROR, offender=1),  # self-play is left out
    ]
    counts = forfeits(records)
    assert counts == {
        ("A", "B", Termination.TIMEOUT): 2,
        ("B", "A", Termination.INVALID): 1,
        ("B", "A", Termination.ERROR): 1,
    }
    tasks = [dataclasses.replace(r.task, pair_id=k) for k, r in enumerate(records)]
    unpaired = [dataclasses.replace(r, task=task) for r, task in zip(records, tasks, strict=True)]
    results = Results(unpaired)
    assert results.forfeited["A", Termination.TIMEOUT] == 2
    assert results.suffered["B", Termination.TIMEOUT] == 2
    assert results.forfeited["B", Termination.TIMEOUT] == 0


def test_standings():
    records = tournament() + [
        game("weak", "mid", 0.0, termination=Termination.TIMEOUT, offender=1, pair_id=6, game_id=12),
        game("mid", "weak", 1.0, termination=Termination.ERROR, offender=2, pair_id=6, game_id=13),
        game("weak", "mid", 0.0, termination=Termination.TIMEOUT, offender=1, pair_id=7, game_id=14),
        game("mid", "weak", 0.0, termination=Termination.INVALID, offender=1, pair_id=7, game_id=15),
    ]
    table = standings(Results(records).standings)
    assert list(table.columns) == [
        "agent", "games", "wins", "draws", "losses", "score", "invalid", "timeouts", "errors",
        "elo", "elo_low", "elo_high", "score_pct",
    ]  # fmt: skip
    assert list(table["agent"]) == ["strong", "mid", "weak"]
    assert table["elo"].is_monotonic_decreasing
    rows = table.set_index("agent")
    assert rows.loc["strong", ["games", "wins", "draws", "losses", "score"]].tolist() == [8, 7, 0, 1, 7.0]
    assert rows.loc["mid", ["games", "wins", "draws", "losses", "score"]].tolist() == [12, 7, 1, 4, 7.5]
    assert rows.loc["weak", ["games", "wins", "draws", "losses", "score"]].tolist() == [12, 1, 1, 10, 1.5]
    assert rows.loc["weak", ["invalid", "timeouts", "errors"]].tolist() == [0, 2, 1]
    assert rows.loc["mid", ["invalid", "timeouts", "errors"]].tolist() == [1, 0, 0]
    assert rows.loc["strong", ["invalid", "timeouts", "errors"]].tolist() == [0, 0, 0]
    assert rows.loc["mid", "score_pct"] == pytest.approx(62.5)
    assert (table["elo_low"] < table["elo"]).all() and (table["elo"] < table["elo_high"]).all()
    assert table["elo"].mean() == pytest.approx(0, abs=1e-6)


def test_results_count_once_and_rate_once(tmp_path, monkeypatch):
    calls = {"rate_with_los": 0, "add": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(
        reports.stats.results, "rate_with_los", counted("rate_with_los", reports.stats.results.rate_with_los)
    )
    monkeypatch.setattr(reports.stats.results.Tally, "add", counted("add", reports.stats.results.Tally.add))
    records = tournament()
    results = Results(records, settings_for(("strong", "mid", "weak"), 2))
    standings(results.standings), crosstable(results.crosstable), notes(results.distinct, results.ratings)
    pairs(results.h2h, results.pentanomials, results.order)
    format_standings(results.standings)
    write_reports(build(results, name="t"), tmp_path)
    assert calls == {"rate_with_los": 1, "add": len(records)}  # one pass over the games
    assert standings(results.standings)["elo"].tolist() == [r.elo for r in results.ratings]


def _pairs(results, order=None):
    return pairs(results.h2h, results.pentanomials, results.order if order is None else order)


def test_empty_tables_keep_their_columns():
    empty = Results([])
    lines = standings(empty.standings)
    assert lines.empty and list(lines.columns)[:3] == ["agent", "games", "wins"]
    assert pairs(empty.h2h, empty.pentanomials, empty.order).empty
    assert list(pairs(empty.h2h, empty.pentanomials, empty.order).columns) == PAIRS_COLUMNS
    assert crosstable(empty.crosstable).empty


def test_crosstable():
    table = crosstable(Results(tournament()).crosstable, order=["strong", "mid", "weak"])
    assert list(table.index) == list(table.columns) == ["strong", "mid", "weak"]
    assert table.loc["strong", "mid"] == 0.75
    assert table.loc["mid", "strong"] == 0.25
    assert table.loc["weak", "mid"] == 0.125
    assert table.loc["strong", "weak"] == 1.0
    assert np.isnan(np.diag(table.to_numpy())).all()
    default = crosstable(Results(tournament()).crosstable)
    assert list(default.index) == ["strong", "mid", "weak"]  # the standings' order


def test_crosstable_leaves_pairings_that_never_met_empty():
    results = Results(match("A", "B", [1, 0]) + match("B", "C", [1, 1]))
    table = crosstable(results.crosstable, order=["A", "B", "C"])
    assert math.isnan(table.loc["A", "C"]) and math.isnan(table.loc["C", "A"])
    assert table.loc["B", "C"] == 1.0


def test_pairs():
    table = _pairs(Results(tournament()), order=["strong", "mid", "weak"])
    assert list(table.columns) == PAIRS_COLUMNS
    assert list(zip(table["agent_a"], table["agent_b"], strict=True)) == [
        ("strong", "mid"), ("strong", "weak"), ("mid", "weak"),
    ]  # fmt: skip
    first = table.iloc[0]
    counts = ["games", "wins", "draws", "losses", "score", "score_pct"]
    assert first[counts].tolist() == [4, 3, 0, 1, 3.0, 75.0]
    expected = estimate_wdl(WDL(3, 0, 1))
    assert first["elo_diff"] == pytest.approx(expected.elo)
    assert first["elo_error"] == pytest.approx(expected.error)
    assert first["los"] == pytest.approx(expected.los)
    # strong's pairs against mid: (1, 1) = WW, (1, 0) = WL
    assert first[["pairs", "ll", "ld", "dd_wl", "wd", "ww"]].tolist() == [2, 0, 0, 1, 0, 1]
    assert first["penta_elo_error"] == pytest.approx(estimate_pentanomial(Pentanomial(dd_wl=1, ww=1)).error)
    last = table.iloc[2]  # mid v weak: (1, 1) = WW, (1, 0.5) = WD
    assert last[["wins", "draws", "losses", "ww", "wd"]].tolist() == [3, 1, 0, 1, 1]
    weak_first = _pairs(Results(tournament()), order=["weak", "strong", "mid"]).iloc[0]
    assert weak_first[["agent_a", "wins", "losses", "ll"]].tolist() == ["weak", 0, 4, 2]
    assert weak_first["elo_diff"] == -math.inf


def test_write_reports(tmp_path):
    out = tmp_path / "reports"
    report = report_of(tournament())
    paths = write_reports(report, out)
    names = ["standings.csv", "crosstable.csv", "elo.csv", "pairs.csv", "los.csv"]
    names += ["elo.png", "elo_progress.png", "crosstable.png"]
    assert sorted(paths) == sorted(names)
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # no temporary file left
    for name in names:
        assert paths[name] == out / name
    for name in ("elo.png", "elo_progress.png", "crosstable.png"):
        assert paths[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(paths["standings.csv"])
    assert list(table["agent"]) == ["strong", "mid", "weak"]
    elo = pd.read_csv(paths["elo.csv"])
    assert list(elo.columns) == ["agent", "elo", "elo_low", "elo_high", "games", "score"]
    assert elo["elo"].tolist() == pytest.approx(table["elo"].tolist(), abs=1e-3)
    cross = pd.read_csv(paths["crosstable.csv"], index_col="agent")
    assert list(cross.index) == list(cross.columns) == ["strong", "mid", "weak"]
    assert cross.loc["strong", "mid"] == 0.75
    assert len(pd.read_csv(paths["pairs.csv"])) == 3
    los = pd.read_csv(paths["los.csv"], index_col="agent")
    assert los.loc["strong", "weak"] > 0.5 and los.loc["strong", "weak"] + los.loc[
        "weak", "strong"
    ] == pytest.approx(1)
    assert write_reports(report, out) == paths  # overwrites in place


def test_a_perfect_score_is_reported_as_a_bound(tmp_path):
    # C beat A and B in every game; A and B split theirs.
    records = (
        match("A", "B", [1, 0, 1, 0]) + match("C", "A", [1] * 8, start=4) + match("C", "B", [1] * 8, start=12)
    )
    results = Results(records)
    paths = write_reports(report_of(records), tmp_path)
    elo = pd.read_csv(paths["elo.csv"]).set_index("agent")
    assert elo.loc["C", "elo"] == float("inf") and elo.loc["C", "elo_low"] > 0
    assert elo.loc["A", "elo"] == elo.loc["B", "elo"] == 0
    text = format_standings(results.standings)
    assert "+∞" in text and "≥ +" in text
    lines = notes(results.distinct, results.ratings)
    assert any(line.startswith("C won every game") and "one-sided 95 % lower bound" in line for line in lines)


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    (tmp_path / "crosstable.png").write_bytes(b"old")

    def interrupted(*args, title):
        args[-1].write_bytes(b"half")  # the path, after the figure's data
        raise KeyboardInterrupt

    monkeypatch.setattr(reports.render.write, "plot_crosstable", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_reports(report_of(tournament()), tmp_path)
    assert (tmp_path / "crosstable.png").read_bytes() == b"old"
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_a_report_needs_games():
    with pytest.raises(ValueError, match="no game"):
        report_of([])
    with pytest.raises(ValueError, match="no game"):
        report_of([game("A", "A", 1.0)])


def test_format_standings():
    text = format_standings(Results(tournament()).standings)
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines[0].split()[:5] == ["#", "agent", "Elo", "95%", "interval"]
    assert [line.split()[1] for line in lines[1:]] == ["strong", "mid", "weak"]
    assert "87.5%" in lines[1] and "0/0/0" in lines[1]
    assert " to " in lines[1]


def _ladder():
    """A perfect ladder of one game pair a pairing, as a small run gives: each agent beat every agent
    below it in both games."""
    names = ["top", "second", "third", "bottom"]
    records = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            records += match(a, b, [1, 1], start=len(records))
    return records


def test_a_small_run_ranks_by_results_and_its_numbers_read_in_rank_order():
    results = Results(_ladder())
    lines = results.standings
    assert [line.agent for line in lines] == ["top", "second", "third", "bottom"]
    assert [line.rank for line in lines] == [1, 2, 3, 4]
    # No finite Elo above the bottom agent, the only one rated: it is the scale's zero by definition.
    # third won its 2 games against bottom and no more: its bound, below bottom's 0, gives no estimate.
    assert [line.rating.estimate() for line in lines] == ["+∞", "+∞", "—", "0"]
    assert lines[2].rating.low < 0 < lines[1].rating.low
    assert lines[-1].rating.reference and lines[-1].rating.interval() == "reference"
    bounds = [line.rating.low for line in lines[:3]]
    assert bounds == sorted(bounds, reverse=True)
    assert all(line.rating.interval() == f"≥ {line.rating.low:+.0f}" for line in lines[:3])
    # A bound may lie below the reference's 0 (two wins prove little): the Elo column reads —, not +∞.
    assert "+0 [+0, +0]" not in format_standings(lines)
    text = notes(results.distinct, results.ratings)
    assert any(line.startswith("top, second and third won every game") for line in text)
    assert "Elo is relative to bottom, 0 by definition: the only agent rated finitely" in text


def test_unbounded_agents_of_one_level_rank_by_score():
    # A and B won every game against C and D, who split theirs: A and B have no finite Elo, and they
    # rank by score, which B's 3-1 against A decides.
    records = match("A", "B", [1, 0, 0, 0]) + match("C", "D", [1, 0, 1, 0], start=4)
    for k, (winner, loser) in enumerate([(a, b) for a in "AB" for b in "CD"]):
        records += match(winner, loser, [1, 1], start=8 + 2 * k)
    lines = Results(records).standings
    assert [line.agent for line in lines[:2]] == ["B", "A"]
    assert lines[0].score_pct > lines[1].score_pct
    assert all(line.rating.estimate() == "+∞" for line in lines[:2])
    assert [line.rating.estimate() for line in lines[2:]] == ["0", "0"]


def test_an_even_pair_is_rated_0_neither_above_nor_below():
    lines = Results(match("A", "B", [1, 0])).standings  # 1-1: each won with the first move
    assert [line.rating.estimate() for line in lines] == ["0", "0"]
    low, high = lines[0].rating.interval().split(" to ")
    assert low.startswith("-") and high.startswith("+")
    assert "+0" not in format_standings(lines) and "-0 " not in format_standings(lines)


def test_notes_count_distinct_games_and_warn_about_repeats():
    records = match("A", "B", [1, 0, 1, 0])  # every game has the same (empty) moves
    results = Results(records)
    lines = notes(results.distinct, results.ratings)
    assert lines[0] == "2 of 4 games distinct"  # one game with each player first
    assert "warning: A v B repeated games: 2 distinct of 4" in lines


def test_the_progression_marks_a_rating_before_it_is_finite_as_a_hollow_bound():
    # A won its first 8 games against B, C and D (no finite Elo yet), then lost some.
    records = match("A", "B", [1, 1, 1, 1, 0, 0, 1, 0]) + match("A", "C", [1, 1, 0, 1], start=8)
    records += match("B", "C", [1, 0, 1, 0], start=12) + match("A", "D", [1, 1, 1, 1], start=16)
    records += match("B", "D", [1, 0, 0, 1], start=20) + match("C", "D", [0, 1, 1, 0], start=24)
    records.sort(key=lambda record: record.game_id)
    progress = Results(records).progress
    figure = progress_figure(progress, title="t")
    panel = figure.axes[[r.name for r in progress[-1].ratings].index("A")]
    games = [checkpoint.games for checkpoint in progress]
    unbounded = [not next(r for r in c.ratings if r.name == "A").is_finite for c in progress]
    assert any(unbounded) and not all(unbounded)
    elo = next(line for line in panel.lines if line.get_color() == "tab:blue")
    drawn = [not math.isnan(y) for y in elo.get_ydata()]
    assert drawn == [not u for u in unbounded]  # no rating plotted where it is not finite
    bounds = [line for line in panel.lines if line.get_color() == "tab:red"]
    marked = [x for line in bounds for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
              if not math.isnan(y)]  # fmt: skip
    assert sorted(marked) == [g for g, u in zip(games, unbounded, strict=True) if u]  # a bound there instead
    for line in bounds:  # hollow markers, not a line that reads as a rating
        assert line.get_linestyle() == "None" and line.get_markerfacecolor() == "none"
