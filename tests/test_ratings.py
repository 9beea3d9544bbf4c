"""Joint Bradley-Terry ratings: hand-checkable fits, the prior, the anchor and bootstrap intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reports.ratings import rate
from reports.stats import WDL, estimate_wdl

ELO_75 = 400 * math.log10(3)  # a 75 % score, 190.85 Elo


def by_name(ratings):
    return {rating.name: rating for rating in ratings}


def test_two_players_75_percent():
    ratings = rate({("A", "B"): WDL(wins=75, losses=25)}, prior_draws=0, bootstrap=0)
    a, b = ratings
    assert (a.name, b.name) == ("A", "B")
    assert a.elo - b.elo == pytest.approx(ELO_75, abs=1e-4)
    assert a.elo + b.elo == pytest.approx(0, abs=1e-6)  # the pool mean is 0
    assert (a.games, a.score, b.games, b.score) == (100, 75, 100, 25)
    assert math.isnan(a.low) and math.isnan(a.high)


def test_a_draw_is_half_a_win_and_half_a_loss():
    draws = rate({("A", "B"): WDL(wins=50, draws=50)}, prior_draws=0, bootstrap=0)
    assert draws[0].elo - draws[1].elo == pytest.approx(ELO_75, abs=1e-4)


def test_tiny_prior_barely_moves_the_estimate():
    a, b = rate({("A", "B"): WDL(wins=750, losses=250)}, prior_draws=0.01, bootstrap=0)
    assert a.elo - b.elo == pytest.approx(ELO_75, abs=0.01)


def test_chain_of_three():
    # A-B and B-C are the edges of a tree: each difference is its own match's (both 75 %).
    h2h = {("A", "B"): WDL(wins=30, losses=10), ("B", "C"): WDL(wins=20, draws=20)}
    elo = {r.name: r.elo for r in rate(h2h, prior_draws=0, bootstrap=0)}
    assert elo["A"] - elo["B"] == pytest.approx(ELO_75, abs=1e-4)
    assert elo["B"] - elo["C"] == pytest.approx(ELO_75, abs=1e-4)
    assert elo["B"] == pytest.approx(0, abs=1e-4)


def test_symmetric_results_give_equal_ratings():
    # A beats B, B beats C, C beats A by the same margin.
    cycle = {("A", "B"): WDL(7, 2, 3), ("B", "C"): WDL(7, 2, 3), ("A", "C"): WDL(3, 2, 7)}
    for rating in rate(cycle, bootstrap=0):
        assert rating.elo == pytest.approx(0, abs=1e-4)


def test_fitted_ratings_solve_the_score_equations():
    # At the maximum likelihood every player's expected score equals its actual score (Ordo, Zermelo).
    rng = np.random.default_rng(7)
    names = "ABCDE"
    h2h = {(a, b): WDL(*rng.integers(1, 12, size=3)) for i, a in enumerate(names) for b in names[i + 1 :]}
    elo = {r.name: r.elo for r in rate(h2h, prior_draws=0, bootstrap=0)}
    for name in names:
        expected = actual = 0.0
        for (a, b), wdl in h2h.items():
            if name in (a, b):
                mine = wdl if name == a else wdl.flipped()
                other = b if name == a else a
                expected += wdl.games / (1 + 10 ** (-(elo[name] - elo[other]) / 400))
                actual += mine.points
        assert expected == pytest.approx(actual, abs=1e-4)


def test_anchor_pins_one_player_at_zero():
    h2h = {("A", "B"): WDL(wins=30, losses=10), ("B", "C"): WDL(wins=30, losses=10)}
    ratings = by_name(rate(h2h, prior_draws=0, anchor="C", bootstrap=50))
    assert ratings["C"].elo == 0.0
    assert (ratings["C"].low, ratings["C"].high) == (0.0, 0.0)
    assert ratings["B"].elo == pytest.approx(ELO_75, abs=1e-4)
    assert ratings["A"].elo == pytest.approx(2 * ELO_75, abs=1e-4)
    with pytest.raises(ValueError, match="anchor"):
        rate(h2h, anchor="D")


def test_perfect_score_stays_finite_with_the_prior():
    # 20 wins plus one virtual draw: 20.5 / 21 -> 400 log10(41) = 645.1 Elo.
    h2h = {("A", "B"): WDL(wins=20)}
    a, b = rate(h2h, prior_draws=1, bootstrap=20)
    assert a.elo - b.elo == pytest.approx(400 * math.log10(41), abs=1e-3)
    assert all(math.isfinite(value) for value in (a.elo, a.low, a.high, b.elo, b.low, b.high))
    with pytest.raises(ValueError, match="unbounded"):
        rate(h2h, prior_draws=0, bootstrap=0)


def test_perfect_score_of_a_group_is_unbounded_without_prior():
    # A and B share points, but both win every game against C.
    h2h = {("A", "B"): WDL(5, 0, 5), ("A", "C"): WDL(wins=4), ("B", "C"): WDL(wins=4)}
    with pytest.raises(ValueError, match="unbounded"):
        rate(h2h, prior_draws=0, bootstrap=0)
    assert all(math.isfinite(r.elo) for r in rate(h2h, bootstrap=0))


def test_players_who_never_met_cannot_be_rated():
    h2h = {("A", "B"): WDL(1, 1, 1), ("C", "D"): WDL(1, 1, 1)}
    with pytest.raises(ValueError, match="never met"):
        rate(h2h, bootstrap=0)


def test_bad_arguments():
    with pytest.raises(ValueError):
        rate({("A", "B"): WDL(1, 0, 1)}, prior_draws=-1)
    with pytest.raises(ValueError):
        rate({("A", "B"): WDL(1, 0, 1)}, bootstrap=-1)
    assert rate({}) == []


def test_bootstrap_interval_contains_estimate_and_shrinks_with_games():
    widths = []
    for scale in (1, 10):
        ratings = rate({("A", "B"): WDL(wins=30 * scale, draws=20 * scale, losses=10 * scale)}, bootstrap=100)
        for rating in ratings:
            assert rating.low < rating.elo < rating.high
        widths.append(ratings[0].high - ratings[0].low)
    # The width goes as 1 / sqrt(games): ten times the games, about a third of the width.
    assert widths[1] == pytest.approx(widths[0] / math.sqrt(10), rel=0.25)


def test_bootstrap_interval_agrees_with_the_match_error():
    # Two players, pool mean 0: each rating is +-diff/2, so its 95 % interval is about half the
    # cutechess-cli / fastchess error of the difference.
    wdl = WDL(wins=300, draws=200, losses=100)
    a, b = rate({("A", "B"): wdl}, bootstrap=200, seed=5)
    half_error = estimate_wdl(wdl).error / 2
    for rating in (a, b):
        assert (rating.high - rating.low) / 2 == pytest.approx(half_error, rel=0.15)


def test_bootstrap_is_reproducible_from_its_seed():
    h2h = {("A", "B"): WDL(6, 3, 4), ("A", "C"): WDL(5, 5, 3), ("B", "C"): WDL(4, 4, 5)}
    same = rate(h2h, bootstrap=40, seed=3), rate(h2h, bootstrap=40, seed=np.random.default_rng(3))
    assert same[0] == same[1]
    other = rate(h2h, bootstrap=40, seed=4)
    assert [r.low for r in other] != [r.low for r in same[0]]
    assert [r.elo for r in other] == [r.elo for r in same[0]]


def test_recovers_known_strengths():
    # Ten players 50 Elo apart, 60 games a pairing (2700 games): the fit finds them within the noise,
    # and the 95 % intervals cover the truth for nearly everyone.
    rng = np.random.default_rng(11)
    truth = {f"p{k}": 50.0 * k for k in range(10)}
    mean = np.mean(list(truth.values()))
    h2h = {}
    for a in truth:
        for b in truth:
            if a < b:
                expected = 1 / (1 + 10 ** (-(truth[a] - truth[b]) / 400))
                wins = int(rng.binomial(60, expected))
                h2h[a, b] = WDL(wins=wins, losses=60 - wins)
    ratings = rate(h2h, bootstrap=200, seed=0)
    assert [r.name for r in ratings][:2] == ["p9", "p8"] or ratings[0].name in ("p9", "p8")
    errors = [r.elo - (truth[r.name] - mean) for r in ratings]
    assert max(map(abs, errors)) < 60
    covered = sum(r.low <= truth[r.name] - mean <= r.high for r in ratings)
    assert covered >= 8


def test_a_perfect_score_still_gets_a_wide_interval():
    # Resampling A's own results would give 10-0 every time and a near-zero interval; drawing the
    # games from the fitted model lets A lose some, as its finite rating says it can.
    h2h = {("A", "B"): WDL(wins=10), ("A", "C"): WDL(wins=10), ("B", "C"): WDL(wins=5, losses=5)}
    a = by_name(rate(h2h, bootstrap=300, seed=1))["A"]
    assert a.low < a.elo < a.high
    assert a.high - a.low > 150
