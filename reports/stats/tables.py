"""Tournament tables as pandas DataFrames: standings, crosstable, head-to-head pairs, LOS and games,
laid out from the statistics :class:`reports.stats.results.Results` computed once (each function takes
the ones it shows); :func:`tables` makes them all (the CSV files of a report, :class:`Tables`).

Units everywhere: ``score`` is points (a win 1, a draw 1/2), ``score_pct`` is points per game in
percent, Elo values are in Elo, ``los`` is a probability 0..1. Forfeits count as the recorded result
(a loss for the offender). Games of an entrant against itself are left out (see :mod:`reports.stats.tally`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reports.stats.headtohead import WDL, Pentanomial, estimate_pentanomial, estimate_wdl
from reports.stats.standings import Crosstable, Standing
from reports.stats.tally import Matchup, oriented
from tournament.record import GameRecord

__all__ = [
    "ELO_COLUMNS",
    "GAMES_COLUMNS",
    "Tables",
    "crosstable",
    "games",
    "los",
    "pairs",
    "standings",
    "tables",
]

STANDINGS_COLUMNS = [
    "agent", "games", "wins", "draws", "losses", "score", "invalid", "timeouts", "errors",
    "elo", "elo_low", "elo_high", "score_pct",
]  # fmt: skip

ELO_COLUMNS = ["agent", "elo", "elo_low", "elo_high", "games", "score"]
"""The columns of the Elo table: the ratings of :data:`STANDINGS_COLUMNS`."""

GAMES_COLUMNS = [
    "game_id", "pair_id", "first", "second", "rows", "columns", "inarow", "act_timeout", "seed",
    "opening", "moves", "plies", "result", "winner", "termination", "offender", "detail",
    "move_times", "duration", "started_at",
]  # fmt: skip

PAIRS_COLUMNS = [
    "agent_a", "agent_b", "games", "wins", "draws", "losses", "score", "score_pct", "elo_diff", "elo_error",
    "los", "pairs", "ll", "ld", "dd_wl", "wd", "ww", "penta_elo_error", "penta_los",
]  # fmt: skip


def standings(lines: Sequence[Standing]) -> pd.DataFrame:
    """One row per agent of the standings ``lines`` (:attr:`reports.stats.results.Results.standings`),
    in their order (best first), columns :data:`STANDINGS_COLUMNS`.

    ``games, wins, draws, losses`` count the agent's games, ``score`` its points; ``invalid``,
    ``timeouts``, ``errors`` the games it forfeited by an invalid action, a time-out or an exception;
    ``elo``, ``elo_low``, ``elo_high`` its joint rating and 95 % interval (:func:`reports.stats.ratings.rate`;
    ``elo`` is ``+-inf`` for a player who scored every point or none against the rated pool, and its
    one-sided bound is in ``elo_low`` or ``elo_high``).
    """
    rows = [
        {
            "agent": line.agent,
            "games": line.games,
            "wins": line.wins,
            "draws": line.draws,
            "losses": line.losses,
            "score": line.wdl.points,
            "invalid": line.invalid,
            "timeouts": line.timeouts,
            "errors": line.errors,
            "elo": line.rating.elo,
            "elo_low": line.rating.low,
            "elo_high": line.rating.high,
            "score_pct": line.score_pct,
        }
        for line in lines
    ]
    return pd.DataFrame(rows, columns=STANDINGS_COLUMNS)


def crosstable(cross: Crosstable, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Score (0..1, points per game) of the row agent against the column agent; ``nan`` where they never met.

    Rows and columns are ``order`` (default: the crosstable's, the standings order, best first); the index
    is named ``agent``. The scores are those of ``cross`` (:attr:`reports.stats.results.Results.crosstable`).
    """
    score = [[np.nan if value is None else value for value in row] for row in cross.score]
    table = pd.DataFrame(score, index=pd.Index(cross.order, name="agent"), columns=cross.order, dtype=float)
    return table if order is None else table.loc[list(order), list(order)]


