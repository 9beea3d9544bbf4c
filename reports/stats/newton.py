"""Newton's method for the convex problems of :mod:`reports.stats.likelihood`: minimising a smooth convex
function under linear equality constraints (:class:`Constrained`), and the root of a convex function
of one variable whose slope is known (:func:`convex_root`).

Both take exact derivatives: the negative log-likelihood of the Bradley-Terry model has a closed-form
gradient and Hessian, and the slope of a profile likelihood is the Lagrange multiplier of the
constraint that holds the profiled rating (the envelope theorem). With them, a profile interval's
end takes four or five minimisations of two or three Newton steps each, where bracketing and
``brentq`` over scipy's general-purpose ``minimize`` took about nine of a costlier machinery
(``python -m benchmarks.ratings``: a report's Elo progression in a twentieth of the CPU).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["Constrained", "convex_root"]

GTOL = 1e-10
"""Convergence: the norm of the reduced gradient, per game (the objective is divided by its games)."""

_ARMIJO, _SHRINK = 0.25, 0.5
"""Backtracking line search: sufficient decrease, and the factor a rejected step is cut by."""

_QUADRATIC = 1e-12
"""Half the squared Newton decrement below which the full step is taken without a line search (the
objective's rounding, about 1e-16 of it, would hide a smaller decrease)."""

_LONGEST = 10.0
"""Longest step (log-odds, Euclidean): a Newton step from where some games are all but certain is
nearly unbounded; cut, it is still a descent direction."""

_STEPS = 200
"""At most this many Newton steps, or root refinements."""

_XTOL = 1e-9
"""A root is returned once Newton's step falls below this (log-odds); the error left is about its square."""


class Constrained:
    """``min f(theta)`` subject to ``rows @ theta = values`` for convex ``f``: ``theta = base + basis @ u``,
    ``base = inverse @ values`` the least-norm solution of the constraints and ``basis`` an orthonormal
    basis of their null space, and ``u`` found by damped Newton steps (Boyd & Vandenberghe, *Convex
    Optimization*, 2004, algorithm 9.5, Newton's method with backtracking line search, on the
    eliminated problem of 10.1.2), each step at most :data:`_LONGEST` long.

    ``evaluate(theta)`` returns ``f`` and its gradient, ``hessian(theta)`` its Hessian (``(n,)`` and
    ``(n, n)``); ``scale`` divides them (convergence is :data:`GTOL` on the scaled reduced gradient).
    ``rows`` is ``(m, n)`` of full row rank. Successive :meth:`solve` calls start where the last one
    ended (:meth:`start` sets the first start): the warm start of a profile likelihood's neighbouring
    points.
    """

    def __init__(
        self,
        evaluate: Callable[[np.ndarray], tuple[float, np.ndarray]],
        hessian: Callable[[np.ndarray], np.ndarray],
        scale: float,
        rows: np.ndarray,
    ) -> None:
        self.evaluate, self.hessian, self.scale = evaluate, hessian, scale
        left, singular, right = np.linalg.svd(rows)  # one decomposition gives both
        count = len(rows)
        self.inverse: np.ndarray = right[:count].T / singular @ left.T
        self.basis: np.ndarray = right[count:].T
        self.u = np.zeros(self.basis.shape[1])

    def start(self, theta: np.ndarray, values: np.ndarray) -> None:
        """Start the next :meth:`solve` from the projection of ``theta`` (non-finite entries read as 0)
        onto ``rows @ theta = values``."""
        begin = np.where(np.isfinite(theta), theta, 0.0)
        self.u = self.basis.T @ (begin - self.inverse @ values)

    def solve(self, values: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """The constrained minimum: ``(theta, f(theta), gradient of f at theta)``."""
        base, basis, scale = self.inverse @ values, self.basis, self.scale
        u = self.u
        theta = base + basis @ u
        value, grad = self.evaluate(theta)
        for _ in range(_STEPS):
            slope = basis.T @ grad / scale
            if np.linalg.norm(slope) < GTOL:  # (at once when the constraints leave no freedom)
                break
            curvature = basis.T @ self.hessian(theta) @ basis / scale
            step = np.linalg.solve(curvature, -slope)
            length = float(np.linalg.norm(step))
            if length > _LONGEST:
                step *= _LONGEST / length
            descent = float(slope @ step)  # < 0: minus the squared Newton decrement (or a share of it)
            t = 1.0
            while True:
                trial = theta + t * (basis @ step)
                trial_value, trial_grad = self.evaluate(trial)
                if -descent / 2 < _QUADRATIC or trial_value / scale <= value / scale + _ARMIJO * t * descent:
                    break
                t *= _SHRINK
                if t < 1e-12:  # no decrease the objective's rounding can show: as close as it gets
                    self.u = u
                    return theta, value, grad
            u = u + t * step
            theta, value, grad = trial, trial_value, trial_grad
        self.u = u
        return theta, value, grad


def convex_root(
    excess: Callable[[float], tuple[float, float]],
    start: float,
    direction: float,
    *,
    reach: float,
    beyond: float,
    guess: float | None = None,
) -> float:
    """The point beyond ``start`` in ``direction`` where ``excess`` turns positive.

    ``excess(c)`` returns a convex function's value and slope at ``c``; it is negative at ``start``
    and nondecreasing beyond it in ``direction`` (a profile likelihood less a level, from its
    maximum outwards). Returns ``beyond`` when it is not positive at the farthest of the steps 0.5,
    1, 2, 4, ... log-odds from ``start`` within ``reach``; else the root, to about 1e-12.

    Newton's method safeguarded by bisection (``rtsafe``, Press et al., *Numerical Recipes*, 3rd ed.,
    9.4): the first point is ``guess`` log-odds out (default the farthest step); from a point inside
    (negative excess) the tangent's zero lies beyond the root, since the tangent of a convex function
    lies below it; from a point beyond the root the iterates fall monotonically onto it
    (quadratically). A step that leaves the bracket, or an inside point whose tangent does not reach
    the farthest step, falls back to bisection or to that step.
    """
    farthest = 0.5
    while 2 * farthest <= reach:
        farthest *= 2
    inner, outer = 0.0, math.inf
    distance = farthest if guess is None else min(guess, farthest)
    for _ in range(_STEPS):
        value, slope = excess(start + direction * distance)
        slope *= direction
        if value > 0:
            outer = distance
        else:
            inner = distance
            if inner == farthest:
                return beyond
        newton = distance - value / slope if slope > 0 else math.nan
        if not inner < newton < min(outer, farthest):
            newton = farthest if math.isinf(outer) else (inner + outer) / 2
        if abs(newton - distance) < _XTOL:
            return start + direction * newton
        distance = newton
    return start + direction * distance
