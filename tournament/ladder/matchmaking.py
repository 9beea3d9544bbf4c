"""Whom a ladder's newcomer plays next: the member whose game pair is expected to narrow the newcomer's
rating the most.

**What is narrowed.** An ``add`` stops once the newcomer's 95 % interval in the ladder's joint fit is
narrow enough (:mod:`tournament.ladder.driver`), and that interval is of its rating minus the mean of
the rated members (:mod:`reports.stats.ratings`). So the rule works on the joint fit too: an
:class:`Outlook`, made by the caller (:mod:`reports.stats.ladder`), holds every player's rating and
their covariance in the Gaussian (Laplace) approximation of the fit, the inverse of its Fisher
information, and the contrast ``target`` whose variance the stop rule sees: the newcomer minus the
pool's mean.

**The rule** (``"information"``, the default). A game pair between the newcomer ``n`` and member
``j`` adds ``2 p (1 - p)`` (in log-odds units; ``p`` the newcomer's expected score at the current
ratings) to the Fisher information along ``u = e_n - e_j``: an observation of ``r_n - r_j`` with
variance ``c² / (2 p (1 - p))`` (``c = 400 / ln 10`` Elo a unit). Its expected effect on the target's
variance ``Var(a·r)`` is the Kalman (Sherman-Morrison) update
``(aᵀ V u)² / (c² / (2 p (1 - p)) + uᵀ V u)``; the pair that removes the most is played first. Ties
go to the member nearer the newcomer's rating, then to the one that joined first. Several pairs
planned at once are chosen one after another, ``V`` updated for each pair chosen (the update needs
no result).

Why this rule:

* It is what the stop rule asks for: it narrows the very interval the add waits for.
* It plays "near in rating", as Kaggle's leaderboard matches by rating: ``p (1 - p)`` is largest at
  ``p = ½``, so near members tell the most per game.
* It knows that a member's own rating is uncertain. Games against one member pin the difference
  ``r_n - r_j``, never ``r_j`` itself, so the returns of the same opponent diminish (``aᵀ V u`` falls
  as ``n`` and ``j`` become correlated) and the rule moves on to other near members, whose errors
  average out. A rule that took opponents as exactly known (the Fisher information alone) would
  play the nearest member for ever, while the interval stopped narrowing at that member's own.
* Members that won or lost every game have a rating only through the caller's prior and play
  nobody near the middle, so they are chosen only for a newcomer near them.

The ``"uniform"`` rule plays the members in turn (the one with the fewest pairs against the newcomer
first, then in the order they joined): a uniform gauntlet, for comparison.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RULES", "Outlook", "choose", "pair_gain"]

RULES = ("information", "uniform")
"""The matchmaking rules (module docstring)."""

_C = 400 / math.log(10)  # Elo per unit of log-odds


@dataclass(frozen=True)
class Outlook:
    """The ladder's ratings as matchmaking sees them (module docstring): ``names`` (the newcomer
    among them), their ratings ``elo`` (Elo, all finite), ``covariance`` (Elo², ``(n, n)``), and the
    ``target`` contrast (``(n,)``, summing to 0) whose variance the stop rule narrows."""

    names: tuple[str, ...]
    elo: np.ndarray
    covariance: np.ndarray
    target: np.ndarray

    def index(self, name: str) -> int:
        """The position of ``name``; ValueError when it is not among :attr:`names`."""
        return self.names.index(name)


def _expected(difference: float) -> float:
    """The expected score of a rating ``difference`` Elo ahead (logistic; scipy is left out of the
    command line's start, ``tests/test_imports.py``)."""
    return 1.0 / (1.0 + math.exp(-float(difference) / _C))


def pair_gain(outlook: Outlook, newcomer: str, member: str, covariance: np.ndarray | None = None) -> float:
    """The target's variance (Elo²) one game pair of ``newcomer`` against ``member`` is expected to
    remove, with ``covariance`` (default the outlook's) as the current one (module docstring)."""
    vu, scale = _pair(outlook, newcomer, member, outlook.covariance if covariance is None else covariance)
    return float((outlook.target @ vu) ** 2 / scale)


def _after(outlook: Outlook, newcomer: str, member: str, covariance: np.ndarray) -> np.ndarray:
    """``covariance`` after one game pair of ``newcomer`` against ``member`` (Sherman-Morrison)."""
    vu, scale = _pair(outlook, newcomer, member, covariance)
    updated: np.ndarray = covariance - np.outer(vu, vu) / scale
    return updated


def _pair(outlook: Outlook, newcomer: str, member: str, covariance: np.ndarray) -> tuple[np.ndarray, float]:
    """The two terms of the rank-one update one game pair of ``newcomer`` against ``member`` makes
    to ``covariance`` V: ``V u`` and ``noise + uᵀ V u``, where ``u`` is +1 at the newcomer and -1 at
    the member, and ``noise`` the variance of a pair's result at their expected score."""
    n, j = outlook.index(newcomer), outlook.index(member)
    u = np.zeros(len(outlook.names))
    u[n], u[j] = 1.0, -1.0
    p = _expected(outlook.elo[n] - outlook.elo[j])
    noise = _C**2 / max(2.0 * p * (1.0 - p), 1e-12)
    vu = covariance @ u
    return vu, float(noise + u @ vu)


def choose(
    outlook: Outlook | None,
    newcomer: str,
    candidates: Sequence[str],
    count: int,
    *,
    rule: str = "information",
    pairs: Mapping[str, int] | None = None,
) -> list[str]:
    """The opponents of the newcomer's next ``count`` game pairs, among ``candidates`` (in the order
    they joined), by ``rule`` (module docstring): ``"information"`` reads ``outlook`` (a candidate
    not in it is chosen last, in order), ``"uniform"`` the ``pairs`` the newcomer has played against
    each. Raises ValueError for an unknown rule, no candidates or ``count < 1``."""
    if rule not in RULES:
        raise ValueError(f"unknown matchmaking rule {rule!r}: one of {', '.join(RULES)}")
    if not candidates or count < 1:
        raise ValueError("matchmaking needs a candidate and a count of at least 1")
    chosen: list[str] = []
    if rule == "uniform" or outlook is None or newcomer not in outlook.names:
        played = dict(pairs or {})
        for _ in range(count):
            pick = min(candidates, key=lambda name: (played.get(name, 0), candidates.index(name)))
            played[pick] = played.get(pick, 0) + 1
            chosen.append(pick)
        return chosen
    covariance = outlook.covariance
    rating = outlook.elo[outlook.index(newcomer)]
    scale = max(float(outlook.target @ covariance @ outlook.target), 1e-12)
    for _ in range(count):

        def key(name: str, covariance: np.ndarray = covariance) -> tuple[float, float, int]:
            if name not in outlook.names:
                return (math.inf, math.inf, candidates.index(name))
            gain = round(pair_gain(outlook, newcomer, name, covariance) / scale, 9)
            return (-gain, abs(outlook.elo[outlook.index(name)] - rating), candidates.index(name))

        pick = min(candidates, key=key)
        chosen.append(pick)
        if pick in outlook.names:
            covariance = _after(outlook, newcomer, pick, covariance)
    return chosen
