"""Write every report of a tournament into a directory, and format the standings for a terminal.

Each file is written to a temporary file beside it and moved into place with :func:`os.replace`, so a
reader (or an interrupted run) sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pandas as pd

from reports.plots import plot_crosstable, plot_elo, plot_progress
from reports.progress import Checkpoint, progression
from reports.ratings import Rating, los_matrix, rate
from reports.tables import crosstable, pairs, standings
from reports.tally import distinct_games, head_to_head, pentanomials
from tournament.record import GameRecord

__all__ = ["format_standings", "notes", "readable_pairs", "replace_atomically", "write_reports"]

ELO_COLUMNS = ["agent", "elo", "elo_low", "elo_high", "games", "score"]


def write_reports(
    records: Iterable[GameRecord],
    out_dir: Path | str,
    *,
    ratings: Sequence[Rating] | None = None,
    history: Sequence[Checkpoint] | None = None,
) -> dict[str, Path]:
    """Write the reports of ``records`` into ``out_dir`` (created if missing), replacing old ones.

    Files: ``standings.csv``, ``crosstable.csv``, ``elo.csv`` (:data:`ELO_COLUMNS`), ``pairs.csv``
    (see :mod:`reports.tables`), ``los.csv`` (likelihood of superiority of the row agent over the
    column agent, :func:`reports.ratings.los_matrix`), ``elo.png``, ``elo_progress.png`` and
    ``crosstable.png`` (see :mod:`reports.plots`). Ratings are :func:`reports.ratings.rate`'s
    defaults; ``ratings`` and ``history`` (:func:`reports.progress.progression`) are those of
    ``records`` when the caller has them already (they are the costly part), else computed here.
    Returns the path of each file by file name.

    Raises:
        ValueError: no game between two different agents; see also :func:`reports.ratings.rate` and
            :func:`reports.tables.pairs`.
    """
    records = list(records)
    h2h = head_to_head(records)
    if not h2h:
        raise ValueError("no game between two different agents to report")
    pentas = pentanomials(records)
    ratings = rate(h2h, pentas) if ratings is None else ratings
    order = [rating.name for rating in ratings]
    table = standings(records, ratings)
    los = pd.DataFrame(
        los_matrix(h2h, pentas, order=order), index=pd.Index(order, name="agent"), columns=order
    )
    title = f"{sum(wdl.games for wdl in h2h.values())} games · {_configuration(records)}"
    history = progression(records) if history is None else history
    writers: dict[str, Callable[[Path], object]] = {
        "standings.csv": _csv(table),
        "crosstable.csv": _csv(crosstable(records, order), index=True),
        "elo.csv": _csv(table[ELO_COLUMNS]),
        "pairs.csv": _csv(readable_pairs(pairs(records, order)), na_rep="n/a"),
        "los.csv": _csv(los, index=True),
        "elo.png": lambda path: plot_elo(
            ratings, path, title=f"Elo: maximum likelihood, 95 % profile-likelihood intervals\n{title}"
        ),
        "elo_progress.png": lambda path: plot_progress(history, path, title=f"Elo progression\n{title}"),
        "crosstable.png": lambda path: plot_crosstable(records, order, path, title=f"Crosstable\n{title}"),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, write in writers.items():
        replace_atomically(out / name, write)
    return {name: out / name for name in writers}


def format_standings(table: pd.DataFrame) -> str:
    """The standings (:func:`reports.tables.standings`) as a fixed-width text table, one line per agent.

    The Elo column shows the rating and its 95 % interval, or a one-sided bound (``> +612``) for a
    player whose maximum-likelihood rating is infinite.
    """
    ratings = [
        Rating(row.agent, row.elo, row.elo_low, row.elo_high, row.games, row.score)
        for row in table.itertuples()
    ]
    forfeits = (
        table["invalid"].astype(str) + "/" + table["timeouts"].astype(str) + "/" + table["errors"].astype(str)
    )
    text = pd.DataFrame(
        {
            "#": range(1, len(table) + 1),
            "agent": table["agent"],
            "Elo [95% interval]": [rating.label() for rating in ratings],
            "games": table["games"],
            "W": table["wins"],
            "D": table["draws"],
            "L": table["losses"],
            "score": table["score_pct"].map("{:.1f}%".format),
            "inv/time/err": forfeits,
        }
    )
    return text.to_string(index=False)


def notes(records: Iterable[GameRecord], table: pd.DataFrame) -> list[str]:
    """Lines to print under the standings: distinct games, repeated games, unbounded ratings."""
    records = list(records)
    distinct = distinct_games(records)
    unique, total = sum(d for d, _ in distinct.values()), sum(g for _, g in distinct.values())
    lines = [f"{unique} of {total} games distinct"]
    for (a, b), (d, g) in sorted(distinct.items()):
        if d < g:
            lines.append(f"warning: {a} v {b} repeated games: {d} distinct of {g}")
    for row in table.itertuples():
        if row.elo == float("inf"):
            lines.append(
                f"{row.agent} scored every point against the agents below it: its maximum-likelihood "
                "rating is infinite; shown is its one-sided 95 % lower bound"
            )
        elif row.elo == float("-inf"):
            lines.append(
                f"{row.agent} scored no point against the agents above it: its maximum-likelihood "
                "rating is minus infinity; shown is its one-sided 95 % upper bound"
            )
    return lines


def _configuration(records: list[GameRecord]) -> str:
    """The board and time settings of the games, e.g. ``6x7, 4 in a row, 2 s a move``, joined by ``;``."""
    settings = sorted({(r.rows, r.columns, r.inarow, r.act_timeout) for r in records})
    return "; ".join(
        f"{rows}x{columns}, {inarow} in a row, {timeout:g} s a move"
        for rows, columns, inarow, timeout in settings
    )


def readable_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """The pairs table (:func:`reports.tables.pairs`) as ``pairs.csv`` shows it: Elo figures to 0.1,
    ``score_pct`` to 0.1, LOS to 0.0001, and a ``note`` saying why a figure is not a number.

    An infinite ``elo_diff`` (one side scored every point) stays ``inf`` / ``-inf``, which
    ``pandas.read_csv`` reads back as a number; a missing error is written ``n/a`` (also read back,
    as nan) and explained in ``note``.
    """
    rounded = table.round(
        {"score_pct": 1, "elo_diff": 1, "elo_error": 1, "penta_elo_error": 1, "los": 4, "penta_los": 4}
    )
    notes_ = []
    for row in table.itertuples():
        if row.elo_diff == float("inf"):
            notes_.append(f"{row.agent_a} scored every point: the Elo difference has no finite estimate")
        elif row.elo_diff == float("-inf"):
            notes_.append(f"{row.agent_b} scored every point: the Elo difference has no finite estimate")
        elif row.elo_error == float("inf"):
            notes_.append("too few games to bound the difference on one side: the error is unbounded")
        elif row.pairs == 0:
            notes_.append("no complete game pair: no pentanomial figures")
        else:
            notes_.append("")
    return rounded.assign(note=notes_)


def _csv(frame: pd.DataFrame, *, index: bool = False, na_rep: str = "") -> Callable[[Path], object]:
    return lambda path: frame.to_csv(path, index=index, float_format="%.6g", na_rep=na_rep)


def replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Call ``write`` on a temporary path in ``path``'s directory, then move the result to ``path``."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
