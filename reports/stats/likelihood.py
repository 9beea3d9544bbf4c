"""The likelihood machinery behind :mod:`reports.stats.ratings`: the Bradley-Terry model of a pool's games
(:class:`Model`), its maximum-likelihood fit with profile-likelihood intervals, one-sided bounds
and LOS (:class:`Fit`), and the pair dispersion ``phi`` (:func:`dispersion`).

The model, the bounds, the intervals and their sources are described in :mod:`reports.stats.ratings`.
Every minimisation and every interval's end is found by Newton's method with exact derivatives
(:mod:`reports.stats.newton`): the negative log-likelihood is convex, and so is a profile of it.
Ratings here are in log-odds (natural units); :data:`reports.stats.ratings.ELO_PER_NAT` converts them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, ndtr

from reports.stats.headtohead import WDL, Pentanomial
from reports.stats.newton import Constrained, convex_root
from reports.stats.tally import Matchup, oriented

__all__ = ["BOUND_95", "CHI2_95", "Fit", "Model", "dispersion"]

CHI2_95 = 3.841458820694124
"""95 % quantile of chi-square with one degree of freedom: two-sided 95 % intervals."""

BOUND_95 = 2 * math.log(20)
"""Likelihood-ratio statistic of a one-sided 95 % bound on an unbounded rating (5 % of the supremum)."""

_REACH = 60.0
"""Log-odds (about 10,400 Elo) beyond which a likelihood-ratio bound is reported as infinite."""


@dataclass(frozen=True)
class Model:
    """The games of a pool: pairing ``k`` is ``first[k]`` v ``second[k]``, ``games[k]`` games in which
    ``first[k]`` scored ``points[k]`` (virtual draws included)."""

    size: int
    first: np.ndarray
    second: np.ndarray
    games: np.ndarray
    points: np.ndarray

    @classmethod
    def build(cls, names: list[str], h2h: Mapping[Matchup, WDL], prior_draws: float) -> Model:
        index = {name: k for k, name in enumerate(names)}
        keys = [key for key, wdl in h2h.items() if wdl.games]
        wdls = [h2h[key] for key in keys]
        return cls(
            len(names),
            np.array([index[a] for a, _ in keys], dtype=int),
            np.array([index[b] for _, b in keys], dtype=int),
            np.array([w.games + prior_draws for w in wdls], dtype=float),
            np.array([w.points + prior_draws / 2 for w in wdls], dtype=float),
        )

    def nll(self, theta: np.ndarray, keep: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """Negative log-likelihood of the pairings ``keep`` (bool mask), its gradient and Hessian."""
        games = _Games(self, keep)
        return *games.value(theta), games.hessian(theta)

    def fit_pool(self, anchor: int | None) -> Fit:
        """The maximum-likelihood fit of the rated pool, with the unbounded players placed around it."""
        n = self.size
        met = coo_array((np.ones(len(self.first)), (self.first, self.second)), shape=(n, n))
        if connected_components(met, directed=False)[0] > 1:
            raise ValueError("ratings are unbounded: the players fall into groups that never met")
        ahead, behind = self.points > 0, self.games - self.points > 0
        scorer = np.r_[self.first[ahead], self.second[behind]]
        conceder = np.r_[self.second[ahead], self.first[behind]]
        scored = coo_array((np.ones(len(scorer)), (scorer, conceder)), shape=(n, n)).tocsr()
        count, label = connected_components(scored, directed=True, connection="strong")
        played = np.bincount(self.first, self.games, n) + np.bincount(self.second, self.games, n)
        sizes = np.bincount(label, minlength=count)
        weight = np.bincount(label, played, count)
        if anchor is None:
            pool_label = max(range(count), key=lambda g: (sizes[g], weight[g], -g))
        else:
            pool_label = label[anchor]
        pool = label == pool_label
        return Fit(self, pool, label, scored, anchor)


class _Games:
    """The pairings ``keep`` of a :class:`Model`: their negative log-likelihood, its gradient and its
    Hessian, and :class:`~reports.stats.newton.Constrained` problems over them."""

    def __init__(self, model: Model, keep: np.ndarray) -> None:
        n = self.size = model.size
        self.first, self.second = model.first[keep], model.second[keep]
        self.games, self.points = model.games[keep], model.points[keep]
        self.scale = max(float(self.games.sum()), 1.0)
        first, second = self.first, self.second
        self.cells = np.concatenate(
            (first * (n + 1), second * (n + 1), first * n + second, second * n + first)
        )

    def value(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The negative log-likelihood at ``theta`` and its gradient."""
        z = theta[self.first] - theta[self.second]
        games, points = self.games, self.points
        value = points @ np.logaddexp(0, -z) + (games - points) @ np.logaddexp(0, z)
        slope = games * expit(z) - points
        grad = np.bincount(self.first, slope, self.size) - np.bincount(self.second, slope, self.size)
        return float(value), grad

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """The Hessian of the negative log-likelihood at ``theta``, ``(n, n)``."""
        z = theta[self.first] - theta[self.second]
        weight = self.games * expit(z) * expit(-z)
        cells = np.bincount(self.cells, np.concatenate((weight, weight, -weight, -weight)), self.size**2)
        hessian: np.ndarray = cells.reshape(self.size, self.size)
        return hessian

    def constrained(self, rows: np.ndarray) -> Constrained:
        """Their minimum over ``theta`` subject to ``rows @ theta = values``."""
        return Constrained(self.value, self.hessian, self.scale, rows)


