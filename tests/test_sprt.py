"""The generalized SPRT on pentanomial counts: LLRs against fishtest and fastchess, bounds, decisions."""

from __future__ import annotations

import math

import pytest

from reports.stats.headtohead import Z95, Pentanomial
from reports.stats.sprt import NELO_PER_T, Sprt, bounds, estimate, llr

ELOS = ((0, 10), (0, 5), (-5, 0), (0, 100), (0, 150))

# fishtest, server/fishtest/stats/LLRcalc.py at commit b8eecff220b562a0dc2c4e68d1fa02521e06d72c, run
# from /tmp with this project's Python and scipy: LLR_logistic(elo0, elo1, list(counts)) and
# LLR_normalized(elo0, elo1, list(counts)) for each (elo0, elo1) in ELOS; counts (LL, LD, DD/WL, WD, WW).
# Its root searches are converged (brentq), so the figures should agree to rounding.
FISHTEST = [
    (
        "logistic",
        (3, 20, 54, 30, 13),
        (1.67122757937, 0.885616624788, 0.981199852611, -2.064167075, -15.466885225),
    ),
    (
        "logistic",
        (10, 20, 40, 25, 5),
        (-0.437486232891, -0.178564360416, -0.09841440973, -17.0737701379, -32.8690393082),
    ),
    (
        "logistic",
        (0, 5, 30, 10, 0),
        (0.648703919931, 0.378738870364, 0.482059883288, -9.02898017455, -17.735450688),
    ),
    (
        "logistic",
        (50, 0, 0, 0, 60),
        (0.242270514599, 0.132523871044, 0.155305814863, -1.61669419752, -5.63128174821),
    ),
    (
        "logistic",
        (1, 0, 2, 0, 0),
        (-0.0875131677967, -0.0434435179455, -0.0428166071534, -0.985834450065, -1.56645255361),
    ),
    (
        "logistic",
        (0, 0, 0, 0, 50),
        (1.41846390538, 0.714408750983, 0.724764491776, 12.3484938811, 17.0653166636),
    ),
    (
        "logistic",
        (223, 9863, 21279, 10037, 246),
        (-107.57274226, -20.8754577758, 45.0816640402, -9736.35237498, -17592.9466018),
    ),
    (
        "normalized",
        (3, 20, 54, 30, 13),
        (1.1740409267, 0.61106868731, 0.659050659775, 2.96678472924, -2.83500553776),
    ),
    (
        "normalized",
        (10, 20, 40, 25, 5),
        (-0.282112915655, -0.120462104704, -0.0790816157604, -9.90659098277, -20.1827777658),
    ),
    (
        "normalized",
        (0, 5, 30, 10, 0),
        (0.315790148793, 0.167038444214, 0.185330909687, -0.141904487821, -2.94939777968),
    ),
    (
        "normalized",
        (50, 0, 0, 0, 60),
        (0.315882250255, 0.180732462809, 0.226287456561, -4.4664775211, -11.6482738863),
    ),
    (
        "normalized",
        (1, 0, 2, 0, 0),
        (-0.0725160112169, -0.0357356529163, -0.0346985530291, -0.909794833321, -1.49307342298),
    ),
    (
        "normalized",
        (0, 0, 0, 0, 50),
        (1.99328630296, 1.00719462378, 1.02790216942, 15.9956153486, 20.9718760415),
    ),
    (
        "normalized",
        (223, 9863, 21279, 10037, 246),
        (-22.1118714236, -2.43299642158, 14.8166707322, -3240.58412539, -7100.92281283),
    ),
]

