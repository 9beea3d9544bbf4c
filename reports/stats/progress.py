"""Elo progression: every agent's rating and interval as the games of a tournament accumulate."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reports.stats.ratings import Rating, rate
from reports.stats.tally import head_to_head, pentanomials
from tournament.record import GameRecord

__all__ = ["Checkpoint", "progression"]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The ratings (:func:`reports.stats.ratings.rate`) after the first ``games`` games, by game id."""

    games: int
    ratings: tuple[Rating, ...]


def progression(records: Iterable[GameRecord], *, points: int = 12) -> list[Checkpoint]:
    """Ratings after about ``points`` evenly spaced prefixes of the games, in game-id order.

    Prefixes end on an even number of games, so that colour-swapped pairs (games ``2k``, ``2k+1``)
    are complete, and the last is every game. Prefixes in which no two agents have met yet, or whose
    players fall into groups that never met, are skipped. Raises ValueError for ``points < 1``.
    """
    if points < 1:
        raise ValueError("points must be >= 1")
    ordered = sorted(records, key=lambda record: record.game_id)
    total = len(ordered)
    ends = sorted({min(total, 2 * round(total * k / points / 2)) for k in range(1, points + 1)} | {total})
    checkpoints = []
    for end in ends:
        prefix = ordered[:end]
        h2h = head_to_head(prefix)
        if not h2h:
            continue
        try:
            ratings = rate(h2h, pentanomials(prefix))
        except ValueError:  # not every player has met the pool yet
            continue
        checkpoints.append(Checkpoint(end, tuple(ratings)))
    return checkpoints
