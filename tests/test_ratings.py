"""Joint Bradley-Terry ratings: hand-checkable fits, unbounded players, intervals, LOS and the prior."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from reports.stats.headtohead import WDL, Pentanomial, estimate_wdl
from reports.stats.ratings import ELO_PER_NAT, los_matrix, rate

ELO_75 = 400 * math.log10(3)  # a 75 % score, 190.85 Elo


def by_name(ratings):
    return {rating.name: rating for rating in ratings}


def test_two_players_75_percent():
    a, b = rate({("A", "B"): WDL(wins=75, losses=25)}, intervals=False)
    assert (a.name, b.name) == ("A", "B")
    assert a.elo - b.elo == pytest.approx(ELO_75, abs=1e-4)
    assert a.elo + b.elo == pytest.approx(0, abs=1e-6)  # the pool mean is 0
    assert (a.games, a.score, b.games, b.score) == (100, 75, 100, 25)
    assert math.isnan(a.low) and math.isnan(a.high)


def test_a_draw_is_half_a_win_and_half_a_loss():
    draws = rate({("A", "B"): WDL(wins=50, draws=50)}, intervals=False)
    assert draws[0].elo - draws[1].elo == pytest.approx(ELO_75, abs=1e-4)


def test_chain_of_three():
    # A-B and B-C are the edges of a tree: each difference is its own match's (both 75 %).
    h2h = {("A", "B"): WDL(wins=30, losses=10), ("B", "C"): WDL(wins=20, draws=20)}
    elo = {r.name: r.elo for r in rate(h2h, intervals=False)}
    assert elo["A"] - elo["B"] == pytest.approx(ELO_75, abs=1e-4)
    assert elo["B"] - elo["C"] == pytest.approx(ELO_75, abs=1e-4)
    assert elo["B"] == pytest.approx(0, abs=1e-4)


def test_fitted_ratings_solve_the_score_equations():
    # At the maximum likelihood every player's expected score equals its actual score (Ordo, Zermelo).
    rng = np.random.default_rng(7)
    names = "ABCDE"
    h2h = {(a, b): WDL(*rng.integers(1, 12, size=3)) for i, a in enumerate(names) for b in names[i + 1 :]}
    elo = {r.name: r.elo for r in rate(h2h, intervals=False)}
    for name in names:
        expected = actual = 0.0
        for (a, b), wdl in h2h.items():
            if name in (a, b):
                mine = wdl if name == a else wdl.flipped()
                other = b if name == a else a
                expected += wdl.games / (1 + 10 ** (-(elo[name] - elo[other]) / 400))
                actual += mine.points
        assert expected == pytest.approx(actual, abs=1e-4)


def test_a_real_pool_matches_maximum_likelihood():
    # A 180-game round-robin (random, leftmost, one_step, minimax:depth=1, minimax:depth=2,
    # kaggle-negamax; 12 games a pairing). Ordo 1.2.6 puts random at -733 on these games.
    h2h = {
        ("leftmost", "random"): WDL(12, 0, 0),
        ("one_step", "random"): WDL(12, 0, 0),
        ("minimax1", "random"): WDL(12, 0, 0),
        ("minimax2", "random"): WDL(12, 0, 0),
        ("negamax", "random"): WDL(10, 1, 1),
        ("leftmost", "one_step"): WDL(0, 0, 12),
        ("leftmost", "minimax1"): WDL(0, 0, 12),
        ("leftmost", "minimax2"): WDL(0, 0, 12),
        ("leftmost", "negamax"): WDL(0, 0, 12),
        ("minimax1", "one_step"): WDL(6, 0, 6),
        ("minimax2", "one_step"): WDL(8, 1, 3),
        ("negamax", "one_step"): WDL(4, 1, 7),
        ("minimax1", "minimax2"): WDL(1, 0, 11),
        ("minimax1", "negamax"): WDL(7, 0, 5),
        ("minimax2", "negamax"): WDL(9, 1, 2),
    }
    ratings = by_name(rate(h2h))
    assert ratings["random"].elo == pytest.approx(-733.5, abs=0.5)
    assert ratings["minimax2"].elo == pytest.approx(466.3, abs=0.5)
    for rating in ratings.values():
        assert rating.low < rating.elo < rating.high
    # The weakest player's interval reaches further down than up: the likelihood is skewed there.
    random = ratings["random"]
    assert random.elo - random.low > random.high - random.elo


def test_a_perfect_scorer_is_first_with_a_bound_and_leaves_the_others_alone():
    rest = {("A", "B"): WDL(3, 2, 5), ("A", "C"): WDL(4, 1, 5), ("B", "C"): WDL(5, 0, 5)}
    perfect = rest | {(name, "T"): WDL(0, 0, 10) for name in "ABC"}
    without, with_t = by_name(rate(rest)), rate(perfect)
    top = with_t[0]
    assert top.name == "T" and top.elo == math.inf and top.high == math.inf
    assert math.isfinite(top.low) and top.low > max(r.elo for r in without.values())
    assert top.label() == f"> {top.low:+.0f}"
    for rating in with_t[1:]:
        assert rating.elo == pytest.approx(without[rating.name].elo, abs=1e-6)
        assert rating.low == pytest.approx(without[rating.name].low, abs=1e-3)


def test_the_bound_is_the_exact_five_percent_point():
    # B lost all 10 games to A, whose rating is 0: the bound is where 10 losses have probability 5 %.
    a, b = rate({("A", "B"): WDL(wins=10)}, anchor="A")
    assert (a.elo, b.elo, b.low) == (0.0, -math.inf, -math.inf)
    score = 0.05 ** (1 / 10)  # A's expected score per game at B's bound
    assert b.high == pytest.approx(-ELO_PER_NAT * math.log(score / (1 - score)), abs=0.05)
    assert b.label().startswith("< ")


def test_a_group_that_won_every_game_against_the_rest_is_above_it():
    # A and B share points, both win every game against C, D and E, who share points.
    pool = {("C", "D"): WDL(2, 0, 2), ("C", "E"): WDL(1, 1, 1), ("D", "E"): WDL(3, 0, 1)}
    h2h = pool | {("A", "B"): WDL(5, 0, 5)} | {(a, b): WDL(wins=4) for a in "AB" for b in "CDE"}
    ratings = rate(h2h)
    assert [r.name for r in ratings[:2]] in (["A", "B"], ["B", "A"])
    assert all(r.elo == math.inf and math.isfinite(r.low) for r in ratings[:2])
    assert all(r.is_finite for r in ratings[2:])
    assert sum(r.elo for r in ratings[2:]) == pytest.approx(0, abs=1e-6)  # the rated pool's mean is 0


def test_a_chain_of_unbounded_players_is_ordered():
    # C lost every game to everyone; B lost every game to the pool but beat C.
    h2h = {("A", "D"): WDL(3, 0, 3), ("A", "B"): WDL(wins=6), ("B", "D"): WDL(losses=6),
           ("A", "C"): WDL(wins=6), ("C", "D"): WDL(losses=6), ("B", "C"): WDL(wins=6)}  # fmt: skip
    ratings = rate(h2h)
    assert [r.name for r in ratings][2:] == ["B", "C"]
    los = los_matrix(h2h, order=[r.name for r in ratings])
    assert los[2, 3] == 1.0 and los[3, 2] == 0.0
    assert np.isnan(los.diagonal()).all()


def test_players_who_never_met_cannot_be_rated():
    h2h = {("A", "B"): WDL(1, 1, 1), ("C", "D"): WDL(1, 1, 1)}
    with pytest.raises(ValueError, match="never met"):
        rate(h2h)


def test_anchor_pins_one_player_at_zero():
    h2h = {("A", "B"): WDL(wins=30, losses=10), ("B", "C"): WDL(wins=30, losses=10)}
    ratings = by_name(rate(h2h, anchor="C"))
    assert (ratings["C"].elo, ratings["C"].low, ratings["C"].high) == (0.0, 0.0, 0.0)
    assert ratings["B"].elo == pytest.approx(ELO_75, abs=1e-4)
    assert ratings["A"].elo == pytest.approx(2 * ELO_75, abs=1e-4)
    with pytest.raises(ValueError, match="anchor"):
        rate(h2h, anchor="D")


def test_the_prior_is_an_option():
    # 20 wins plus one virtual draw: 20.5 / 21 -> 400 log10(41) = 645.1 Elo.
    a, b = rate({("A", "B"): WDL(wins=20)}, prior_draws=1)
    assert a.elo - b.elo == pytest.approx(400 * math.log10(41), abs=1e-3)
    assert all(math.isfinite(value) for value in (a.low, a.high, b.low, b.high))
    with pytest.raises(ValueError):
        rate({("A", "B"): WDL(1, 0, 1)}, prior_draws=-1)
    assert rate({}) == []


def test_interval_agrees_with_the_match_error_and_shrinks_with_games():
    # Two players, pool mean 0: each rating is +-diff/2, so its 95 % interval is about half the
    # cutechess-cli / fastchess error of the difference; ten times the games, a third of the width.
    # (Without draws: the model counts a draw as half a win, as Ordo does, which overstates the
    # variance of drawish games.)
    widths = []
    for scale in (1, 10):
        wdl = WDL(wins=40 * scale, losses=20 * scale)
        a, b = rate({("A", "B"): wdl})
        for rating in (a, b):
            assert rating.low < rating.elo < rating.high
            assert (rating.high - rating.low) / 2 == pytest.approx(estimate_wdl(wdl).error / 2, rel=0.15)
        widths.append(a.high - a.low)
    assert widths[1] == pytest.approx(widths[0] / math.sqrt(10), rel=0.1)


def test_pairs_whose_games_go_together_widen_the_interval():
    # 40 games, 20 pairs; as independent games, or as 10 WW and 10 LL pairs (no pair split).
    h2h = {("A", "B"): WDL(wins=20, losses=20)}
    independent = rate(h2h, {("A", "B"): Pentanomial(5, 0, 10, 0, 5)})[0]
    together = rate(h2h, {("A", "B"): Pentanomial(10, 0, 0, 0, 10)})[0]
    split = rate(h2h, {("A", "B"): Pentanomial(0, 0, 20, 0, 0)})[0]
    assert together.high - together.low > 1.3 * (independent.high - independent.low)
    assert split.high - split.low == pytest.approx(independent.high - independent.low)  # never narrower


def test_los_is_the_signed_likelihood_root():
    wdl = WDL(wins=110, losses=90)
    los = los_matrix({("A", "B"): wdl})
    assert los[0, 1] == pytest.approx(estimate_wdl(wdl).los, abs=0.01)
    assert los[0, 1] + los[1, 0] == pytest.approx(1)


def test_intervals_cover_known_strengths():
    # Ten players 50 Elo apart, 60 games a pairing: the 95 % intervals cover the truth about 95 %
    # of the time (benchmarks.rating_coverage measures it properly); here at least 8 of 10.
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
    ratings = rate(h2h)
    covered = sum(r.low <= truth[r.name] - mean <= r.high for r in ratings)
    assert covered >= 8 and binomtest(covered, 10, 0.95).pvalue > 0.01


def test_bounds_grow_along_a_chain_of_perfect_scorers():
    """T beat U, U beat V, V beat the pool, each every game: each bound lies beyond the next one's."""
    pool = {("A", "B"): WDL(3, 2, 5), ("A", "C"): WDL(4, 1, 5), ("B", "C"): WDL(5, 0, 5)}
    chain = {(low, high): WDL(losses=6) for high, lows in (("T", "UVABC"), ("U", "VABC"), ("V", "ABC"))
             for low in lows}  # fmt: skip
    ratings = rate(pool | chain)
    assert [r.name for r in ratings[:3]] == ["T", "U", "V"]
    t, u, v = ratings[:3]
    assert t.low > u.low > v.low > max(r.elo for r in ratings[3:])


