"""A tournament's results as pandas DataFrames, in one call, for notebooks: :func:`load`.

>>> from reports.stats.frames import load
>>> frames = load("runs/latest")                       # doctest: +SKIP
>>> frames.games.groupby("termination").size()          # doctest: +SKIP

The tables are those of :mod:`reports.stats.tables`, which a report's CSV files hold too, so a
spreadsheet and a notebook see the same columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reports.stats.results import Results
from reports.stats.tables import crosstable, games, pairs, standings

__all__ = ["Frames", "load"]


@dataclass(frozen=True, slots=True)
class Frames:
    """The tables of one tournament.

    Attributes:
        games: one row per game (:func:`reports.stats.tables.games`).
        standings: one row per agent, best first (:func:`reports.stats.tables.standings`).
        crosstable: score per game (0..1) of the row agent against the column agent, in standings
            order; nan where they never met (:func:`reports.stats.tables.crosstable`).
        pairs: head-to-head statistics of every pairing (:func:`reports.stats.tables.pairs`).
    """

    games: pd.DataFrame
    standings: pd.DataFrame
    crosstable: pd.DataFrame
    pairs: pd.DataFrame


def load(directory: Path | str) -> Frames:
    """The :class:`Frames` of the tournament stored in ``directory`` (its ``tournament.db``).

    Ratings are :func:`reports.stats.ratings.rate`'s defaults, as in the written reports. Reads only.

    Raises:
        tournament.store.StoreError: no tournament in ``directory``.
        ValueError: no game between two different agents yet.
    """
    results = Results.load(directory)
    if not results.h2h:
        raise ValueError(f"no game between two different agents in {directory}")
    return Frames(
        games=games(results.records),
        standings=standings(results.standings),
        crosstable=crosstable(results.crosstable),
        pairs=pairs(results.h2h, results.pentanomials, results.order),
    )