class Fit:
    """Maximum-likelihood ratings (log-odds) of the rated pool, and intervals and bounds around them."""

    def __init__(
        self, model: Model, pool: np.ndarray, label: np.ndarray, scored: object, anchor: int | None
    ) -> None:
        self.model = model
        self.pool = pool
        self.label = label
        n = model.size
        self.anchor_row = np.where(pool, 1.0 / pool.sum(), 0.0)
        self.anchor_index: int | None = None
        if anchor is not None:
            self.anchor_index = anchor
            self.anchor_row = np.eye(n)[anchor]
        self.keep = pool[model.first] & pool[model.second]
        outside = np.flatnonzero(~pool)
        self.games = _Games(model, self.keep)
        self.problem = self.games.constrained(self._rows(pool))
        self.theta, self.best, _ = self.problem.solve(np.zeros(1 + len(outside)))
        self.level = _levels(scored, label, pool)
        for k in outside:
            self.theta[k] = math.copysign(math.inf, self.level[k]) if self.level[k] else math.nan

    def _rows(self, members: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
        """Constraint rows: the anchor, every player outside ``members`` at 0, and ``extra``."""
        rows = [self.anchor_row[None, :], np.eye(self.model.size)[np.flatnonzero(~members)]]
        if extra is not None:
            rows.append(extra[None, :])
        return np.vstack(rows)

    @cached_property
    def _spread(self) -> np.ndarray:
        """Each pool player's standard error (log-odds) in the quadratic approximation at the maximum:
        the first guess of its interval's ends."""
        basis = self.problem.basis
        theta = np.where(self.pool, self.theta, 0.0)
        curvature = basis.T @ self.games.hessian(theta) @ basis
        variance = np.einsum("ij,ji->i", basis, np.linalg.solve(curvature, basis.T))
        spread: np.ndarray = np.sqrt(np.maximum(variance, 0.0))
        return spread

    def interval(self, k: int, phi: float) -> tuple[float, float]:
        """The 95 % interval (log-odds) of a pool player, or the one-sided bound of an unbounded one."""
        value = self.theta[k]
        if math.isnan(value):
            return math.nan, math.nan
        if math.isinf(value):
            bound = self._bound(k, phi)
            return (bound, math.inf) if value > 0 else (-math.inf, bound)
        if k == self.anchor_index or self.pool.sum() == 1:
            return 0.0, 0.0  # the anchor itself
        level = self.best + phi * CHI2_95 / 2
        guess = self._spread[k] * math.sqrt(phi * CHI2_95)

        def end(direction: float) -> float:
            excess = self._profile(self.games, self.pool, k, self.theta, level)
            return convex_root(
                excess, value, direction, reach=_REACH, beyond=direction * math.inf, guess=guess
            )

        return end(-1.0), end(+1.0)

    def superiority(self, a: int, b: int, phi: float) -> float:
        """LOS of player ``a`` over ``b`` (see :mod:`reports.stats.ratings`)."""
        ta, tb = self.theta[a], self.theta[b]
        if math.isnan(ta) or math.isnan(tb):
            return math.nan
        if self.level[a] != self.level[b]:
            return float(self.level[a] > self.level[b])
        if math.isinf(ta) or math.isinf(tb):
            return 0.5  # one unbounded group: nothing orders its members here
        if ta == tb:
            return 0.5
        n = self.model.size
        tie = np.zeros(n)
        tie[a], tie[b] = 1.0, -1.0
        rows = self._rows(self.pool, tie)
        values = np.zeros(len(rows))
        problem = self.games.constrained(rows)
        problem.start(self.theta, values)
        constrained = problem.solve(values)[1]
        statistic = max(2 * (constrained - self.best), 0.0) / phi
        return float(ndtr(math.copysign(math.sqrt(statistic), ta - tb)))

    def _profile(
        self,
        games: _Games,
        members: np.ndarray,
        k: int,
        start: np.ndarray,
        level: float,
        *,
        warm: bool = True,
    ) -> Callable[[float], tuple[float, float]]:
        """``c ->`` the minimal negative log-likelihood of ``games`` with player ``k`` held at ``c`` and
        the players outside ``members`` at 0, less ``level``, and its slope in ``c``: the Lagrange
        multiplier of ``theta_k = c`` (the envelope theorem). Each minimisation starts where the last
        ended, the first from ``start``; each from ``start`` when not ``warm`` (a bound's search
        jumps tens of log-odds, and from where the last one ended, far out where games are all but
        certain, Newton's capped steps do not reach the minimum within their number)."""
        rows = self._rows(members, np.eye(self.model.size)[k])
        problem = games.constrained(rows)
        values = np.zeros(len(rows))
        values[-1] = start[k]
        begin = np.where(members, start, 0.0)
        problem.start(begin, values)
        shift = problem.inverse[:, -1]  # d theta / d c at fixed u: the slope's direction

        def excess(c: float) -> tuple[float, float]:
            values[-1] = c
            if not warm:
                problem.start(begin, values)
            _, value, grad = problem.solve(values)
            return value - level, float(grad @ shift)

        return excess

    def _bound(self, k: int, phi: float) -> float:
        """One-sided 95 % bound of an unbounded player ``k`` (see :mod:`reports.stats.ratings`).

        The games counted are those among the rated pool, ``k``'s group and every group between them
        (a level of the same sign, nearer the pool): a player that beat a group that beat the pool
        is bounded beyond that group. The supremum of their likelihood is the pool's maximum times
        each group's own maximum (the games across levels are certain at the limit); the bound is
        the rating of ``k`` at which the profile likelihood falls to 5 % of it.
        """
        model, level = self.model, self.level
        sign = 1.0 if self.theta[k] > 0 else -1.0
        between = ~self.pool & (np.sign(level) == sign) & (np.abs(level) <= abs(level[k]))
        members = self.pool | between
        keep = members[model.first] & members[model.second]
        group = self.label == self.label[k]
        outside_group = ~(group[model.first] & group[model.second])
        if not (keep & ~self.keep & outside_group).any():
            return math.nan
        supremum = self.best
        for label in np.unique(self.label[between]):
            inside = self.label == label
            games = inside[model.first] & inside[model.second]
            mean = np.full((1, model.size), 1.0 / inside.sum()) * inside
            rows = np.vstack([mean, np.eye(model.size)[~inside]])
            supremum += _Games(model, games).constrained(rows).solve(np.zeros(len(rows)))[1]
        edge = float(np.max(np.abs(self.theta[self.pool])))
        start = np.where(self.pool, self.theta, sign * (edge + 2.0 * np.abs(level)))

        excess = self._profile(
            _Games(model, keep), members, k, start, supremum + phi * BOUND_95 / 2, warm=False
        )
        far = sign * (edge + _REACH * abs(level[k]))
        return convex_root(excess, far, -sign, reach=2 * abs(far), beyond=math.nan)


def _levels(scored: coo_array, label: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Each player's level among the strongly connected groups of the "scored against" graph.

    0 for the rated pool; ``+d`` for a group whose longest chain down to the pool (each group
    scoring every point against the next) has ``d`` steps; ``-d`` for a group ``d`` steps below the
    pool; also 0 for a group that is neither above nor below the pool (its rating is ``nan``).
    """
    graph = scored.tocoo()
    edges = {(label[i], label[j]) for i, j in zip(graph.row, graph.col, strict=True) if label[i] != label[j]}
    groups = int(label.max()) + 1
    home = int(label[np.flatnonzero(pool)[0]])
    up = np.full(groups, -np.inf)  # longest path from each group down to the pool
    down = np.full(groups, -np.inf)  # longest path from the pool down to each group
    up[home] = down[home] = 0
    for _ in range(groups):  # the condensation is acyclic: `groups` rounds of relaxation suffice
        for g, h in edges:
            up[g] = max(up[g], up[h] + 1)
            down[h] = max(down[h], down[g] + 1)
    level = np.where(up > 0, up, np.where(down > 0, -down, 0.0))
    levels: np.ndarray = level[label]
    return levels


def dispersion(
    names: list[str], h2h: Mapping[Matchup, WDL], pairs: Mapping[Matchup, Pentanomial], theta: np.ndarray
) -> float:
    """``phi``: pooled variance of pair scores over twice that of game scores, at least 1.

    Over the pairings of the rated pool with complete pairs: ``sum_k P_k var(pair points)_k`` over
    ``sum_k P_k 2 var(game points)_k`` with ``P_k`` pairs, each variance about the pairing's own mean
    (fastchess' pentanomial and trinomial variances). Independent games give 1; pairs whose two games
    go the same way more than chance give more.
    """
    index = {name: k for k, name in enumerate(names)}
    pair_sum = game_sum = 0.0
    for (a, b), penta in pairs.items():
        if not penta.pairs or not (np.isfinite(theta[index[a]]) and np.isfinite(theta[index[b]])):
            continue
        counts = np.array(penta.counts, dtype=float)
        values = np.array([0.0, 0.5, 1.0, 1.5, 2.0])
        mean = counts @ values / counts.sum()
        pair_sum += counts @ (values - mean) ** 2
        wdl = oriented(h2h, a, b)
        games = np.array([wdl.wins, wdl.draws, wdl.losses], dtype=float)
        scores = np.array([1.0, 0.5, 0.0])
        game_mean = games @ scores / games.sum()
        game_sum += counts.sum() * 2 * (games @ (scores - game_mean) ** 2 / games.sum())
    if game_sum <= 0:
        return 1.0
    return max(1.0, pair_sum / game_sum)
