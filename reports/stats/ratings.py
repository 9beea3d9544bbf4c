"""Joint Elo ratings of a pool: maximum likelihood, likelihood-ratio intervals, bounds for perfect scores.

**Model** (Bradley-Terry in Elo units, as Ordo fits it): the expected score of A against B is
``1 / (1 + 10^(-(R_A - R_B) / 400))``; a draw counts as half a win and half a loss. The ratings
maximise the likelihood of all games, computed per pairing from points and games.

**Unbounded ratings.** The maximum is finite exactly when the graph "i scored a point against j" is
strongly connected (Zermelo 1929; Ford 1957). When it is not, some player or group won (or lost)
every game against the rest, and its maximum-likelihood rating is infinite. Nobody is shrunk to hide
that: the largest strongly connected group, or the anchor's (the *rated pool*), is fitted by maximum
likelihood on its own games, exactly as if the others had not played, and each player outside it
gets ``elo = +inf`` (it scored every point against the pool's side of the graph) or ``-inf`` with a
one-sided 95 % bound in ``low`` (``high``): the rating at which its perfect record against the pool
(with its own group's games, and those of every group between it and the pool, so that bounds grow
along a chain of perfect scorers) has 5 % of its supremum likelihood, i.e. a likelihood-ratio statistic of
``2 ln 20 = 5.99``. With the pool's ratings fixed, that is the exact test (the record's probability
is 5 %, as for a Clopper-Pearson bound); the chi-square point 2.706 is wrong on this boundary, and its
bounds held only 17-63 % of the time in the coverage benchmark. A player neither above nor below
the pool (it only met other unbounded players) gets ``nan``.

**Anchor:** the mean rating of the rated pool is 0 Elo, or ``anchor`` names a player held at 0. That
player, or the pool's only player when the pool is one player (a small run in which everyone else won
or lost every game against it), is the *reference*: its 0 is a definition, with no interval.

**Order:** by level of the "scored against" graph (those above the pool, the pool, those below),
then by rating; where the ratings cannot order players (unbounded players of one level, unrated ones,
ratings equal to a millionth of an Elo), by score per game, then by name.

**Intervals:** 95 % profile-likelihood intervals: every rating ``c`` whose likelihood-ratio statistic
``2 (max log L - max log L given R = c)`` is at most ``phi * 3.841`` (chi-square(1), Wilks 1938;
Venzon & Moolgavkar 1988 for the profile). They are asymmetric where the data are (a weak player's
interval reaches further down than up), stay finite for every finitely rated player, and never
raise. ``phi`` makes the game *pair* the independent unit: it is the ratio of the variance of pair
scores to twice the variance of single-game scores, pooled over pairings (the quantity behind the
difference between fastchess' pentanomial and trinomial errors), floored at 1, so pairs whose games
move together widen the intervals and pairs are never counted as more evidence than their games.

Why not a bootstrap: resampling game pairs (percentile intervals) covered the truth of the two
weakest players of a wide six-player pool only 24 % and 6 % of the time with 6 pairs a pairing,
because a pairing a player never scored in resamples to the same zero every time; the profile
likelihood covered 97-98 %. ``python -m benchmarks.rating_coverage`` measures the coverage (93-99 %).

**LOS** (likelihood of superiority) of A over B, from the same model: ``Phi(sign * sqrt(LR / phi))``,
where ``LR`` is the likelihood-ratio statistic for ``R_A = R_B`` and ``sign`` that of the estimated
difference (the signed root; it is 97.5 % exactly when the 95 % interval of the difference excludes
0).

**Prior** (optional, off by default): ``prior_draws`` virtual draws added to every pairing that met,
BayesElo's prior (Rémi Coulom). It keeps every rating finite but pulls the ratings together.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from reports.stats.headtohead import WDL, Pentanomial
from reports.stats.likelihood import Fit, Model, dispersion
from reports.stats.tally import Matchup, totals
from reports.words import signed

__all__ = ["Rating", "los_matrix", "rate", "rate_with_los"]

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of log-odds: the logistic Elo curve is ``expit(diff / ELO_PER_NAT)``."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating.

    Attributes:
        name: entrant name.
        elo: maximum-likelihood rating in Elo relative to the anchor; ``+inf`` (``-inf``) for a player
            who scored every point (no point) against the rated pool; ``nan`` when the games neither
            bound it nor order it against the pool.
        low, high: the 95 % profile-likelihood interval in Elo; for ``elo = +inf``, ``low`` is the
            one-sided 95 % lower bound (nan if none) and ``high`` is ``+inf``; mirrored for ``-inf``.
        games: games played.
        score: points scored (wins + draws / 2) in those games.
        reference: True for the player the scale's zero is put on: the anchor, or the rated pool's
            only member (its ``elo``, ``low`` and ``high`` are 0 by definition, not measured).
    """

    name: str
    elo: float
    low: float
    high: float
    games: int
    score: float
    reference: bool = False

    @property
    def is_finite(self) -> bool:
        """True when the maximum-likelihood rating is a number (not a bound)."""
        return math.isfinite(self.elo)

    def label(self) -> str:
        """``+123 [+50, +201]``, ``> +612``, ``< -540``, ``0 (reference)`` or ``unrated``: compact, for
        a figure's labels; a table shows :meth:`estimate` and :meth:`interval` in two columns."""
        if self.reference:
            return "0 (reference)"
        if self.is_finite:
            if math.isnan(self.low):
                return signed(self.elo)
            return f"{signed(self.elo)} [{signed(self.low)}, {signed(self.high)}]"
        if self.elo > 0:
            return f"> {signed(self.low)}" if math.isfinite(self.low) else "> any"
        if self.elo < 0:
            return f"< {signed(self.high)}" if math.isfinite(self.high) else "< any"
        return "unrated"

    def estimate(self) -> str:
        """The rating alone, for a table's Elo column: ``+123`` (``0``, never ``+0``, when it rounds to
        zero, :func:`reports.words.signed`), ``0`` for the reference, ``+∞`` or
        ``-∞`` for an unbounded player (so that the column reads in rank order), ``unrated``.

        An unbounded player whose one-sided bound lies on the far side of the scale's zero (``+∞``
        yet ``≥ -216``: two wins against the reference prove little) reads ``—``: its games give no
        estimate yet, and its interval column says what they do give."""
        if self.reference:
            return "0"
        if self.is_finite:
            return signed(self.elo)
        if self.elo > 0:
            return "—" if self.low < 0 else "+∞"
        return ("—" if self.high > 0 else "-∞") if self.elo < 0 else "unrated"

    def cell(self) -> str:
        """The rating and its interval in one table cell: ``-420 (-560 to -300)``; an unbounded
        player's one-sided bound alone, ``≤ -336`` (at most -336; its ``-∞`` adds nothing); ``0`` for
        the reference; ``unrated``."""
        if self.reference:
            return "0"
        interval = self.interval()
        if not interval:
            return self.estimate()
        return f"{self.estimate()} ({interval})" if self.is_finite else interval

    def interval(self) -> str:
        """The 95 % interval, for a table's interval column: ``+50 to +201``, ``≥ +612`` or
        ``≤ -540`` (the one-sided bound of an unbounded player), ``reference`` for the player at 0
        by definition, "" when there is none."""
        if self.reference:
            return "reference"
        if self.is_finite:
            return "" if math.isnan(self.low) else f"{signed(self.low)} to {signed(self.high)}"
        if self.elo > 0 and math.isfinite(self.low):
            return f"≥ {signed(self.low)}"
        if self.elo < 0 and math.isfinite(self.high):
            return f"≤ {signed(self.high)}"
        return ""


