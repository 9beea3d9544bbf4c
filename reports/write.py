"""Write every report of a tournament into a directory, and format the standings for a terminal.

Each file is written to a temporary file beside it and moved into place with :func:`os.replace`, so a
reader (or an interrupted run) sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from reports.plots import plot_crosstable, plot_elo
from reports.ratings import rate
from reports.tables import crosstable, pairs, standings
from reports.tally import head_to_head
from tournament.record import GameRecord

__all__ = ["format_standings", "write_reports"]

ELO_COLUMNS = ["agent", "elo", "elo_low", "elo_high", "games", "score"]


def write_reports(
    records: Iterable[GameRecord], out_dir: Path | str, *, seed: int = 0, bootstrap: int = 200
) -> dict[str, Path]:
    """Write the reports of ``records`` into ``out_dir`` (created if missing), replacing old ones.

    Files: ``standings.csv``, ``crosstable.csv``, ``elo.csv`` (:data:`ELO_COLUMNS`), ``pairs.csv``
    (see :mod:`reports.tables`), ``elo.png`` and ``crosstable.png`` (see :mod:`reports.plots`).
    Ratings use :func:`reports.ratings.rate` with its default prior, ``bootstrap`` resamples and
    ``seed``. Returns the path of each file by file name.

    Raises:
        ValueError: no game between two different agents; see also :func:`reports.ratings.rate` and
            :func:`reports.tables.pairs`.
    """
    records = list(records)
    h2h = head_to_head(records)
    if not h2h:
        raise ValueError("no game between two different agents to report")
    ratings = rate(h2h, bootstrap=bootstrap, seed=seed)
    order = [rating.name for rating in ratings]
    table = standings(records, ratings)
    title = f"{sum(wdl.games for wdl in h2h.values())} games · {_configuration(records)}"
    interval = f"95 % interval from {bootstrap} simulated tournaments, " if bootstrap else ""
    writers: dict[str, Callable[[Path], object]] = {
        "standings.csv": _csv(table),
        "crosstable.csv": _csv(crosstable(records, order), index=True),
        "elo.csv": _csv(table[ELO_COLUMNS]),
        "pairs.csv": _csv(pairs(records, order)),
        "elo.png": lambda path: plot_elo(ratings, path, title=f"Elo ({interval}pool mean 0)\n{title}"),
        "crosstable.png": lambda path: plot_crosstable(h2h, order, path, title=f"Crosstable\n{title}"),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, write in writers.items():
        _replace_atomically(out / name, write)
    return {name: out / name for name in writers}


def format_standings(table: pd.DataFrame) -> str:
    """The standings (:func:`reports.tables.standings`) as a fixed-width text table, one line per agent."""
    interval = (
        "[" + table["elo_low"].map("{:+.0f}".format) + ", " + table["elo_high"].map("{:+.0f}".format) + "]"
    )
    forfeits = (
        table["invalid"].astype(str) + "/" + table["timeouts"].astype(str) + "/" + table["errors"].astype(str)
    )
    text = pd.DataFrame(
        {
            "#": range(1, len(table) + 1),
            "agent": table["agent"],
            "Elo": table["elo"].map("{:+.0f}".format),
            "95% interval": interval.where(table["elo_low"].notna(), ""),
            "games": table["games"],
            "W": table["wins"],
            "D": table["draws"],
            "L": table["losses"],
            "score": table["score_pct"].map("{:.1f}%".format),
            "inv/time/err": forfeits,
        }
    )
    return text.to_string(index=False)


def _configuration(records: list[GameRecord]) -> str:
    """The board and time settings of the games, e.g. ``6x7, 4 in a row, 2 s a move``, joined by ``;``."""
    settings = sorted({(r.rows, r.columns, r.inarow, r.act_timeout) for r in records})
    return "; ".join(
        f"{rows}x{columns}, {inarow} in a row, {timeout:g} s a move"
        for rows, columns, inarow, timeout in settings
    )


def _csv(frame: pd.DataFrame, *, index: bool = False) -> Callable[[Path], object]:
    return lambda path: frame.to_csv(path, index=index, float_format="%.6g")


def _replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Call ``write`` on a temporary path in ``path``'s directory, then move the result to ``path``."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
