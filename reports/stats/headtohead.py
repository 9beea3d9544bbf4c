"""Head-to-head statistics of one player against another, as cutechess-cli and fastchess compute them.

Counts are small frozen values that add up (``+``) and turn to the other side's point of view
(:meth:`WDL.flipped`, :meth:`Pentanomial.flipped`), in the style of fastchess' ``Stats``.

From counts, :func:`estimate_wdl` (one sample per game, "trinomial") and
:func:`estimate_pentanomial` (one sample per pair of games with colours swapped) give an
:class:`EloEstimate` with the same formulas (fastchess ``elo_wdl.cpp`` / ``elo_pentanomial.cpp``):

* score ``mu`` = mean sample score, in 0..1 (a game scores 1, 1/2, 0; a pair 0, 1/4, 1/2, 3/4, 1);
* variance ``sigma^2`` = sum over outcomes of frequency * (value - mu)^2, ``SE = sigma / sqrt(n)``
  with ``n`` games or pairs;
* ``Elo(p) = -400 * log10(1/p - 1)`` (:func:`elo`);
* 95 % error ``[Elo(mu + 1.95996 SE) - Elo(mu - 1.95996 SE)] / 2``;
* LOS (likelihood of superiority) ``Phi((mu - 1/2) / SE)``, ``Phi`` the standard normal CDF.

Edge cases never raise; they give IEEE values with a fixed meaning:

* no games: every field of the estimate is ``nan``;
* score 1 (or 0): Elo ``+inf`` (``-inf``), error ``nan`` (no interval around an infinite value),
  LOS 1 (0);
* a bound ``mu +- 1.95996 SE`` beyond 0 or 1 is clipped there, so its Elo -- and the error -- is
  ``inf``: the data do not bound the difference on that side;
* ``sigma = 0`` (every sample scored the same): error 0 (``nan`` at score 1 or 0), LOS 1, 0 or 1/2
  as the score is above, below or at 1/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["WDL", "EloEstimate", "Pentanomial", "elo", "estimate_pentanomial", "estimate_wdl"]

Z95 = 1.959963984540054
"""Two-sided 95 % quantile of the standard normal distribution (cutechess-cli, fastchess)."""


@dataclass(frozen=True, slots=True)
class WDL:
    """Wins, draws and losses of one side, counted over games (fastchess' trinomial counts)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def from_result(cls, score: float) -> WDL:
        """One game scored ``score`` (1, 0.5 or 0) by this side; raises ValueError otherwise."""
        if score == 1.0:
            return cls(wins=1)
        if score == 0.5:
            return cls(draws=1)
        if score == 0.0:
            return cls(losses=1)
        raise ValueError(f"a game scores 1, 0.5 or 0, got {score!r}")

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2

    def __add__(self, other: WDL) -> WDL:
        return WDL(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def flipped(self) -> WDL:
        """The same games seen by the opponent."""
        return WDL(self.losses, self.draws, self.wins)


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Pairs of games with colours swapped, counted by the pair's points for this side.

    The five counts are fastchess' ``[LL, LD, DD/WL, WD, WW]``: pairs worth 0, 1/2, 1, 3/2 and 2
    points (two draws and a win plus a loss both make 1).
    """

    ll: int = 0
    ld: int = 0
    dd_wl: int = 0
    wd: int = 0
    ww: int = 0

    @classmethod
    def from_pair_points(cls, points: float) -> Pentanomial:
        """One pair in which this side scored ``points`` (0, 0.5, ..., 2); raises ValueError otherwise."""
        index = 2 * points
        if index not in (0, 1, 2, 3, 4):
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, got {points!r}")
        counts = [0] * 5
        counts[int(index)] = 1
        return cls(*counts)

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        """``(LL, LD, DD/WL, WD, WW)``."""
        return (self.ll, self.ld, self.dd_wl, self.wd, self.ww)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def __add__(self, other: Pentanomial) -> Pentanomial:
        return Pentanomial(*(a + b for a, b in zip(self.counts, other.counts, strict=True)))

    def flipped(self) -> Pentanomial:
        """The same pairs seen by the opponent."""
        return Pentanomial(*reversed(self.counts))


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """Elo difference of one side over the other, estimated from a match.

    Attributes:
        score: mean score per game, 0..1 (nan without games).
        elo: Elo difference, ``+-inf`` at score 1 or 0.
        error: half-width of the 95 % interval, in Elo (``+-`` this around ``elo``).
        los: likelihood of superiority, 0..1.
    """

    score: float
    elo: float
    error: float
    los: float


def elo(score: float) -> float:
    """Elo difference that makes ``score`` (0..1) the expected score: ``-400 * log10(1/score - 1)``.

    The logistic Elo curve (cutechess-cli, fastchess, Ordo). Score 1 gives ``inf``, 0 gives ``-inf``,
    scores outside 0..1 are clipped to it, ``nan`` gives ``nan``.
    """
    if math.isnan(score):
        return math.nan
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return 400.0 * math.log10(score / (1.0 - score))  # the same, without a -0.0 at score 1/2


def _estimate(values: tuple[float, ...], counts: tuple[int, ...]) -> EloEstimate:
    """Elo, 95 % error and LOS of a sample in which ``values[k]`` (0..1) occurred ``counts[k]`` times."""
    n = sum(counts)
    if n == 0:
        return EloEstimate(math.nan, math.nan, math.nan, math.nan)
    mu = sum(c * v for v, c in zip(values, counts, strict=True)) / n
    variance = sum(c * (v - mu) ** 2 for v, c in zip(values, counts, strict=True)) / n
    se = math.sqrt(variance / n)
    error = (elo(mu + Z95 * se) - elo(mu - Z95 * se)) / 2
    return EloEstimate(mu, elo(mu), error, _los(mu, se))


def _los(mu: float, se: float) -> float:
    """``Phi((mu - 1/2) / se)``; at ``se = 0`` every sample scored ``mu``: 1, 0 or 1/2 by its side of 1/2."""
    if se == 0:
        return 0.5 if mu == 0.5 else float(mu > 0.5)
    return 0.5 * math.erfc((0.5 - mu) / (se * math.sqrt(2.0)))  # Phi(x) = erfc(-x / sqrt 2) / 2


def estimate_wdl(wdl: WDL) -> EloEstimate:
    """Elo difference, 95 % error and LOS from game counts (cutechess-cli / fastchess trinomial model).

    Each game is one sample scoring 1, 1/2 or 0; see the module docstring for formulas and edge cases.
    Example (fastchess): ``estimate_wdl(WDL(60, 100, 40))`` gives Elo +34.86, error 34.16, LOS 97.83 %.
    """
    return _estimate((1.0, 0.5, 0.0), (wdl.wins, wdl.draws, wdl.losses))


def estimate_pentanomial(penta: Pentanomial) -> EloEstimate:
    """Elo difference, 95 % error and LOS from pair counts (fastchess pentanomial model).

    Each pair of games with colours swapped is one sample scoring 0, 1/4, 1/2, 3/4 or 1 per game;
    pairing removes the colour advantage from the variance, so the error is the honest one for a
    paired schedule. See the module docstring for formulas and edge cases.
    """
    return _estimate((0.0, 0.25, 0.5, 0.75, 1.0), penta.counts)
