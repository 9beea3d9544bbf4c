"""Sequential probability ratio test (SPRT) on game pairs, as fastchess and fishtest compute it.

Hypotheses on the Elo difference of A over B, in one of two Elo models: H0 ``elo = elo0`` against
H1 ``elo = elo1`` (``elo0 < elo1``; in practice "at most elo0" against "at least elo1").

Samples are game pairs with colours swapped, counted as :class:`reports.stats.headtohead.Pentanomial`
``(LL, LD, DD/WL, WD, WW)``; a pair scores ``a = 0, 1/4, 1/2, 3/4, 1`` per game. The statistic is
Michel Van den Bergh's generalized SPRT (GSPRT) over the five frequencies:

    ``LLR = sum_i n_i log(p1_i / p0_i)``,

``n_i`` the counts, ``p_j`` the maximum-likelihood distribution of the five outcomes subject to
hypothesis ``j``'s constraint. Both reference implementations first replace every empty cell by
0.001 pairs (``regularize``), here too, so that every ``p_i > 0`` and the LLR exists from the first
pair on. The models (fastchess ``--sprt model=``; fishtest ``elo_model``):

* ``logistic``: the mean score is the expected score of a logistic Elo difference,
  ``mu = 1 / (1 + 10^(-elo / 400))``. The constrained maximum is ``p_i = f_i / (1 + theta (a_i - mu))``
  with ``f`` the frequencies and ``theta`` the root of ``sum_i f_i (a_i - mu) / (1 + theta (a_i - mu))
  = 0`` (M. Van den Bergh, "Comparing the approximations for the generalized log likelihood ratio of
  a multinomial distribution", Proposition 1.1, https://www.cantate.be/Fishtest/).
* ``normalized``: normalized Elo ``nElo = t * 800 / ln(10)`` with ``t = (mu - 1/2) / sigma_game`` the
  t-value of one game. Pairs are constrained by their own t-value, ``(mu - 1/2) / sigma = sqrt(2) *
  nElo * ln(10) / 800``, ``sigma`` the standard deviation of the pair score (per game, 0..1), since
  ``sigma_game = sqrt(2) sigma`` for pairs. The constrained maximum is ``p_i = f_i / (1 + theta
  phi_i)`` with ``phi_i = a_i - 1/2 - t sigma (1 + ((a_i - mu) / sigma)^2) / 2``, ``mu, sigma`` those of
  ``p`` itself (M. Van den Bergh, "Comments on normalized Elo", section 4.1,
  https://www.cantate.be/Fishtest/normalized_elo_practical.pdf). The references find it by a fixed
  point iteration; here by a one-dimensional root search (:func:`_mle_t_value` says why).

Sources for every formula: fastchess ``app/src/matchmaking/sprt/sprt.cpp`` and
``app/src/matchmaking/elo/elo_pentanomial.cpp``; fishtest ``server/fishtest/stats/LLRcalc.py``.
Differences from them, found by running both on the same counts (tests/test_sprt.py):

* fishtest agrees to about 1e-10 relative wherever its fixed point reaches the maximum.
* fastchess stops its root searches early (``theta`` to 1e-3 in the logistic model, the fixed
  point at 1e-4 within 10 rounds): its LLRs are off by up to about 1e-3 relative (logistic) and, in
  the normalized model on very lopsided counts, by several per cent.
* Both start the normalized fixed point from the uniform distribution: for a bound beyond about
  232 nElo fishtest raises ValueError and fastchess returns NaN (never deciding); on rare lopsided
  counts the iteration settles on a stationary point that is not the maximum, giving a different
  LLR. Here every bound works and the maximum is taken.

Stopping bounds (Wald 1945): ``lower = ln(beta / (1 - alpha))``, ``upper = ln((1 - beta) / alpha)``;
``LLR >= upper`` accepts H1, ``LLR <= lower`` accepts H0 (fastchess' comparisons; fishtest also
corrects the bounds for the expected overshoot, which is not done here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reports.stats.headtohead import Z95, EloEstimate, Pentanomial, estimate_pentanomial

__all__ = ["MODELS", "NELO_PER_T", "Sprt", "SprtStatus", "bounds", "estimate", "expected_score", "llr"]

MODELS: tuple[str, ...] = ("logistic", "normalized")
"""The supported Elo models, fastchess' two non-Bayesian ones."""

NELO_PER_T = 800 / math.log(10)
"""nElo per unit of one game's t-value: ``800 / ln(10) = 347.44`` (fishtest ``nelo_divided_by_nt``)."""

