"""The generalized SPRT on pentanomial counts: LLR figures, bounds and decisions."""

from __future__ import annotations

import math

import pytest

from reports.sprt import Sprt, bounds, llr
from reports.stats import Pentanomial

# Reference LLRs, computed independently of reports.sprt: the log-likelihood of the counts (empty
# cells as 0.001 pairs, fishtest's regularisation) maximised over the 5-outcome distributions whose
# mean score is each hypothesis' logistic expected score, by scipy's SLSQP on the simplex, H1 minus H0.
REFERENCE = [
    ((10, 20, 40, 25, 5), (0, 10), -0.437486232891),
    ((3, 20, 54, 30, 13), (0, 5), 0.885616624788),
    ((0, 5, 30, 10, 0), (-5, 0), 0.482059883183),
    ((50, 0, 0, 0, 60), (0, 100), -1.616694197620),
    ((1, 0, 2, 0, 0), (0, 150), -1.566452553615),
]


@pytest.mark.parametrize(("counts", "elos", "expected"), REFERENCE)
def test_llr_matches_the_constrained_maximum_likelihood(counts, elos, expected):
    assert llr(Pentanomial(*counts), *elos) == pytest.approx(expected, abs=1e-8)


def test_bounds_are_walds():
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944438979, abs=1e-9) and upper == pytest.approx(2.944438979, abs=1e-9)
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    for alpha, beta in ((0, 0.05), (0.05, 1), (0.6, 0.5)):
        with pytest.raises(ValueError):
            bounds(alpha, beta)


def test_flipping_the_counts_and_the_hypotheses_negates_the_llr():
    counts = Pentanomial(4, 11, 30, 17, 6)
    assert llr(counts.flipped(), -10, 0) == pytest.approx(-llr(counts, 0, 10), abs=1e-9)


def test_no_pairs_no_decision():
    status = Sprt(0, 10).status(Pentanomial())
    assert status.llr == 0.0 and status.decision is None
    assert "pairs 0" in status.format()


def test_decisions():
    sprt = Sprt(0, 100)
    assert sprt.status(Pentanomial(0, 0, 2, 5, 40)).decision == "H1"
    assert Sprt(0, 150).status(Pentanomial(10, 10, 20, 10, 10)).decision == "H0"
    middling = sprt.status(Pentanomial(1, 1, 2, 1, 2))
    assert middling.decision is None and middling.lower < middling.llr < middling.upper
    with pytest.raises(ValueError):
        Sprt(10, 0)
