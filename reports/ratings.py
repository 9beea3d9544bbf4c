"""Joint Elo ratings of a pool of players: maximum-likelihood Bradley-Terry with bootstrap intervals.

Model (Bradley-Terry in Elo units, as Ordo fits it): the expected score of A against B is
``1 / (1 + 10^(-(R_A - R_B) / 400))``, and a draw counts as half a win and half a loss. The ratings
maximise the likelihood of all games, computed from a pair-score table (points and games of every
pairing), so fitting costs the same for any number of games.

Prior: a player who won (or lost) every game has an infinite maximum-likelihood rating. As in
BayesElo (Rémi Coulom), whose prior is a number of virtual draws (2 by default there), every pairing
that met gets ``prior_draws`` virtual draws before fitting. That keeps every rating finite, pulls
ratings slightly together (less so the more games a pairing has), and leaves symmetric results
symmetric. ``prior_draws=0`` gives the plain maximum-likelihood estimate.

Anchor: ratings are relative; by default their mean over the pool is 0 Elo, or ``anchor`` names a
player held at 0.

Intervals: 95 % parametric bootstrap, as Ordo's simulations compute them. The schedule is kept
(every pairing plays as many games as it did) and each pairing's games are drawn again from the
fitted model: expected score ``s`` from the fitted ratings, the pairing's observed draw rate (capped
at what ``s`` allows), wins ``s - d/2``, losses ``1 - s - d/2``; the ratings are refitted and
anchored, and the interval is the estimate ± 1.96 standard deviations of each player's refitted
ratings (Ordo's error bars; percentiles of a model-drawn bootstrap need not contain the
estimate). Drawing from the model rather than from the observed results matters for lopsided
pairings: a player who won every game would resample to the same perfect score every time, and its
interval would show only the prior.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from reports.stats import WDL
from reports.tally import Matchup, entrants, totals

__all__ = ["Rating", "rate"]

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of log-odds: the logistic Elo curve is ``expit(diff / ELO_PER_NAT)``."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating.

    Attributes:
        name: entrant name.
        elo: rating in Elo, relative to the anchor.
        low, high: 95 % bootstrap interval in Elo (``nan`` without bootstrap).
        games: games played.
        score: points scored (wins + draws / 2) in those games.
    """

    name: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def rate(
    h2h: Mapping[Matchup, WDL],
    *,
    prior_draws: float = 1.0,
    anchor: str | None = None,
    bootstrap: int = 200,
    seed: int | np.random.Generator = 0,
) -> list[Rating]:
    """Rate every player of ``h2h`` jointly, best first (ties by name).

    Args:
        h2h: wins, draws and losses of ``a`` against ``b`` per pairing ``(a, b)``
            (:func:`reports.tally.head_to_head`).
        prior_draws: virtual draws added to every pairing that met (BayesElo's prior); >= 0.
        anchor: a player rated 0 Elo; ``None`` puts the pool mean at 0.
        bootstrap: number of resamples for the intervals; 0 skips them (``low``, ``high`` are nan).
        seed: seed of, or a numpy Generator for, the resampling.

    Raises:
        ValueError: ``prior_draws < 0``, ``bootstrap < 0``, an ``anchor`` that did not play, or ratings
            that the games do not bound: the pool splits into groups that never met, or (with
            ``prior_draws=0``, in the data or a resample of it) a group scored every point, or none,
            against the rest.
    """
    if prior_draws < 0 or bootstrap < 0:
        raise ValueError("prior_draws and bootstrap must be >= 0")
    names = entrants(h2h)
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} did not play")
    if not names:
        return []
    index = {name: k for k, name in enumerate(names)}
    first = np.array([index[a] for a, _ in h2h])
    second = np.array([index[b] for _, b in h2h])
    counts = np.array([(wdl.wins, wdl.draws, wdl.losses) for wdl in h2h.values()])
    games = counts.sum(axis=1)
    pool = _Pool(len(names), first, second, games + prior_draws)

    def fit(wins: np.ndarray, draws: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        logits = pool.fit(wins + draws / 2 + prior_draws / 2, start)
        shifted = logits - (logits.mean() if anchor is None else logits[index[anchor]])
        return shifted * ELO_PER_NAT

    elo = fit(counts[:, 0], counts[:, 1])
    low = high = np.full(len(names), math.nan)
    if bootstrap:
        rng = np.random.default_rng(seed)
        samples = rng.multinomial(games, _model_wdl(elo, first, second, counts), size=(bootstrap, len(games)))
        start = (elo - elo[0]) / ELO_PER_NAT
        refits = np.array([fit(sample[:, 0], sample[:, 1], start) for sample in samples])
        spread = 1.959964 * refits.std(axis=0, ddof=1)
        low, high = elo - spread, elo + spread
    played = totals(h2h)
    ratings = [
        Rating(name, float(elo[k]), float(low[k]), float(high[k]), played[name].games, played[name].points)
        for k, name in enumerate(names)
    ]
    return sorted(ratings, key=lambda r: (-r.elo, r.name))


def _model_wdl(elo: np.ndarray, first: np.ndarray, second: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Win/draw/loss probabilities of each pairing under the fitted ratings, shape (pairings, 3).

    The expected score ``s`` comes from the Elo difference; the draw probability is the pairing's
    observed draw rate, capped at ``2 min(s, 1 - s)`` so that no probability is negative.
    """
    score = expit((elo[first] - elo[second]) / ELO_PER_NAT)
    draws = np.minimum(counts[:, 1] / counts.sum(axis=1), 2 * np.minimum(score, 1 - score))
    wdl = np.stack([score - draws / 2, draws, 1 - score - draws / 2], axis=1)
    return np.clip(wdl, 0.0, 1.0) / np.clip(wdl, 0.0, 1.0).sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class _Pool:
    """The schedule of a pool: ``size`` players, pairings ``first[k]`` v ``second[k]``, ``games[k]`` each."""

    size: int
    first: np.ndarray
    second: np.ndarray
    games: np.ndarray

    def fit(self, points: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """Maximum-likelihood ratings in log-odds units, player 0 at 0, given ``first``'s points per pairing.

        Minimises the Bradley-Terry negative log-likelihood per game from ``start`` (default all 0)
        with scipy's Newton trust-region method (``trust-ncg``) and the exact gradient and Hessian:
        the problem is convex and small, so it converges in a few steps. (L-BFGS-B gives the same
        result, but its multithreaded BLAS calls made each small fit ~40 times slower on a busy
        2-core machine.) Raises ValueError if the maximum is at infinity (see :func:`rate`).
        """
        self._check_bounded(points)
        total = self.games.sum()

        def diff(free: np.ndarray) -> np.ndarray:
            logits = np.concatenate(([0.0], free))
            return logits[self.first] - logits[self.second]

        def objective(free: np.ndarray) -> tuple[float, np.ndarray]:
            z = diff(free)
            # -log P = points * log(1 + e^-z) + (games - points) * log(1 + e^z)
            nll = points @ np.logaddexp(0, -z) + (self.games - points) @ np.logaddexp(0, z)
            slope = self.games * expit(z) - points  # d nll / d z
            grad = np.bincount(self.first, slope, self.size) - np.bincount(self.second, slope, self.size)
            return nll / total, grad[1:] / total

        def hessian(free: np.ndarray) -> np.ndarray:
            z = diff(free)
            weight = self.games * expit(z) * expit(-z) / total  # d2 nll / d z2
            cell = np.bincount(self.first * self.size + self.second, weight, self.size**2)
            off = cell.reshape(self.size, self.size)
            laplacian = np.diag(off.sum(axis=0) + off.sum(axis=1)) - off - off.T
            return laplacian[1:, 1:]

        x0 = np.zeros(self.size - 1) if start is None else start[1:]
        result = minimize(objective, x0, jac=True, hess=hessian, method="trust-ncg", options={"gtol": 1e-10})
        return np.concatenate(([0.0], result.x))

    def _check_bounded(self, points: np.ndarray) -> None:
        """Raise ValueError if the pool splits or a group scored all points, or none, against the rest.

        The likelihood has a finite maximum exactly when the graph "i scored points against j"
        is strongly connected (Zermelo 1929; Ford 1957).
        """
        edges = (self.size, self.size)
        ahead, behind = points > 0, self.games - points > 0  # first, second scored in the pairing
        scorer = np.r_[self.first[ahead], self.second[behind]]
        conceder = np.r_[self.second[ahead], self.first[behind]]
        scored = coo_array((np.ones(len(scorer)), (scorer, conceder)), shape=edges)
        if connected_components(scored, directed=True, connection="strong")[0] > 1:
            met = coo_array((np.ones(len(self.first)), (self.first, self.second)), shape=edges)
            if connected_components(met, directed=False)[0] > 1:
                raise ValueError("ratings are unbounded: the players fall into groups that never met")
            raise ValueError(
                "ratings are unbounded: some players scored every point, or none, against the rest; "
                "use prior_draws > 0"
            )