def rate(
    h2h: Mapping[Matchup, WDL],
    pairs: Mapping[Matchup, Pentanomial] | None = None,
    *,
    prior_draws: float = 0.0,
    anchor: str | None = None,
    intervals: bool | Collection[str] = True,
) -> list[Rating]:
    """Rate every player of ``h2h`` jointly, best first: by level of the "scored against" graph (a
    player that won every game against the rest ranks above it), then by rating, and by score per
    game where ratings cannot order players (unbounded ones of one level, unrated ones, ties); then
    by name.

    Args:
        h2h: wins, draws and losses of ``a`` against ``b`` per pairing ``(a, b)``
            (:func:`reports.stats.tally.head_to_head`).
        pairs: pentanomial counts of the colour-swapped game pairs per pairing
            (:func:`reports.stats.tally.pentanomials`); they set the dispersion ``phi`` of the intervals
            (1 without them).
        prior_draws: virtual draws added to every pairing that met (BayesElo's prior); >= 0.
        anchor: a player rated 0 Elo; ``None`` puts the mean of the rated pool at 0.
        intervals: False skips the intervals and bounds (``low``, ``high`` are nan); a collection of
            names computes those players' alone (a ladder's stop rule needs its newcomer's).

    Raises:
        ValueError: ``prior_draws < 0``; an ``anchor`` that did not play; players that fall into
            groups that never met (nothing relates their ratings).
    """
    pool = _Pool.of(h2h, pairs, prior_draws, anchor, phi=bool(intervals))
    return pool.ratings(anchor, intervals=intervals) if pool is not None else []


def rate_with_los(
    h2h: Mapping[Matchup, WDL], pairs: Mapping[Matchup, Pentanomial] | None = None
) -> tuple[list[Rating], np.ndarray]:
    """:func:`rate` (its defaults) and :func:`los_matrix` in the order of its ratings, from one fit of
    the model; raises ValueError as :func:`rate`."""
    pool = _Pool.of(h2h, pairs, 0.0, None)
    if pool is None:
        return [], np.full((0, 0), math.nan)
    ratings = pool.ratings(None)
    return ratings, pool.los([rating.name for rating in ratings])


