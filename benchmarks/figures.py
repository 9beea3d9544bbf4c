"""The CPU time of drawing a stored run's report figures: the four inline SVGs of report.html and the
three PNGs of report.md.

Usage: ``python -m benchmarks.figures RUN_DIR [--repeat 5]``. The run's report is built once
(:func:`reports.report.load`); then each figure is drawn ``--repeat`` times, and the least process
CPU time of each is printed (seconds; the least, because other work on a busy machine only ever adds
to it), with the totals. Every report a run writes draws all seven.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reports.render.html import FIGURES, figures
from reports.render.plots import plot_crosstable, plot_elo, plot_progress
from reports.report import Report, load


def drawings(report: Report, folder: Path) -> dict[str, Callable[[], object]]:
    """Each figure of ``report``, by name (``elo.svg``, ..., ``elo.png``, ...), as a call that draws
    it (the PNGs into ``folder``)."""
    calls: dict[str, Callable[[], object]] = {
        f"{name}.svg": lambda name=name: figures(report, [name]) for name in FIGURES
    }
    calls["elo.png"] = lambda: plot_elo(report.ratings, folder / "elo.png", title="t", scale=report.scale)
    calls["elo_progress.png"] = lambda: plot_progress(
        report.progress, folder / "elo_progress.png", title="t", scale=report.scale
    )
    calls["crosstable.png"] = lambda: plot_crosstable(
        report.crosstable, report.standings, folder / "crosstable.png", title="t"
    )
    return calls


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, metavar="RUN_DIR")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    report = load(args.run)
    report.ratings, report.progress  # built before the clock starts  # noqa: B018
    with tempfile.TemporaryDirectory() as folder:
        calls = drawings(report, Path(folder))
        next(iter(calls.values()))()  # the first figure of a process also loads fonts
        least = {name: float("inf") for name in calls}
        for _ in range(args.repeat):
            for name, call in calls.items():
                began = time.process_time()
                call()
                least[name] = min(least[name], time.process_time() - began)
    print(f"{len(report.records)} games, {len(report.standings)} agents: least CPU of {args.repeat}")
    for name, seconds in least.items():
        print(f"  {name:18} {seconds:6.3f} s")
    svg = sum(seconds for name, seconds in least.items() if name.endswith(".svg"))
    png = sum(seconds for name, seconds in least.items() if name.endswith(".png"))
    print(f"  SVGs {svg:.3f} s, PNGs {png:.3f} s, all {svg + png:.3f} s")


if __name__ == "__main__":
    main()