# fastchess, app/src/matchmaking/sprt/sprt.cpp at commit 74deac23aadc6718fa0f8e24ac95d16392d79444,
# compiled (g++ 12, -O2) with stub logger/Stats headers and a driver printing
# SPRT(0.05, 0.05, elo0, elo1, model, true).getLLR(Stats(LL, LD, DD/WL, 0, WD, WW), true) with %.12g.
# fastchess stops its logistic root search at |theta error| <= 1e-3 and its normalized fixed point at
# 1e-4, so it is off the converged value (fishtest's, ours) by up to 7e-4 relative here: 1e-3 allowed.
FASTCHESS = [
    (
        "logistic",
        (3, 20, 54, 30, 13),
        (1.67122732114, 0.885617164002, 0.98120063852, -2.06416787292, -15.4668847374),
    ),
    (
        "logistic",
        (10, 20, 40, 25, 5),
        (-0.437486413608, -0.17856446124, -0.0984145460963, -17.0737704335, -32.8690397521),
    ),
    (
        "logistic",
        (0, 5, 30, 10, 0),
        (0.648704229715, 0.378738882574, 0.482059606138, -9.02895121735, -17.7349728001),
    ),
    (
        "logistic",
        (50, 0, 0, 0, 60),
        (0.242270518839, 0.132523872103, 0.155305813813, -1.6166936051, -5.63127965822),
    ),
    (
        "logistic",
        (1, 0, 2, 0, 0),
        (-0.0874934022296, -0.0434132452261, -0.0428166277807, -0.985834425768, -1.56642689629),
    ),
    (
        "logistic",
        (0, 0, 0, 0, 50),
        (1.41846384785, 0.714408722632, 0.724764464228, 12.3430822134, 17.0599047337),
    ),
    (
        "logistic",
        (223, 9863, 21279, 10037, 246),
        (-107.572622902, -20.8753300485, 45.0815414884, -9736.35234946, -17592.9465804),
    ),
    (
        "normalized",
        (3, 20, 54, 30, 13),
        (1.17404092674, 0.611068687312, 0.659050659781, 2.96678472642, -2.83500571542),
    ),
    (
        "normalized",
        (10, 20, 40, 25, 5),
        (-0.282112915655, -0.120462104704, -0.0790816157604, -9.90659098957, -20.1827778115),
    ),
    (
        "normalized",
        (0, 5, 30, 10, 0),
        (0.315790148819, 0.167038444216, 0.185330909692, -0.141904487959, -2.94939778045),
    ),
    (
        "normalized",
        (50, 0, 0, 0, 60),
        (0.315882250255, 0.180732462809, 0.226287456561, -4.4664775211, -11.6482738914),
    ),
    (
        "normalized",
        (1, 0, 2, 0, 0),
        (-0.0725160112587, -0.0357356529173, -0.0346985530301, -0.909794833371, -1.49307342421),
    ),
    (
        "normalized",
        (0, 0, 0, 0, 50),
        (1.99328630296, 1.00719462378, 1.02790216942, 15.9956153486, 20.9718760441),
    ),
    (
        "normalized",
        (223, 9863, 21279, 10037, 246),
        (-22.1118714237, -2.43299642157, 14.8166707322, -3240.58412897, -7100.9228574),
    ),
]


def _cases(table):
    return [
        (model, counts, elos, value)
        for model, counts, values in table
        for elos, value in zip(ELOS, values, strict=True)
    ]


@pytest.mark.parametrize(("model", "counts", "elos", "expected"), _cases(FISHTEST))
def test_llr_matches_fishtest(model, counts, elos, expected):
    assert llr(Pentanomial(*counts), *elos, model) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("model", "counts", "elos", "expected"), _cases(FASTCHESS))
def test_llr_matches_fastchess_to_its_tolerances(model, counts, elos, expected):
    assert llr(Pentanomial(*counts), *elos, model) == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize(
    ("counts", "elos", "model", "expected"),
    [
        # fastchess app/tests/sprt_test.cpp (same commit), "pentanomial" cases; Stats(LL, LD, WL, DD, WD, WW)
        # with WL and DD merged; it checks doctest::Approx(...).epsilon(0.01).
        ((365, 16618, 36029 + 200, 16974, 390), (0, 2), "normalized", 2.25),
        ((127, 4883, 10311 + 401, 5150, 104), (-1.75, 0.25), "normalized", 3.01),
        ((0, 0, 0, 0, 5550), (0, 5), "normalized", 111.82),
        ((223, 9863, 20279 + 1000, 10037, 246), (0.5, 2.5), "logistic", -3.07),
        ((871, 26175, 55003 + 980, 26678, 821), (0, 2), "logistic", -4.98),
    ],
)
def test_fastchess_own_test_figures(counts, elos, model, expected):
    assert llr(Pentanomial(*counts), *elos, model) == pytest.approx(expected, rel=0.01)


def test_normalized_model_where_the_references_fail():
    # Independent figures: the log-likelihood maximised under each hypothesis' t-value constraint by
    # scipy's SLSQP (softmax parametrisation, 32 starts, empty cells as 0.001 pairs), H1 minus H0.
    # A bound beyond ~232 nElo: fishtest's fixed point raises ValueError, fastchess prints nan.
    assert llr(Pentanomial(3, 20, 54, 30, 13), 0, 400, "normalized") == pytest.approx(
        -78.4340260176916, rel=1e-9
    )
    assert llr(Pentanomial(10, 20, 40, 25, 5), -300, -250, "normalized") == pytest.approx(
        15.352925297128, rel=1e-9
    )
    # Lopsided counts where the fixed point from the uniform distribution settles on a stationary
    # point that is not the maximum: fishtest gives 31.3257607712, fastchess 31.3257606559.
    assert llr(Pentanomial(0, 10, 47, 0, 20), -150, 0, "normalized") == pytest.approx(
        30.7108891422216, rel=1e-9
    )


