"""Head-to-head statistics: counts that add up and flip, and cutechess-cli / fastchess Elo, error, LOS."""

from __future__ import annotations

import math

import pytest

from reports.stats.headtohead import WDL, Pentanomial, elo, estimate_pentanomial, estimate_wdl

ELO_75 = 400 * math.log10(3)  # Elo difference that makes 75 % the expected score, 190.85


def test_fastchess_check_value():
    # W=60, L=40, D=100: fastchess prints Elo: 34.86 +/- 34.16, LOS: 97.83 %.
    estimate = estimate_wdl(WDL(wins=60, draws=100, losses=40))
    assert estimate.score == pytest.approx(0.55)
    assert estimate.elo == pytest.approx(34.86, abs=0.005)
    assert estimate.error == pytest.approx(34.16, abs=0.005)
    assert estimate.los == pytest.approx(0.9783, abs=0.00005)


def test_elo_of_a_score():
    assert elo(0.75) == pytest.approx(ELO_75)
    assert elo(0.25) == pytest.approx(-ELO_75)
    assert elo(0.5) == 0.0 and math.copysign(1, elo(0.5)) == 1  # no -0.0 in a table
    assert elo(1.0) == math.inf and elo(1.2) == math.inf
    assert elo(0.0) == -math.inf and elo(-0.1) == -math.inf
    assert math.isnan(elo(math.nan))


def test_wdl_adds_up_and_flips():
    total = WDL(3, 2, 1) + WDL.from_result(1.0) + WDL.from_result(0.5) + WDL.from_result(0.0)
    assert total == WDL(4, 3, 2)
    assert (total.games, total.points) == (9, 5.5)
    assert total.flipped() == WDL(2, 3, 4)
    assert total.flipped().points == total.games - total.points
    with pytest.raises(ValueError):
        WDL.from_result(0.25)


def test_pentanomial_adds_up_and_flips():
    counts = [Pentanomial.from_pair_points(points) for points in (0, 0.5, 1, 1, 1.5, 2, 2, 2)]
    total = sum(counts, Pentanomial())
    assert total.counts == (1, 1, 2, 1, 3)
    assert total.pairs == 8
    assert total.flipped().counts == (3, 1, 2, 1, 1)
    with pytest.raises(ValueError):
        Pentanomial.from_pair_points(0.75)
    with pytest.raises(ValueError):
        Pentanomial.from_pair_points(2.5)


def test_pentanomial_estimate_by_hand():
    # Pair scores 1/2, 1/2, 1, 1: mu = 3/4, sigma = 1/4, SE = 1/4 / sqrt(4) = 1/8; LOS = Phi(2).
    estimate = estimate_pentanomial(Pentanomial(dd_wl=2, ww=2))
    assert estimate.score == pytest.approx(0.75)
    assert estimate.elo == pytest.approx(ELO_75)
    assert estimate.error == pytest.approx((elo(0.75 + 1.95996 / 8) - elo(0.75 - 1.95996 / 8)) / 2, rel=1e-4)
    assert estimate.los == pytest.approx(0.97725, abs=1e-5)


def test_pairing_removes_the_colour_effect_from_the_error():
    # Every pair is a win with one colour and a loss with the other: as games the result is noisy,
    # as pairs it is an exact 1/2.
    games = estimate_wdl(WDL(wins=50, losses=50))
    pairs = estimate_pentanomial(Pentanomial(dd_wl=50))
    assert games.elo == pairs.elo == 0.0
    assert games.error > 60
    assert pairs.error == 0.0
    assert pairs.los == 0.5


def test_estimate_turns_with_the_point_of_view():
    wdl = WDL(30, 20, 10)
    mine, theirs = estimate_wdl(wdl), estimate_wdl(wdl.flipped())
    assert theirs.elo == pytest.approx(-mine.elo)
    assert theirs.error == pytest.approx(mine.error)
    assert theirs.los == pytest.approx(1 - mine.los)
    penta = Pentanomial(1, 2, 3, 4, 5)
    assert estimate_pentanomial(penta.flipped()).elo == pytest.approx(-estimate_pentanomial(penta).elo)


def test_no_games_gives_nan():
    for estimate in (estimate_wdl(WDL()), estimate_pentanomial(Pentanomial())):
        assert all(map(math.isnan, (estimate.score, estimate.elo, estimate.error, estimate.los)))


def test_all_wins_and_all_losses():
    wins = estimate_wdl(WDL(wins=10))
    assert (wins.score, wins.elo, wins.los) == (1.0, math.inf, 1.0)
    assert math.isnan(wins.error)
    losses = estimate_pentanomial(Pentanomial(ll=5))
    assert (losses.score, losses.elo, losses.los) == (0.0, -math.inf, 0.0)
    assert math.isnan(losses.error)


def test_all_draws_has_no_spread():
    estimate = estimate_wdl(WDL(draws=20))
    assert (estimate.score, estimate.elo, estimate.error, estimate.los) == (0.5, 0.0, 0.0, 0.5)


def test_interval_reaching_a_perfect_score_is_unbounded():
    # 9 wins 1 draw: mu = 0.95, SE = 0.15 / sqrt(10); mu + 1.96 SE > 1.
    estimate = estimate_wdl(WDL(wins=9, draws=1))
    assert estimate.elo == pytest.approx(elo(0.95))
    assert estimate.error == math.inf
    assert estimate.los > 0.999