def pairs(
    h2h: Mapping[Matchup, WDL], pentanomials: Mapping[Matchup, Pentanomial], order: Sequence[str]
) -> pd.DataFrame:
    """Head-to-head statistics of every pairing that played, columns :data:`PAIRS_COLUMNS`, from the
    counts per pairing ``h2h`` and ``pentanomials`` (:class:`reports.stats.results.Results`').

    ``agent_a`` comes before ``agent_b`` in ``order`` (the standings', best first, in a report), and
    rows follow that order. Counts and ``score`` are ``agent_a``'s; ``elo_diff``, ``elo_error`` (95 %)
    and ``los`` are the trinomial estimate of ``agent_a - agent_b`` (:func:`estimate_wdl`);
    ``pairs`` and ``ll .. ww`` the complete colour-swapped pairs and their pentanomial counts,
    ``penta_elo_error`` and ``penta_los`` the pentanomial estimate
    (:func:`estimate_pentanomial`).
    """
    names = list(order)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            key = (a, b) if a < b else (b, a)
            if key not in h2h:
                continue
            wdl = oriented(h2h, a, b)
            penta = oriented(pentanomials, a, b) if key in pentanomials else Pentanomial()
            trinomial, pentanomial = estimate_wdl(wdl), estimate_pentanomial(penta)
            rows.append(
                {
                    "agent_a": a,
                    "agent_b": b,
                    "games": wdl.games,
                    "wins": wdl.wins,
                    "draws": wdl.draws,
                    "losses": wdl.losses,
                    "score": wdl.points,
                    "score_pct": 100 * wdl.points / wdl.games,
                    "elo_diff": trinomial.elo,
                    "elo_error": trinomial.error,
                    "los": trinomial.los,
                    "pairs": penta.pairs,
                    "ll": penta.ll,
                    "ld": penta.ld,
                    "dd_wl": penta.dd_wl,
                    "wd": penta.wd,
                    "ww": penta.ww,
                    "penta_elo_error": pentanomial.error,
                    "penta_los": pentanomial.los,
                }
            )
    return pd.DataFrame(rows, columns=PAIRS_COLUMNS)


def los(matrix: np.ndarray, order: Sequence[str]) -> pd.DataFrame:
    """Likelihood of superiority (0..1) of the row agent over the column agent: ``matrix`` in ``order``
    (:attr:`reports.stats.results.Results.los`, in standings order); the index is named ``agent``."""
    return pd.DataFrame(matrix, index=pd.Index(list(order), name="agent"), columns=list(order))


def games(records: Iterable[GameRecord]) -> pd.DataFrame:
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
                "opening": record.notation(len(record.opening)),
                "moves": record.notation(),
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


@dataclass(frozen=True, slots=True)
class Tables:
    """Every table of a tournament, as its report's CSV files hold them: :func:`standings`, the
    ratings of it (:data:`ELO_COLUMNS`), :func:`crosstable`, :func:`pairs`, :func:`los` and
    :func:`games`."""

    standings: pd.DataFrame
    elo: pd.DataFrame
    crosstable: pd.DataFrame
    pairs: pd.DataFrame
    los: pd.DataFrame
    games: pd.DataFrame


def tables(
    lines: Sequence[Standing],
    cross: Crosstable,
    h2h: Mapping[Matchup, WDL],
    pentanomials: Mapping[Matchup, Pentanomial],
    matrix: np.ndarray,
    records: Iterable[GameRecord],
) -> Tables:
    """The :class:`Tables` of a tournament from its statistics: the standings ``lines``, the crosstable
    ``cross`` (whose order, the standings', every table follows), the counts per pairing ``h2h`` and
    ``pentanomials``, the LOS ``matrix`` in that order, and the games ``records``."""
    table = standings(lines)
    order = cross.order
    return Tables(
        table,
        table[ELO_COLUMNS],
        crosstable(cross),
        pairs(h2h, pentanomials, order),
        los(matrix, order),
        games(records),
    )
