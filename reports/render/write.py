"""Write the tables (CSV) and figures (PNG) of a tournament's :class:`~reports.report.Report`.

Each file is replaced atomically (:func:`agents.files.replace_atomically`): a reader, or an interrupted
run, sees the old file or the new one, never half of one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from agents.files import replace_atomically
from reports.render.plots import plot_crosstable, plot_elo, plot_progress
from reports.report import Report

__all__ = ["FILES", "readable_pairs", "write_reports"]

FILES = (
    "standings.csv", "crosstable.csv", "elo.csv", "pairs.csv", "los.csv", "elo.png", "elo_progress.png",
    "crosstable.png",
)  # fmt: skip
"""The files :func:`write_reports` writes, in that order."""


def write_reports(
    report: Report, out_dir: Path | str, *, on_file: Callable[[str], object] = lambda name: None
) -> dict[str, Path]:
    """Write the tables and figures of ``report`` into ``out_dir`` (created if missing), replacing old
    ones; the figures' Elo axis says where its zero is (:attr:`reports.report.Report.scale`).
    ``on_file`` is called with each file's name before it is written (for a progress bar).

    Files (:data:`FILES`): ``standings.csv``, ``crosstable.csv``, ``elo.csv``, ``pairs.csv`` (see
    :mod:`reports.stats.tables`), ``los.csv`` (likelihood of superiority of the row agent over the
    column agent), ``elo.png``, ``elo_progress.png`` and ``crosstable.png`` (see
    :mod:`reports.render.plots`). Returns the path of each file by file name.
    """
    tables, title, scale = report.tables, report.caption, report.scale
    writers: dict[str, Callable[[Path], object]] = {
        "standings.csv": _csv(tables.standings),
        "crosstable.csv": _csv(tables.crosstable, index=True),
        "elo.csv": _csv(tables.elo),
        "pairs.csv": _csv(readable_pairs(tables.pairs), na_rep="n/a"),
        "los.csv": _csv(tables.los, index=True),
        "elo.png": lambda path: plot_elo(
            report.ratings,
            path,
            title=f"Elo: maximum likelihood, 95 % profile-likelihood intervals\n{title}",
            scale=scale,
        ),
        "elo_progress.png": lambda path: plot_progress(
            report.progress, path, title=f"Elo progression\n{title}", scale=scale
        ),
        "crosstable.png": lambda path: plot_crosstable(
            report.crosstable, report.standings, path, title=f"Crosstable\n{title}"
        ),
    }
    assert tuple(writers) == FILES
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, write in writers.items():
        on_file(name)
        replace_atomically(out / name, write)
    return {name: out / name for name in writers}


def readable_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """The pairs table (:func:`reports.stats.tables.pairs`) as ``pairs.csv`` shows it: Elo figures to 0.1,
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
