"""Write a tournament's documents: ``report.html``, ``report.md`` and ``games.csv``; every file of a
report (:func:`write_all`); and comparisons.

Kept apart from :mod:`reports.render.write` (the CSV tables and PNG figures): these are the
documents laid out from a :class:`reports.report.Report`. Files are replaced atomically
(:func:`agents.files.replace_atomically`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from agents.files import replace_atomically
from reports.compare import compare
from reports.render import html, markdown
from reports.render.write import FILES, write_reports
from reports.report import Report

__all__ = ["ALL_FILES", "DOCUMENTS", "write_all", "write_comparison", "write_documents"]

DOCUMENTS = ("report.html", "report.md", "games.csv")

ALL_FILES = FILES + DOCUMENTS
"""Every file :func:`write_all` writes, in that order."""


def write_all(
    report: Report, out_dir: Path | str, *, on_file: Callable[[str], object] = lambda name: None
) -> dict[str, Path]:
    """Write every file of ``report`` into ``out_dir``: the tables and figures
    (:func:`reports.render.write.write_reports`), then :data:`DOCUMENTS`; return their paths by file
    name. ``on_file`` is called with each file's name (:data:`ALL_FILES`) before it is written."""
    return write_reports(report, out_dir, on_file=on_file) | write_documents(report, out_dir, on_file=on_file)


def write_documents(
    report: Report, out_dir: Path | str, *, on_file: Callable[[str], object] = lambda name: None
) -> dict[str, Path]:
    """Write :data:`DOCUMENTS` of ``report`` into ``out_dir`` (created if missing); return their paths;
    ``on_file`` is called with each file's name before it is written.

    ``report.md`` links the PNGs of :func:`reports.render.write.write_reports`, which should be written to
    the same directory. ``games.csv`` is the report's games table (:func:`reports.stats.tables.games`)
    with ``move_times`` as space-separated seconds.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    games = report.tables.games.copy()
    games["move_times"] = games["move_times"].map(lambda times: " ".join(f"{t:.6g}" for t in times))
    writers = {
        "report.html": lambda path: path.write_text(html.render(report), encoding="utf-8"),
        "report.md": lambda path: path.write_text(markdown.render(report), encoding="utf-8"),
        "games.csv": lambda path: games.to_csv(path, index=False, float_format="%.6g"),
    }
    for name, write in writers.items():
        on_file(name)
        replace_atomically(out / name, write)
    return {name: out / name for name in writers}


def write_comparison(
    reports: Sequence[Report],
    directories: Sequence[Path],
    out_dir: Path | str,
    pairs: Sequence[Sequence[str]] = (),
) -> dict[str, Path]:
    """Write ``comparison.html`` and ``comparison.md`` of the runs of ``reports`` (stored in
    ``directories``, same order) into ``out_dir``; return their paths. ``pairs``: names of one agent's
    versions (:func:`reports.compare.compare`).

    Raises:
        ValueError: see :func:`reports.compare.compare`.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    comparison = compare(reports, directories, out, pairs)
    writers = {
        "comparison.html": lambda path: path.write_text(html.render_comparison(comparison), encoding="utf-8"),
        "comparison.md": lambda path: path.write_text(
            markdown.render_comparison(comparison), encoding="utf-8"
        ),
    }
    for name, write in writers.items():
        replace_atomically(out / name, write)
    return {name: out / name for name in writers}
