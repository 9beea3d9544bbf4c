"""Who is ahead: the standings (:class:`Standing`) and the crosstable (:class:`Crosstable`) of a
tournament, each computed here once, from the counts and ratings that
:class:`reports.stats.results.Results` holds (it builds both, on first use).

Every table, figure and file of a report lays these out (:mod:`reports.stats.tables` as DataFrames,
:mod:`reports.render` as HTML, Markdown, PNG and text) instead of counting again. Rows and columns
are in rank order, the order of :func:`reports.stats.ratings.rate`. Forfeits count as losses for the
offender; games of an entrant against itself count nowhere (:mod:`reports.stats.tally`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from reports.stats.headtohead import WDL
from reports.stats.ratings import Rating
from reports.stats.tally import Matchup, oriented
from tournament.record import FORFEITS, Termination

__all__ = ["Crosstable", "Standing", "crosstable", "standings"]


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings: rank (from 1), the agent's rating, its results over all its games
    and the games it forfeited, by kind (``invalid``, ``timeouts``, ``errors``)."""

    rank: int
    agent: str
    rating: Rating
    wdl: WDL
    invalid: int
    timeouts: int
    errors: int

    @property
    def games(self) -> int:
        return self.wdl.games

    @property
    def wins(self) -> int:
        return self.wdl.wins

    @property
    def draws(self) -> int:
        return self.wdl.draws

    @property
    def losses(self) -> int:
        return self.wdl.losses

    @property
    def score_pct(self) -> float:
        """Points per game in percent, 0..100."""
        return 100 * self.wdl.points / self.wdl.games

    @property
    def forfeits(self) -> int:
        """Games it forfeited, of every kind."""
        return self.invalid + self.timeouts + self.errors


@dataclass(frozen=True, slots=True)
class Crosstable:
    """The agents in rank order (``order``) against each other, row agent against column agent.

    ``wdl[i][j]``: its wins, draws and losses (None where they never met, the diagonal included);
    ``score[i][j]``: its points per game, 0..1 (None likewise); ``forfeits[i][j]``: the games it
    forfeited there, by kind (only kinds that occurred); ``los[i][j]``: its likelihood of superiority
    (0..1, None on the diagonal or where the games do not order them).
    """

    order: list[str]
    wdl: list[list[WDL | None]]
    score: list[list[float | None]]
    forfeits: list[list[dict[Termination, int]]]
    los: list[list[float | None]]


def standings(
    ratings: Sequence[Rating], totals: Mapping[str, WDL], forfeited: Mapping[tuple[str, Termination], int]
) -> list[Standing]:
    """The standings: one line per rated agent, in the order of ``ratings`` (best first).

    ``totals`` are each agent's results (:func:`reports.stats.tally.totals`); ``forfeited`` counts
    the games each forfeited by kind, keyed ``(name, kind)``
    (:attr:`reports.stats.results.Results.forfeited`).
    """
    return [
        Standing(rank, r.name, r, totals[r.name], *(forfeited.get((r.name, kind), 0) for kind in FORFEITS))
        for rank, r in enumerate(ratings, start=1)
    ]


def crosstable(
    order: Sequence[str],
    h2h: Mapping[Matchup, WDL],
    forfeits: Counter[tuple[str, str, Termination]],
    los: np.ndarray,
) -> Crosstable:
    """The crosstable of the agents ``order`` from their results per pairing ``h2h``
    (:func:`reports.stats.tally.head_to_head`), the forfeits and the LOS matrix in that order
    (:func:`reports.stats.ratings.los_matrix`)."""
    size = len(order)

    def met(a: str, b: str) -> WDL | None:
        key = (a, b) if a < b else (b, a)
        return oriented(h2h, a, b) if a != b and key in h2h and h2h[key].games else None

    wdl = [[met(a, b) for b in order] for a in order]
    return Crosstable(
        order=list(order),
        wdl=wdl,
        score=[[None if cell is None else cell.points / cell.games for cell in row] for row in wdl],
        forfeits=[
            [{kind: forfeits[a, b, kind] for kind in FORFEITS if forfeits[a, b, kind]} for b in order]
            for a in order
        ],
        los=[[None if math.isnan(los[i, j]) else float(los[i, j]) for j in range(size)] for i in range(size)],
    )
