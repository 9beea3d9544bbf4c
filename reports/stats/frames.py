"""A tournament's results as pandas DataFrames, in one call, for notebooks: :func:`load`.

>>> from reports.stats.frames import load
>>> frames = load("runs/latest")                       # doctest: +SKIP
>>> frames.games.groupby("termination").size()          # doctest: +SKIP

:func:`games_frame` is also what ``games.csv`` holds (:func:`reports.render.documents.write_documents`), so a
spreadsheet and a notebook see the same columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reports.stats.results import Results
from reports.stats.tables import crosstable, pairs, standings
from tournament.record import GameRecord

__all__ = ["GAMES_COLUMNS", "Frames", "games_frame", "load"]

GAMES_COLUMNS = [
    "game_id", "pair_id", "first", "second", "rows", "columns", "inarow", "act_timeout", "seed",
    "opening", "moves", "plies", "result", "winner", "termination", "offender", "detail",
    "move_times", "duration", "started_at",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Frames:
    """The tables of one tournament.

    Attributes:
        games: one row per game, columns :data:`GAMES_COLUMNS` (see :func:`games_frame`).
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
        games=games_frame(results.records),
        standings=standings(results),
        crosstable=crosstable(results),
        pairs=pairs(results),
    )


def games_frame(records: Iterable[GameRecord]) -> pd.DataFrame:
    """One row per game, in the order given, columns :data:`GAMES_COLUMNS`.

    ``opening`` and ``moves`` (the opening included) are in Pons' notation
    (:meth:`agents.engine.board.Board.notation`), which ``connectx solve`` reads; ``plies`` counts the
    moves. ``result`` is ``first``'s score (1, 0.5, 0), ``winner`` the winning entrant ("" for a draw),
    ``termination`` one of ``win draw invalid timeout error`` and ``offender`` the entrant that forfeited
    ("" if none), with ``detail`` its message (possibly several lines). ``move_times`` is a tuple of
    seconds, one per agent call after the opening, alternating between the players from the one to move
    after the opening (a forfeit's offending call may be one more than the moves); ``duration`` is the
    game's wall-clock seconds, ``started_at`` its ISO 8601 UTC start.
    """
    rows = []
    for record in records:
        task = record.task
        offender = {1: record.first, 2: record.second}.get(record.offender or 0, "")
        winner = "" if record.result == 0.5 else record.first if record.result == 1.0 else record.second
        rows.append(
            {
                "game_id": record.game_id,
                "pair_id": record.pair_id,
                "first": record.first,
                "second": record.second,
                "rows": task.rows,
                "columns": task.columns,
                "inarow": task.inarow,
                "act_timeout": task.act_timeout,
                "seed": task.seed,
                "opening": record.board(len(record.opening)).notation(),
                "moves": record.board().notation(),
                "plies": len(record.moves),
                "result": record.result,
                "winner": winner,
                "termination": str(record.termination),
                "offender": offender,
                "detail": record.detail,
                "move_times": tuple(record.move_times),
                "duration": record.duration,
                "started_at": record.started_at,
            }
        )
    return pd.DataFrame(rows, columns=GAMES_COLUMNS)
