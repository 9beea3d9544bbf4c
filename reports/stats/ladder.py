"""A ladder's ratings: its rating list, how the ratings moved as members joined, where the Kaggle-style
skill orders members otherwise, and the fits an ``add`` plays by (:class:`LadderRater`).

Every rating here is a joint fit of all the ladder's games, the project's maximum-likelihood Elo with
profile-likelihood intervals (:func:`reports.stats.ratings.rate`), computed afresh from the stored
games each time: nothing is updated game by game, so the list a ladder shows after any number of adds
is the fit of everything it has played, as rating lists (CCRL, Ordo) are. The scale's zero is the
mean of the rated pool, or an anchor pinned at a chosen Elo as Ordo's ``-a``/``-A`` do: the
anchor's rating is that value by definition and the others' intervals are relative to it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reports.stats.headtohead import WDL
from reports.stats.kaggle import KaggleParameters, Skill, replay
from reports.stats.likelihood import Model
from reports.stats.progress import Checkpoint
from reports.stats.ratings import ELO_PER_NAT, Rating, rate
from reports.stats.tally import head_to_head, pentanomials, totals
from tournament.ladder import Member, Outlook, Roster
from tournament.record import GameRecord

__all__ = ["PRIOR_DRAWS", "Entry", "LadderRater", "disagreements", "history", "rating_list"]

PRIOR_DRAWS = 1.0
"""Virtual draws a pairing that met gets in the fit matchmaking plans by (BayesElo's prior): every
member gets a finite rating to be matched by, also one that won or lost every game."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One member in the rating list: its ``rating`` (None before its first game), its games' ``wdl``,
    its Kaggle-style ``skill`` (None before its first game), and how many ``versions`` of its name the
    ladder holds."""

    member: Member
    rating: Rating | None
    wdl: WDL
    skill: Skill | None
    versions: int


def rating_list(
    records: Sequence[GameRecord],
    roster: Roster,
    *,
    anchor: tuple[str, float] | None = None,
    kaggle: KaggleParameters = KaggleParameters(),  # noqa: B008 - immutable
) -> list[Entry]:
    """Every member of ``roster``, best first as :func:`~reports.stats.ratings.rate` orders them, then
    the members without games in the order they joined. ``anchor`` is ``(member id, Elo)``: that
    member is held at that Elo (module docstring); without it the pool's mean is 0. Raises
    ValueError for an anchor that has not played."""
    h2h = head_to_head(records)
    ratings = rate(h2h, pentanomials(records), anchor=None if anchor is None else anchor[0]) if h2h else []
    if anchor is not None:
        ratings = [_shifted(rating, anchor[1]) for rating in ratings]
    rated = {rating.name: rating for rating in ratings}
    played = totals(h2h)
    skills = replay(records, kaggle)
    order = [rating.name for rating in ratings] + [m.id for m in roster.members if m.id not in rated]
    members = {member.id: member for member in roster.members}
    count = {name: sum(m.name == name for m in roster.members) for name in {m.name for m in roster.members}}
    return [
        Entry(
            members[name],
            rated.get(name),
            played.get(name, WDL()),
            skills.get(name),
            count[members[name].name],
        )
        for name in order
        if name in members
    ]


def _shifted(rating: Rating, offset: float) -> Rating:
    """``rating`` with its Elo and interval moved by ``offset``."""
    return dataclasses.replace(
        rating, elo=rating.elo + offset, low=rating.low + offset, high=rating.high + offset
    )


def history(records: Sequence[GameRecord], roster: Roster, *, points: int = 12) -> list[Checkpoint]:
    """The ratings (with intervals) after the additions of ``roster``'s sessions: the games whose pairs
    come before the next addition's first pair. At most ``points`` additions, evenly spaced, the last
    always among them (each costs a fit with every interval). Additions after which the ratings
    cannot be fitted yet (no two members met, or groups that never met) are left out."""
    ordered = sorted(records, key=lambda record: record.game_id)
    ends = [session.first_pair for session in roster.sessions[1:]] + [math.inf]
    if len(ends) > points:
        ends = (
            [ends[round(k * (len(ends) - 1) / (points - 1))] for k in range(points)]
            if points > 1
            else ends[-1:]
        )
    checkpoints: list[Checkpoint] = []
    for end in ends:
        prefix = [record for record in ordered if record.pair_id < end]
        h2h = head_to_head(prefix)
        if not h2h or (checkpoints and checkpoints[-1].games == len(prefix)):
            continue
        try:
            ratings = rate(h2h, pentanomials(prefix))
        except ValueError:
            continue
        checkpoints.append(Checkpoint(len(prefix), tuple(ratings)))
    return checkpoints


def disagreements(entries: Sequence[Entry]) -> list[tuple[str, str, bool]]:
    """The pairs of members that the Kaggle-style μ orders otherwise than the ML Elo: ``(a, b,
    overlap)`` with ``a`` above ``b`` in the rating list (``entries``, best first) but below it by
    μ, and whether their 95 % intervals overlap (an unbounded rating's reaches to infinity on its
    side, a missing one everywhere)."""
    rated = [entry for entry in entries if entry.rating is not None and entry.skill is not None]
    out = []
    for i, upper in enumerate(rated):
        for lower in rated[i + 1 :]:
            assert upper.skill is not None and lower.skill is not None
            if upper.skill.mu < lower.skill.mu:
                a, b = _span(upper.rating), _span(lower.rating)
                out.append((upper.member.id, lower.member.id, a[0] <= b[1] and b[0] <= a[1]))
    return out


def _span(rating: Rating | None) -> tuple[float, float]:
    """The interval a rating may lie in, as :func:`disagreements` compares them."""
    if rating is None or math.isnan(rating.elo):
        return (-math.inf, math.inf)
    if rating.is_finite:
        low, high = (rating.elo, rating.elo) if math.isnan(rating.low) else (rating.low, rating.high)
        return (low, high)
    if rating.elo > 0:
        return (rating.low if math.isfinite(rating.low) else -math.inf, math.inf)
    return (-math.inf, rating.high if math.isfinite(rating.high) else math.inf)


class LadderRater:
    """The fits an ``add`` plays by (:class:`tournament.ladder.Rater`): the joint fit's Gaussian outlook
    for matchmaking, and the newcomer's ML Elo and interval for its stop rule."""

    def outlook(self, records: Sequence[GameRecord], newcomer: str) -> Outlook | None:
        """Every player's rating and covariance (Elo, Elo²) in the Laplace approximation of the joint
        fit of ``records``, with :data:`PRIOR_DRAWS` virtual draws a pairing that met and, as the
        newcomer's prior, one virtual draw spread over the others (so that it starts in their
        middle, as a Kaggle submission starts at μ0), and the ``target``: the newcomer minus the
        mean of the rated pool (the finitely rated players of :func:`~reports.stats.ratings.rate`,
        the newcomer with them). None when the players fall into groups that never met."""
        h2h = head_to_head(records)
        names = sorted({name for pairing in h2h for name in pairing} | {newcomer})
        if len(names) < 2:
            return None
        index = {name: k for k, name in enumerate(names)}
        rows = [
            (index[a], index[b], wdl.games + PRIOR_DRAWS, wdl.points + PRIOR_DRAWS / 2)
            for (a, b), wdl in h2h.items()
        ]
        others = [name for name in names if name != newcomer]
        rows += [(index[newcomer], index[other], 1.0 / len(others), 0.5 / len(others)) for other in others]
        first, second, games, points = (np.array(column) for column in zip(*rows, strict=True))
        model = Model(len(names), first.astype(int), second.astype(int), games, points)
        try:
            theta = model.fit_pool(None).theta
            finite = {r.name for r in rate(h2h, intervals=False) if r.is_finite} if h2h else set(names)
        except ValueError:
            return None
        hessian = model.nll(theta, np.ones(len(rows), dtype=bool))[2]
        pool = np.array([name in finite or name == newcomer for name in names], dtype=float)
        target = -pool / pool.sum()
        target[index[newcomer]] += 1.0
        covariance = np.linalg.pinv(hessian) * ELO_PER_NAT**2
        return Outlook(tuple(names), theta * ELO_PER_NAT, covariance, target)

    def standing(self, records: Sequence[GameRecord], name: str) -> tuple[float, float, float]:
        """``name``'s ML Elo in the joint fit of ``records`` (the pool's mean at 0) and its 95 %
        interval, ``(elo, low, high)``: the numbers the rating list shows for it (:func:`rating_list`
        without an anchor). An unbounded rating has its one-sided bound and an infinite other side;
        one that cannot be fitted, or none, is nan with ``(-inf, inf)``."""
        h2h = head_to_head(records)
        try:
            ratings = rate(h2h, pentanomials(records), intervals={name})
        except ValueError:
            return math.nan, -math.inf, math.inf
        rating = next((r for r in ratings if r.name == name), None)
        if rating is None or math.isnan(rating.elo):
            return math.nan, -math.inf, math.inf
        low = -math.inf if math.isnan(rating.low) else rating.low
        high = math.inf if math.isnan(rating.high) else rating.high
        return rating.elo, low, high
