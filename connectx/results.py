"""``connectx report`` (alias ``connectx table``): the reports of stored tournaments, and comparisons."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from connectx.options import analyze_option, out_option
from connectx.progress import Ticking, bar
from reports.words import plural
from tournament.store import Store, StoreError

if TYPE_CHECKING:
    from reports.report import Report


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``report``, and ``table`` as another name for it, to the subcommands ``commands``."""
    report = commands.add_parser(
        "report",
        aliases=["table"],
        help="write and print the reports of stored tournaments; of two or more, also a comparison",
        description="Write each DIR's report.html (one self-contained page with every game "
        "replayable), report.md, games.csv and the tables, and print its standings; given two or "
        "more DIRs, also comparison.html and comparison.md of the agents they share. 'connectx "
        "table' is the same command.",
    )
    report.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    out_option(
        report,
        "with one DIR, where its reports go (default: DIR; give it for a read-only run); with more, "
        "where the comparison goes (default: the first DIR)",
    )
    report.add_argument(
        "--pair",
        action="append",
        default=[],
        type=_pair,
        metavar="A=B",
        help="compare agent A of the first run with agent B of the next as two versions of one agent "
        "(names or specs; agents whose file names match are paired without it); repeatable",
    )
    analyze_option(report)
    report.set_defaults(handler=_reports)


def write_report(store: Store, run: Path, out: Path | None = None) -> Report | None:
    """Write every report of the tournament in ``store`` (stored in ``run``) into ``out`` (default
    ``run``) and print its standings and forfeits; return its :class:`~reports.report.Report` (None
    when no game is stored yet).

    The reports show the run's move analysis when ``out/moves.csv`` or ``run/moves.csv`` is there: a
    command that judges the games (:func:`connectx.analyzing.analyze_run`) writes it before calling
    this. A ``moves.csv`` that cannot be read is left out, with a line on stderr. When ``out`` is not
    given and ``run`` cannot be written (a read-only store or folder), only the terminal summary is
    printed, with a line saying how to write the files elsewhere.
    """
    records, settings = store.records(), store.settings()
    if not records:
        print(f"no games stored in {run} yet")
        return None
    # Shown before the reports' modules load (matplotlib, pandas: seconds on a busy machine).
    rating = bar(desc=f"rating {plural(len(settings.entrants), 'agent')} on {plural(len(records), 'game')}",
                 bar_format="{desc} [{elapsed}]", leave=False)  # fmt: skip
    with rating, Ticking(rating):
        from reports.render.documents import ALL_FILES, write_all
        from reports.render.terminal import summary
        from reports.report import assemble
        from reports.stats.analysis import MOVES_FILE, Analysis, AnalysisError

        try:
            analysis = Analysis.read(out) if out is not None and (Path(out) / MOVES_FILE).is_file() else None
            analysis = analysis or Analysis.read(run)
        except AnalysisError as error:
            rating.write(f"no move analysis in the report: {error}", file=sys.stderr)
            analysis = None
        report = assemble(records, settings, name=Path(run).resolve().name, analysis=analysis)
    if report is None:
        raise ValueError("no game between two different agents to report")
    print("\n".join(summary(report)))
    if out is None and not writable(store, run):
        print(f"{run} is read-only: no report files written there; `--out FOLDER` writes them elsewhere")
        return report
    out = Path(out or run)
    writing = bar(total=len(ALL_FILES), leave=False, bar_format="{desc} [{elapsed}]")
    with writing, Ticking(writing):
        paths = write_all(report, out, on_file=lambda name: _step(writing, out, name))
    print(
        f"{plural(len(records), 'game')}; reports in {out}/: "
        + ", ".join(path.name for path in paths.values())
    )
    print(f"open {out / 'report.html'} in a browser to see it all and replay every game")
    return report


def _step(writing: Any, out: Path, name: str) -> None:
    """Show on the bar ``writing`` that the file ``name`` is being written into ``out``, after the
    ``writing.n`` before it."""
    writing.set_description_str(
        f"writing the reports into {out}/: {writing.n + 1} of {writing.total}, {name}", refresh=False
    )
    writing.update()


def writable(store: Store, run: Path) -> bool:
    """Whether reports (and ``moves.csv``) can be written into the run folder ``run`` of ``store``."""
    return not store.read_only and os.access(run, os.W_OK)


def _analyze(store: Store, run: Path, out: Path | None) -> None:
    """``report --analyze``: judge the games of ``run`` into ``out`` (default ``run``), or say why not."""
    from connectx.analyzing import analyze_run

    if out is None and not writable(store, run):
        print(f"no move analysis: {run} is read-only; `--out FOLDER` writes it elsewhere", file=sys.stderr)
        return
    if out is not None:
        Path(out).mkdir(parents=True, exist_ok=True)
    why = analyze_run(store, Path(out or run))
    if why is not None:
        print(f"no move analysis: {why}", file=sys.stderr)


def _pair(text: str) -> tuple[str, ...]:
    """``A=B`` (or ``A=B=C``, one name a run) as ``("A", "B")``."""
    names = tuple(name.strip() for name in text.split("="))
    if len(names) < 2 or not all(names):
        raise argparse.ArgumentTypeError(f"expected A=B, two agent names or specs: {text!r}")
    return names


def _check_pairs(args: argparse.Namespace, stores: list[Store], parser: argparse.ArgumentParser) -> None:
    """Refuse ``--pair`` before any report is written: a pair must name one agent of one run or more."""
    from reports.compare import PairError, match_agents  # here: the reports' modules take seconds to load

    runs = [
        (Path(directory).resolve().name, store.settings().entrants)
        for directory, store in zip(args.dirs, stores, strict=True)
    ]
    try:
        match_agents(runs, args.pair)
    except PairError as error:
        for store in stores:
            store.close()
        parser.error(f"--pair {'='.join(error.pair)}: {error.problem}")


def _reports(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx report DIR [DIR ...] [--pair A=B]``: each DIR's reports, then the comparison of two or
    more."""
    if args.pair and len(args.dirs) < 2:
        parser.error("--pair compares runs: give two DIRs or more")
    stores = []
    for directory in args.dirs:
        try:
            stores.append(Store.open(directory))
        except StoreError as error:
            for store in stores:
                store.close()
            parser.error(str(error))
    if args.pair:
        _check_pairs(args, stores, parser)
    reports = []
    for directory, store in zip(args.dirs, stores, strict=True):
        with store:
            if len(args.dirs) > 1:
                print(f"== {directory}")
            out = args.out if len(args.dirs) == 1 else None
            if args.analyze and store.game_ids():
                _analyze(store, directory, out)
            reports.append(write_report(store, directory, out))
            if len(args.dirs) > 1:
                print()
    if len(args.dirs) > 1:
        from reports.compare import PairError  # here: the reports' modules take seconds to load
        from reports.render.documents import write_comparison

        written = [report for report in reports if report is not None]
        if len(written) < len(reports):
            print("no comparison: a directory holds no games yet", file=sys.stderr)
            return 1
        try:
            paths = write_comparison(written, args.dirs, args.out or args.dirs[0], args.pair)
        except PairError as error:
            parser.error(f"--pair {'='.join(error.pair)}: {error.problem}")
        except ValueError as error:
            parser.error(str(error))
        print("comparison: " + ", ".join(str(path) for path in paths.values()))
    return 0
