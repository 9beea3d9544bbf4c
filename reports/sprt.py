"""Sequential probability ratio test (SPRT) on game pairs, as fastchess and fishtest run it.

Hypotheses on the logistic Elo difference of A over B: H0 ``elo <= elo0`` against H1
``elo >= elo1``. The expected score per game of a difference ``e`` is ``1 / (1 + 10^(-e/400))``.

The test statistic is Michel Van den Bergh's generalized SPRT over the pentanomial counts (pairs of
games with colours swapped, scoring 0, 1/4, 1/2, 3/4, 1 per game): for each hypothesis, the
maximum-likelihood distribution ``p`` of the five outcomes whose mean score is that hypothesis' score
``s`` is ``p_i = f_i / (1 + lam (a_i - s))``, ``f`` the observed frequencies and ``a`` the outcomes'
scores, with ``lam`` the root of ``sum_i f_i (a_i - s) / (1 + lam (a_i - s)) = 0``; the
log-likelihood ratio is ``LLR = sum_i n_i log(p1_i / p0_i)`` (M. Van den Bergh, "A practical
introduction to the GSPRT", 2016; fishtest ``server/fishtest/stats/LLRcalc.py``, fastchess
``matchmaking/sprt/sprt.cpp``). The test stops when ``LLR`` leaves ``(ln(beta / (1 - alpha)),
ln((1 - beta) / alpha))`` (Wald 1945): below, H0 is accepted; above, H1.

Elo model: logistic Elo, the scale of the ratings in :mod:`reports.ratings` and fastchess'
``logistic`` model. fastchess' default, ``normalized`` Elo, is not offered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from reports.stats import Pentanomial, estimate_pentanomial

__all__ = ["Sprt", "SprtStatus", "bounds", "llr"]

_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""Score per game of the pentanomial outcomes LL, LD, DD/WL, WD, WW."""


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``.

    Raises ValueError unless ``0 < alpha < 1``, ``0 < beta < 1`` and ``alpha + beta < 1``.
    """
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def expected_score(elo: float) -> float:
    """Expected score per game of a logistic Elo difference: ``1 / (1 + 10^(-elo / 400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _constrained(freq: np.ndarray, score: float) -> np.ndarray:
    """The maximum-likelihood distribution for observed frequencies ``freq`` (all > 0) with mean ``score``.

    ``p_i = freq_i / (1 + lam (a_i - score))``; ``lam`` is the root of ``sum_i p_i (a_i - score) = 0``
    in the interval where every ``1 + lam (a_i - score)`` is positive (it is monotone there).
    """
    shifted = _SCORES - score
    edge = 1e-12
    lam = brentq(
        lambda x: float(np.sum(freq * shifted / (1 + x * shifted))),
        -1 / shifted.max() + edge,
        -1 / shifted.min() - edge,
        xtol=1e-14,
    )
    return freq / (1 + lam * shifted)


def llr(penta: Pentanomial, elo0: float, elo1: float) -> float:
    """The generalized SPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) from pair counts.

    Empty cells are counted as 0.001 pairs (fishtest's ``regularize``), so the statistic exists from
    the first pair on; no pairs give 0.0. Raises ValueError for ``elo0 >= elo1``.
    """
    if elo0 >= elo1:
        raise ValueError("elo0 must be smaller than elo1")
    if penta.pairs == 0:
        return 0.0
    counts = np.maximum(np.array(penta.counts, dtype=float), 1e-3)
    freq = counts / counts.sum()
    p0 = _constrained(freq, expected_score(elo0))
    p1 = _constrained(freq, expected_score(elo1))
    return float(np.sum(counts * np.log(p1 / p0)))


@dataclass(frozen=True, slots=True)
class SprtStatus:
    """Where an SPRT stands: pair counts, the Elo estimate, the LLR and its bounds, and the decision.

    ``decision`` is ``"H0"``, ``"H1"`` or None (continue). ``elo``, ``error`` (95 %) and ``los`` are
    the pentanomial estimate of :func:`reports.stats.estimate_pentanomial` (logistic Elo).
    """

    penta: Pentanomial
    elo: float
    error: float
    los: float
    llr: float
    lower: float
    upper: float
    decision: str | None

    def format(self) -> str:
        """One line: pairs, counts ``[LL, LD, DD/WL, WD, WW]``, Elo, LOS, LLR [bounds]; for example
        ``pairs 120 [3, 20, 54, 30, 13]  Elo +43.7 +- 29.8  LOS 99.8 %  LLR 1.67 [-2.94, 2.94]``."""
        counts = ", ".join(map(str, self.penta.counts))
        elo = "nan" if math.isnan(self.elo) else f"{self.elo:+.1f} +- {self.error:.1f}"
        los = "nan" if math.isnan(self.los) else f"{100 * self.los:.1f} %"
        return (
            f"pairs {self.penta.pairs} [{counts}]  Elo {elo}  LOS {los}  "
            f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}]"
        )


@dataclass(frozen=True, slots=True)
class Sprt:
    """An SPRT of H0 ``elo <= elo0`` against H1 ``elo >= elo1`` (logistic Elo of A over B).

    Raises ValueError for ``elo0 >= elo1`` or bad ``alpha``, ``beta`` (see :func:`bounds`).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if self.elo0 >= self.elo1:
            raise ValueError("--elo0 must be smaller than --elo1")
        bounds(self.alpha, self.beta)

    def describe(self) -> str:
        """``elo0 0, elo1 10, alpha 0.05, beta 0.05 (logistic Elo)``."""
        return (
            f"elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g} (logistic Elo)"
        )

    def status(self, penta: Pentanomial) -> SprtStatus:
        """The test's state after the pairs counted in ``penta`` (from A's point of view)."""
        lower, upper = bounds(self.alpha, self.beta)
        value = llr(penta, self.elo0, self.elo1)
        decision = "H0" if value <= lower else "H1" if value >= upper else None
        estimate = estimate_pentanomial(penta)
        return SprtStatus(penta, estimate.elo, estimate.error, estimate.los, value, lower, upper, decision)