def test_intervals_of_named_players_alone_are_those_of_the_full_fit():
    h2h = {
        ("A", "B"): WDL(wins=30, draws=5, losses=15),
        ("B", "C"): WDL(wins=25, losses=25),
        ("A", "C"): WDL(20, 0, 20),
    }
    full = {r.name: r for r in rate(h2h)}
    some = {r.name: r for r in rate(h2h, intervals={"B"})}
    assert (some["B"].low, some["B"].high) == (full["B"].low, full["B"].high)
    assert math.isnan(some["A"].low) and math.isnan(some["C"].high)
    assert [some[name].elo for name in "ABC"] == [full[name].elo for name in "ABC"]


@pytest.mark.parametrize("record", [WDL(1, 0, 1), WDL(1, 0, 2), WDL(1, 1, 3)])
def test_agents_with_the_same_games_are_ordered_by_name(record):
    # A and B played the same games against C and D: their ratings differ only by the fit's rounding.
    h2h = {("A", "C"): record, ("B", "C"): record, ("A", "B"): WDL(3, 1, 3), ("C", "D"): record.flipped(),
           ("A", "D"): WDL(2, 0, 1), ("B", "D"): WDL(2, 0, 1)}  # fmt: skip
    names = [rating.name for rating in rate(h2h)]
    assert names.index("A") == names.index("B") - 1