_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""Score per game of the pentanomial outcomes LL, LD, DD/WL, WD, WW."""

_PRIOR = 1e-3
"""Pairs counted in an empty cell (fastchess and fishtest ``regularize``)."""

_GRID = 33
"""Points at which the normalized model looks for sign changes of ``h`` in each interval."""


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`` of the LLR.

    ``alpha`` is the false positive rate (H1 accepted when H0 holds), ``beta`` the false negative
    rate. Raises ValueError unless ``0 < alpha < 1``, ``0 < beta < 1`` and ``alpha + beta < 1``
    (fastchess' checks; the bounds are then finite with lower < 0 < upper).

    >>> [round(bound, 3) for bound in bounds(0.05, 0.05)]
    [-2.944, 2.944]
    """
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def expected_score(elo: float) -> float:
    """Expected score per game (0..1) of a logistic Elo difference: ``1 / (1 + 10^(-elo / 400))``.

    >>> expected_score(0.0), round(expected_score(100.0), 3)
    (0.5, 0.64)
    """
    score: float = 1.0 / (1.0 + 10.0 ** (-elo / 400.0))
    return score


def _check(elo0: float, elo1: float, model: str) -> None:
    if model not in MODELS:
        raise ValueError(f"unknown SPRT model {model!r}; choose one of {', '.join(MODELS)}")
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError("elo0 and elo1 must be finite")
    if not elo0 < elo1:
        raise ValueError("elo0 must be smaller than elo1")
    if model == "logistic" and not (expected_score(elo0) > 0.0 and expected_score(elo1) < 1.0):
        raise ValueError("elo0 and elo1 are too far from 0 for a logistic expected score below 1")


