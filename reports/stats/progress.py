"""Elo progression: every agent's rating and interval as the games of a tournament accumulate
(:attr:`reports.stats.results.Results.progress` fits it, from the counts taken in its one pass at
the :func:`ends` of the prefixes)."""

from __future__ import annotations

from dataclasses import dataclass

from reports.stats.ratings import Rating

__all__ = ["Checkpoint", "ends"]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The ratings (:func:`reports.stats.ratings.rate`) after the first ``games`` games, by game id."""

    games: int
    ratings: tuple[Rating, ...]


def ends(total: int, points: int = 12) -> list[int]:
    """How many games each of about ``points`` evenly spaced prefixes of ``total`` games holds, ascending.

    Prefixes end on an even number of games, so that colour-swapped pairs (games ``2k``, ``2k+1``)
    are complete, and the last is every game. Raises ValueError for ``points < 1``.
    """
    if points < 1:
        raise ValueError("points must be >= 1")
    return sorted({min(total, 2 * round(total * k / points / 2)) for k in range(1, points + 1)} | {total})
