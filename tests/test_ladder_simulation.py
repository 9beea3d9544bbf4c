"""The game model of ``benchmarks.ladder_matchmaking``: BayesElo's trinomial at the true difference (a
draw margin that gives equals 3 % draws, symmetric in the two players), a perfect player's side
winning every game, and game pairs whose scores follow the pentanomial of two independent games."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.ladder_matchmaking import chance, pair
from tournament.record import Termination


def test_equals_draw_3_percent_and_the_model_is_symmetric():
    win, draw = chance(0.0, 0.0)
    assert draw == pytest.approx(0.03, abs=0.002)
    assert win == pytest.approx((1 - draw) / 2)
    for a, b in ((400.0, 0.0), (-1000.0, -844.0)):
        win, draw = chance(a, b)
        back_win, back_draw = chance(b, a)
        assert draw == pytest.approx(back_draw)
        assert win + draw + back_win == pytest.approx(1.0)
    assert chance(0.0, 400.0)[0] < 0.1 < 0.9 < chance(400.0, 0.0)[0]


def test_a_player_of_a_higher_side_wins_every_game():
    assert chance(-5000.0, 3000.0, 1, 0) == (1.0, 0.0)
    assert chance(5000.0, -3000.0, -1, 0) == (0.0, 0.0)


def test_pairs_swap_colours_and_score_as_drawn():
    rng = np.random.default_rng(1)
    chances = chance(100.0, 0.0)
    scores, draws = [], 0
    for k in range(4000):
        first, second = pair(2 * k, "a", "b", chances, rng)
        assert (first.first, first.second, second.first, second.second) == ("a", "b", "b", "a")
        assert first.pair_id == second.pair_id == k
        points = first.result + (1.0 - second.result)
        scores.append(points)
        draws += sum(r.termination is Termination.DRAW for r in (first, second))
        assert all((r.result == 0.5) == (r.termination is Termination.DRAW) for r in (first, second))
    expected = chances[0] + chances[1] / 2
    assert np.mean(scores) / 2 == pytest.approx(expected, abs=0.015)
    assert draws / 8000 == pytest.approx(chances[1], abs=0.01)
    assert set(scores) == {0.0, 0.5, 1.0, 1.5, 2.0}  # the pentanomial's five outcomes