@dataclass(frozen=True)
class _Pool:
    """The model of ``h2h`` fitted once (``fit``, with the players ``names`` in order) and the
    dispersion ``phi`` of its game pairs: what :func:`rate` and :func:`los_matrix` read."""

    h2h: Mapping[Matchup, WDL]
    names: list[str]
    fit: Fit
    phi: float

    @classmethod
    def of(
        cls,
        h2h: Mapping[Matchup, WDL],
        pairs: Mapping[Matchup, Pentanomial] | None,
        prior_draws: float,
        anchor: str | None,
        *,
        phi: bool = True,
    ) -> _Pool | None:
        """The fitted pool (None without players); ``phi`` False leaves the dispersion at 1."""
        if prior_draws < 0:
            raise ValueError("prior_draws must be >= 0")
        names = _players(h2h)
        if anchor is not None and anchor not in names:
            raise ValueError(f"anchor {anchor!r} did not play")
        if not names:
            return None
        model = Model.build(names, h2h, prior_draws)
        fit = model.fit_pool(None if anchor is None else names.index(anchor))
        return cls(h2h, names, fit, dispersion(names, h2h, pairs or {}, fit.theta) if phi else 1.0)

    def ratings(self, anchor: str | None, *, intervals: bool | Collection[str] = True) -> list[Rating]:
        """The ratings of :func:`rate`, with the intervals it asks for."""
        names, fit, phi, h2h = self.names, self.fit, self.phi, self.h2h
        low, high = np.full(len(names), math.nan), np.full(len(names), math.nan)
        chosen = () if intervals is False else intervals
        wanted = range(len(names)) if chosen is True else [k for k, n in enumerate(names) if n in chosen]
        for k in wanted:
            low[k], high[k] = fit.interval(k, phi)
        played = totals(h2h)
        reference = anchor
        if reference is None and fit.pool.sum() == 1:  # a pool of one: its player is the zero, unmeasured
            reference = names[int(np.argmax(fit.pool))]
        ratings = [
            Rating(
                name,
                float(fit.theta[k] * ELO_PER_NAT),
                float(low[k] * ELO_PER_NAT),
                float(high[k] * ELO_PER_NAT),
                played[name].games,
                played[name].points,
                reference=name == reference,
            )
            for k, name in enumerate(names)
        ]
        level = {name: fit.level[k] for k, name in enumerate(names)}
        return sorted(ratings, key=lambda r: (-level[r.name], *_rank_key(r), r.name))

    def los(self, order: Sequence[str]) -> np.ndarray:
        """The LOS matrix of :func:`los_matrix` in ``order``."""
        index = [self.names.index(name) for name in order]
        los = np.full((len(order), len(order)), math.nan)
        for i, a in enumerate(index):
            for j, b in enumerate(index[i + 1 :], start=i + 1):
                los[i, j] = self.fit.superiority(a, b, self.phi)
                los[j, i] = 1.0 - los[i, j]
        return los


def los_matrix(
    h2h: Mapping[Matchup, WDL],
    pairs: Mapping[Matchup, Pentanomial] | None = None,
    *,
    order: Sequence[str] | None = None,
    prior_draws: float = 0.0,
) -> np.ndarray:
    """Likelihood of superiority of ``order[i]`` over ``order[j]``, an ``(n, n)`` array of 0..1.

    From the same model, fit and dispersion as :func:`rate` (see the module docstring); the diagonal
    is nan. A player the games do not order against the pool has nan against everyone. ``order``
    defaults to every player, alphabetically. Raises ValueError as :func:`rate`.
    """
    names = _players(h2h)
    order = list(order) if order is not None else names
    if sorted(order) != names:
        raise ValueError("order must name every player of h2h once")
    pool = _Pool.of(h2h, pairs, prior_draws, None)
    return pool.los(order) if pool is not None else np.full((0, 0), math.nan)


def _players(h2h: Mapping[Matchup, WDL]) -> list[str]:
    """Every player of ``h2h``, sorted."""
    return sorted({name for pairing in h2h for name in pairing})


def _rank_key(rating: Rating) -> tuple[float, ...]:
    """The order within a level of the "scored against" graph (see the module docstring).

    Finitely rated players first, by rating; then, where the rating cannot order them (unbounded
    players of one level, unrated ones, equal ratings), by score per game, then by the one-sided
    bound (an unknown bound last). Smaller keys rank first. Ratings and bounds are compared to a
    millionth of an Elo: below that their digits are the fit's rounding (two agents with the same
    games differ there), not evidence.
    """
    share = rating.score / rating.games if rating.games else 0.0
    if rating.is_finite:
        return (0, -round(rating.elo, 6), -share, 0.0)
    bound = rating.low if rating.elo > 0 else rating.high
    return (1, 0.0, -share, -round(bound, 6) if math.isfinite(bound) else math.inf)