def test_bounds_are_walds():
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944438979166, abs=1e-12)
    assert upper == pytest.approx(2.944438979166, abs=1e-12)
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    for alpha, beta in ((0, 0.05), (0.05, 0), (1, 0.05), (0.05, 1), (0.6, 0.5), (0.5, 0.5), (-0.1, 0.05)):
        with pytest.raises(ValueError):
            bounds(alpha, beta)


def _alpha_for(upper: float) -> float:
    """The alpha (= beta) whose upper bound ``ln((1 - alpha) / alpha)`` is ``upper``."""
    return 1 / (1 + math.exp(upper))


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_decisions_flip_at_the_bounds(model):
    strong, weak = Pentanomial(1, 5, 20, 15, 9), Pentanomial(9, 15, 20, 5, 1)
    for counts, decision in ((strong, "H1"), (weak, "H0")):
        value = llr(counts, 0, 20, model)
        assert value > 0 if decision == "H1" else value < 0
        for shift, expected in ((1e-6, None), (-1e-6, decision)):  # bounds just outside, just inside |LLR|
            alpha = _alpha_for(abs(value) * (1 + shift))
            status = Sprt(0, 20, alpha, alpha, model).status(counts)
            assert status.llr == value
            assert status.decision == expected, (counts, shift)


def test_the_decision_comes_with_the_first_pair_past_a_bound():
    sprt = Sprt(0, 100)
    counts, decided_at = Pentanomial(), None
    for step in range(200):
        counts += Pentanomial.from_pair_points((1.5, 2, 1, 2, 0.5)[step % 5])
        status = sprt.status(counts)
        if status.decision is not None:
            decided_at = step
            break
        assert status.lower < status.llr < status.upper
    assert decided_at is not None and status.decision == "H1" and status.llr >= status.upper


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize(
    "counts", [(4, 11, 30, 17, 6), (0, 5, 30, 10, 0), (1, 0, 2, 0, 0), (50, 0, 0, 0, 60)]
)
def test_flipping_the_counts_and_the_hypotheses_negates_the_llr(model, counts):
    penta = Pentanomial(*counts)
    for elo0, elo1 in ((0, 10), (-5, 20), (0, 150)):
        assert llr(penta.flipped(), -elo1, -elo0, model) == pytest.approx(
            -llr(penta, elo0, elo1, model), rel=1e-9
        )


def test_no_pairs_no_llr_no_decision():
    for model in ("logistic", "normalized"):
        assert llr(Pentanomial(), 0, 10, model) == 0.0  # fishtest and fastchess: about -4.1e-6
        status = Sprt(0, 10, model=model).status(Pentanomial())
        assert status.llr == 0.0 and status.decision is None
        assert math.isnan(status.elo) and math.isnan(status.los)
        assert (
            status.format() == f"pairs 0 [0, 0, 0, 0, 0]  Elo nan ({model})  LOS nan  LLR 0.00 [-2.94, 2.94]"
        )


def test_one_pair_already_has_an_llr():
    # As in fishtest and fastchess (empty cells as 0.001 pairs): one pair of two draws counts against
    # H1 = +10 (fishtest LLR_logistic(0, 10, [0, 0, 1, 0, 0]) = -0.0253313996484; fastchess -0.0253313997262).
    assert llr(Pentanomial(dd_wl=1), 0, 10) == pytest.approx(-0.0253313996484, rel=1e-9)


def test_bad_hypotheses_raise():
    for args in ((10, 0), (5, 5), (math.nan, 5), (0, math.inf)):
        with pytest.raises(ValueError):
            llr(Pentanomial(1, 2, 3, 2, 1), *args)
        with pytest.raises(ValueError):
            Sprt(*args)
    with pytest.raises(ValueError):
        llr(Pentanomial(1, 2, 3, 2, 1), 0, 10, "bayesian")
    with pytest.raises(ValueError):
        Sprt(0, 10, model="Logistic")
    with pytest.raises(ValueError):
        Sprt(0, 10, alpha=0)
    with pytest.raises(ValueError):
        Sprt(0, 1e6)  # expected score 1.0: no distribution on 0..1 other than all wins has it
    assert llr(Pentanomial(1, 2, 3, 2, 1), 0, 1e6, "normalized") < 0  # any t-value is reachable


