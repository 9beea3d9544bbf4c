"""The ratings, intervals, bounds and LOS of the Newton-method fit (:mod:`reports.stats.newton`) agree,
to 1e-6 log-odds, with those of the code it replaced (scipy's trust-ncg minimisations and brentq
roots, bf906f2), stored in ``tests/data/ratings/before_newton.json``: random pools (2 to 9 players,
some pairings unplayed, some with perfect scorers, pairs that give ``phi > 1``) and degenerate ones
(perfect scorers, chains and groups of them, a player neither above nor below the pool, a pool of one,
groups that never met), each with no prior, one virtual draw, and an anchor; and the pool of the default
round robin's first 92 games, where three unbounded players' bounds, searched from far out with each
minimisation started where the last ended, came out at +11,129 Elo instead of +199."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from reports.stats.headtohead import WDL, Pentanomial
from reports.stats.ratings import ELO_PER_NAT, los_matrix, rate

CASES = json.loads((Path(__file__).parent / "data" / "ratings" / "before_newton.json").read_text())["cases"]
TOLERANCE = 1e-6 * ELO_PER_NAT  # 1e-6 log-odds, in Elo


def _label(case: dict) -> str:
    return f"{case['pool']}-prior{case['prior_draws']:g}-anchor{case['anchor']}"


@pytest.mark.parametrize("case", CASES, ids=_label)
def test_ratings_agree_with_the_scipy_fit(case):
    h2h = {(a, b): WDL(*wdl) for a, b, *wdl in case["h2h"]}
    pairs = {(a, b): Pentanomial(*counts) for a, b, *counts in case["pairs"]}
    if "error" in case:
        with pytest.raises(ValueError, match="never met"):
            rate(h2h, pairs)
        return
    ratings = {r.name: r for r in rate(h2h, pairs, prior_draws=case["prior_draws"], anchor=case["anchor"])}
    assert ratings.keys() == case["ratings"].keys()
    for name, before in case["ratings"].items():
        now = ratings[name]
        for value, expected in zip((now.elo, now.low, now.high), before, strict=True):
            if math.isfinite(expected):
                assert value == pytest.approx(expected, abs=TOLERANCE), name
            else:
                assert value == expected or (math.isnan(value) and math.isnan(expected)), name
    if "los" in case:
        los = los_matrix(h2h, pairs, prior_draws=case["prior_draws"])
        np.testing.assert_allclose(los, np.array(case["los"]), atol=1e-6, rtol=0)