def _secular(freq: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """``p_i = freq_i / (1 + theta phi_i)``, ``theta`` the root of ``sum_i freq_i phi_i / (1 + theta phi_i)``.

    ``freq > 0`` sums to 1 and ``phi`` has both signs; the function of ``theta`` falls from ``+inf`` to
    ``-inf`` on ``(-1 / max phi, -1 / min phi)``, where every ``1 + theta phi_i > 0``. At the root every
    term ``p_i phi_i`` is at most ``|phi_i|``, so the root lies at least ``min(freq) / max|phi|`` inside
    either end: a bracket 1 % of that inside the ends holds it. ``p`` then sums to 1 and has
    ``sum_i p_i phi_i = 0``.
    """
    from scipy.optimize import brentq  # here: 0.8 s to import, which every connectx command would pay

    edge = 0.01 * freq.min() / np.abs(phi).max()
    theta = brentq(
        lambda x: float(np.sum(freq * phi / (1.0 + x * phi))),
        -1.0 / phi.max() + edge,
        -1.0 / phi.min() - edge,
        xtol=1e-300,  # as close as floating point goes (brentq's rtol, 4 eps, is the limit)
        maxiter=500,
    )
    probabilities: np.ndarray = freq / (1.0 + theta * phi)
    return probabilities


def _mle_mean(freq: np.ndarray, mu: float) -> np.ndarray:
    """The maximum-likelihood distribution for frequencies ``freq`` with mean score ``mu`` (0 < mu < 1)."""
    return _secular(freq, _SCORES - mu)


def _p_given_mean(mu: float, freq: np.ndarray, t: float) -> np.ndarray:
    """For ``t > 0``: the candidate ``p(mu) = freq / (1 + theta phi)`` with ``sigma = (mu - 1/2) / t``."""
    sigma = (mu - 0.5) / t
    return _secular(freq, _SCORES - 0.5 - t * (sigma**2 + (_SCORES - mu) ** 2) / (2.0 * sigma))


def _mean_gap(mu: float, freq: np.ndarray, t: float, piece: tuple[float, float, float, float]) -> float:
    """``h(mu) = mean(p(mu)) - mu`` on ``piece = (low, high, a_low, a_high)``, with its limits at the ends."""
    low, high, a_low, a_high = piece
    if mu == low:
        return a_low - mu
    if mu == high and high < 1.0:
        return a_high - mu
    return float(np.dot(_p_given_mean(mu, freq, t), _SCORES)) - mu


def _mle_t_value(freq: np.ndarray, t: float) -> np.ndarray:
    """The maximum-likelihood distribution for frequencies ``freq`` with ``(mu - 1/2) / sigma = t``.

    Its stationary points are ``p_i = freq_i / (1 + theta phi_i)`` with ``phi_i = a_i - 1/2 - t (sigma^2
    + (a_i - mu)^2) / (2 sigma)``, ``mu`` and ``sigma`` those of ``p`` (Van den Bergh, section 4.1).
    fastchess and fishtest iterate that as a fixed point from the uniform distribution, which fails
    when no ``phi_i`` is positive at the start (bounds beyond about 232 nElo), and may settle on a
    stationary point that is not the maximum. Here ``mu`` is solved for instead: for ``t > 0`` put
    ``sigma = (mu - 1/2) / t``, take ``p(mu)`` from the secular equation and find the roots of ``h(mu) =
    mean(p(mu)) - mu``: each root meets the constraint, every stationary point is one, and the most
    likely root wins. ``p(mu)`` exists where some ``phi_i > 0``, i.e. ``|mu - a_k| < (a_k - 1/2) /
    sqrt(1 + t^2)`` for ``a_k = 3/4`` or 1 (two pieces when they do not overlap); towards either end of
    a piece, ``p(mu)`` concentrates on that ``a_k`` and ``h`` tends to ``a_k - mu``, so ``h`` changes sign
    in every piece. Roots are bracketed by sign changes on a grid of 33 points per piece (two roots
    closer than a grid step are not seen). A negative ``t`` is the positive one with the outcomes
    reversed; ``t = 0`` is the constraint ``mu = 1/2``.
    """
    from scipy.optimize import brentq  # here, as in _secular

    if t == 0.0:
        return _mle_mean(freq, 0.5)
    if t < 0.0:
        return _mle_t_value(freq[::-1], -t)[::-1]
    half = 1.0 / math.sqrt(1.0 + t * t)
    if half > 1.0 / 3.0:  # the pieces of 3/4 and 1 overlap
        pieces = [(0.75 - 0.25 * half, 1.0, 0.75, 1.0)]
    else:
        pieces = [(0.75 - 0.25 * half, 0.75 + 0.25 * half, 0.75, 0.75), (1.0 - 0.5 * half, 1.0, 1.0, 1.0)]
    best, best_likelihood = freq, -math.inf
    for piece in pieces:
        grid = [float(mu) for mu in np.linspace(piece[0], piece[1], _GRID)]
        gaps = [_mean_gap(mu, freq, t, piece) for mu in grid]
        for a, b, gap_a, gap_b in zip(grid, grid[1:], gaps, gaps[1:], strict=False):
            if gap_a * gap_b > 0.0 or gap_b == 0.0:  # a root at b is found as the next a
                continue
            if gap_a == 0.0:
                mu = a
            else:
                mu = brentq(_mean_gap, a, b, args=(freq, t, piece), xtol=1e-300, maxiter=500)
            p = _p_given_mean(mu, freq, t)
            likelihood = float(np.dot(freq, np.log(p)))
            if likelihood > best_likelihood:
                best, best_likelihood = p, likelihood
    return best


def _nelo_to_t(nelo: float) -> float:
    """t-value ``(mu - 1/2) / sigma`` of a game pair for a normalized Elo difference (per game)."""
    return math.sqrt(2.0) * nelo / NELO_PER_T


def llr(penta: Pentanomial, elo0: float, elo1: float, model: str = "logistic") -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) from pair counts (natural log).

    ``elo0``, ``elo1`` are Elo differences of the counted side in ``model`` (``"logistic"`` Elo or
    ``"normalized"`` Elo). Empty cells count as 0.001 pairs, as in fastchess and fishtest, so the value
    exists from the first pair on, whatever the spread of outcomes (one pair of two draws already gives
    a small negative LLR for ``elo0 = 0``). No pairs at all give 0.0 here (fastchess and fishtest then
    compute about -4e-6 from the five regularized cells alone). Counts never raise; ValueError for an
    unknown model, non-finite ``elo0``/``elo1``, ``elo0 >= elo1``, or logistic Elo so large that its
    expected score rounds to 1 (or 0).
    """
    _check(elo0, elo1, model)
    if penta.pairs == 0:
        return 0.0
    counts = np.array(penta.counts, dtype=float)
    counts[counts == 0] = _PRIOR
    freq = counts / counts.sum()
    if model == "logistic":
        p0, p1 = (_mle_mean(freq, expected_score(elo)) for elo in (elo0, elo1))
    else:
        p0, p1 = (_mle_t_value(freq, _nelo_to_t(elo)) for elo in (elo0, elo1))
    return float(np.sum(counts * (np.log(p1) - np.log(p0))))


def estimate(penta: Pentanomial, model: str = "logistic") -> EloEstimate:
    """Elo difference, 95 % error and LOS from pair counts, in ``model``'s Elo (fastchess' figures).

    ``logistic``: :func:`reports.stats.headtohead.estimate_pentanomial`. ``normalized``: normalized Elo
    ``(mu - 1/2) / sqrt(2 sigma^2) * 800 / ln(10)``, ``mu`` and ``sigma^2`` the mean and variance of
    the pair score per game (0..1), and the error fastchess prints, ``[nElo(mu + 1.95996 SE) -
    nElo(mu - 1.95996 SE)] / 2`` with ``SE = sigma / sqrt(pairs)``, which is ``1.95996 * 800 / ln(10)
    / sqrt(2 pairs)`` whatever the counts (fastchess ``EloPentanomial::scoreToNeloDiff``). ``score`` and
    LOS are the same in both models. No pairs: all ``nan``. Every pair alike (``sigma = 0``): nElo
    ``+-inf`` (``nan`` at score 1/2, where fastchess divides 0 by 0), error ``nan``. Raises
    ValueError for an unknown model.
    """
    if model not in MODELS:
        raise ValueError(f"unknown SPRT model {model!r}; choose one of {', '.join(MODELS)}")
    base = estimate_pentanomial(penta)
    if model == "logistic" or penta.pairs == 0:
        return base
    mu = base.score
    variance = float(np.dot(penta.counts, (_SCORES - mu) ** 2)) / penta.pairs
    if variance == 0.0:
        nelo = math.nan if mu == 0.5 else math.copysign(math.inf, mu - 0.5)
        return EloEstimate(mu, nelo, math.nan, base.los)
    nelo = (mu - 0.5) / math.sqrt(2.0 * variance) * NELO_PER_T
    error = Z95 * NELO_PER_T / math.sqrt(2.0 * penta.pairs)
    return EloEstimate(mu, nelo, error, base.los)


@dataclass(frozen=True, slots=True)
class SprtStatus:
    """Where an SPRT stands after the pairs in ``penta`` (counted from A's side).

    Attributes:
        penta: the pair counts.
        model: ``"logistic"`` or ``"normalized"``, the Elo of ``elo``, ``error`` and the hypotheses.
        elo: current estimate of A's Elo difference over B, in that model (:func:`estimate`).
        error: half-width of its 95 % interval, in that model's Elo.
        los: likelihood of superiority, 0..1.
        llr: log-likelihood ratio of H1 over H0 (natural log), :func:`llr`.
        lower, upper: the stopping bounds, :func:`bounds`.
        decision: ``"H0"`` (``llr <= lower``), ``"H1"`` (``llr >= upper``) or None (continue).
    """

    penta: Pentanomial
    model: str
    elo: float
    error: float
    los: float
    llr: float
    lower: float
    upper: float
    decision: str | None

    def format(self) -> str:
        """One line: pairs, counts ``[LL, LD, DD/WL, WD, WW]``, Elo, LOS, LLR [bounds]; for example
        ``pairs 120 [3, 20, 54, 30, 13]  Elo +43.7 +- 29.8 (logistic)  LOS 99.8 %  LLR 1.67 [-2.94, 2.94]``.
        """
        counts = ", ".join(map(str, self.penta.counts))
        if math.isnan(self.elo):
            elo = "nan"
        elif math.isinf(self.elo):  # every pair won (lost): no finite estimate yet
            elo = f"{self.elo:+}, every pair {'won' if self.elo > 0 else 'lost'},"
        else:
            elo = f"{self.elo:+.1f} +- {self.error:.1f}"
        los = "nan" if math.isnan(self.los) else f"{100 * self.los:.1f} %"
        return (
            f"pairs {self.penta.pairs} [{counts}]  Elo {elo} ({self.model})  LOS {los}  "
            f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}]"
        )


@dataclass(frozen=True, slots=True)
class Sprt:
    """An SPRT of H0 ``elo = elo0`` against H1 ``elo = elo1``, A's Elo over B in ``model``.

    ``alpha``: false positive rate, ``beta``: false negative rate. ``model``: ``"logistic"`` (the
    scale of :mod:`reports.stats.ratings`; the default here) or ``"normalized"`` (fastchess' default).
    Raises ValueError for an unknown model, ``elo0 >= elo1`` or bad ``alpha``, ``beta`` (see
    :func:`llr` and :func:`bounds`).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        _check(self.elo0, self.elo1, self.model)
        bounds(self.alpha, self.beta)

    def describe(self) -> str:
        """``elo0 0, elo1 10, alpha 0.05, beta 0.05 (logistic Elo)``."""
        return (
            f"elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g} "
            f"({self.model} Elo)"
        )

    def status(self, penta: Pentanomial) -> SprtStatus:
        """The test's state after the pairs counted in ``penta`` (from A's point of view); never raises."""
        lower, upper = bounds(self.alpha, self.beta)
        value = llr(penta, self.elo0, self.elo1, self.model)
        decision = "H1" if value >= upper else "H0" if value <= lower else None
        found = estimate(penta, self.model)
        return SprtStatus(penta, self.model, found.elo, found.error, found.los, value, lower, upper, decision)