@pytest.mark.parametrize(
    ("counts", "elo", "error", "nelo", "nelo_error", "los"),
    [
        # fastchess app/src/matchmaking/elo/elo_pentanomial.cpp (same commit), compiled with a driver
        # printing EloPentanomial(Stats(LL, LD, DD/WL, 0, WD, WW)): diff(), error(), nEloDiff(),
        # nEloError(), los().
        ((3, 20, 54, 30, 13), 43.65778777, 29.8222385756, 65.1951258891, 43.9558586818, 0.9982),
        ((10, 20, 40, 25, 5), -8.68769987729, 34.9871239048, -12.0019631493, 48.1512306691, 0.3126),
        ((0, 5, 30, 10, 0), 19.3218718298, 28.9123216479, 48.1806468663, 71.7796166509, 0.9058),
        ((0, 0, 2, 0, 2), 190.848501888, 457.953250767, 245.674058549, 240.756153345, 0.9772),
    ],
)
def test_estimates_match_fastchess(counts, elo, error, nelo, nelo_error, los):
    penta = Pentanomial(*counts)
    logistic, normalized = estimate(penta), estimate(penta, "normalized")
    assert (logistic.elo, logistic.error) == pytest.approx((elo, error), rel=1e-9)
    assert (normalized.elo, normalized.error) == pytest.approx((nelo, nelo_error), rel=1e-9)
    assert logistic.los == normalized.los == pytest.approx(los, abs=5e-5)
    assert normalized.error == pytest.approx(Z95 * NELO_PER_T / math.sqrt(2 * penta.pairs))


def test_normalized_estimate_edge_cases():
    all_wins = estimate(Pentanomial(ww=7), "normalized")  # fastchess: inf, nan
    assert all_wins.elo == math.inf and math.isnan(all_wins.error) and all_wins.los == 1.0
    all_draws = estimate(Pentanomial(dd_wl=3), "normalized")  # fastchess: nan (0 / 0)
    assert math.isnan(all_draws.elo) and math.isnan(all_draws.error)
    assert estimate(Pentanomial(ll=2), "normalized").elo == -math.inf
    with pytest.raises(ValueError):
        estimate(Pentanomial(ww=1), "bayesian")


def test_status_line():
    status = Sprt(0, 10).status(Pentanomial(3, 20, 54, 30, 13))
    assert status.format() == (
        "pairs 120 [3, 20, 54, 30, 13]  Elo +43.7 +- 29.8 (logistic)  LOS 99.8 %  LLR 1.67 [-2.94, 2.94]"
    )
    normalized = Sprt(0, 10, 0.05, 0.1, "normalized").status(Pentanomial(3, 20, 54, 30, 13))
    assert normalized.format() == (
        "pairs 120 [3, 20, 54, 30, 13]  Elo +65.2 +- 44.0 (normalized)  LOS 99.8 %  LLR 1.17 [-2.25, 2.89]"
    )
    assert normalized.decision is None and normalized.model == "normalized"
    assert (
        Sprt(0, 10, model="normalized").describe()
        == "elo0 0, elo1 10, alpha 0.05, beta 0.05 (normalized Elo)"
    )


def test_a_perfect_score_reads_as_such_in_the_status_line():
    line = Sprt(0, 100, 0.05, 0.05).status(Pentanomial(ww=12)).format()
    assert "Elo +inf, every pair won, (logistic)" in line and "nan" not in line


def test_the_stop_rule_counts_the_pairs_of_its_two_entrants_as_their_games_end():
    """SprtStop, fed games one at a time in any order, holds A's pentanomial counts against B as the
    batch count of the stored games does, and grouping a third game into a pair is refused."""
    import random

    from reports.stats.stopping import SprtStop
    from reports.stats.tally import oriented, pentanomials
    from tests.records import settings_for, synthetic_records

    records = synthetic_records(("beta", "alpha"), 12)
    random.Random(3).shuffle(records)
    stop = SprtStop(settings_for(("beta", "alpha"), 12, sprt=(0.0, 10.0, 0.05, 0.05)))
    for record in records[:-1]:
        stop.add([record])
    stop.add(records[-1:])
    assert stop.games == 24
    assert stop.counts == oriented(pentanomials(records), "beta", "alpha") and stop.counts.pairs == 12
    assert stop.status == stop.sprt.status(stop.counts)
    with pytest.raises(ValueError, match="not two games with colours swapped"):
        stop.add(records[:1])
