"""The ``connectx`` command (also ``python -m tournament``).

``run`` plays a round-robin (or gauntlet) through kaggle-environments, storing every game in
``OUT/tournament.db`` as it ends and writing the reports at the end; run again with the same
options it resumes. ``table`` rewrites and prints the reports of a stored tournament at any time;
``report`` writes them too, and of two tournaments or more, a comparison.
``agents`` lists the agent names. Bad input -- an unknown agent, a missing file, an impossible
option, a directory holding another tournament -- prints one line and exits with status 2,
having written nothing. With no arguments: ``run`` with the defaults below.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from agents.board import InvalidBoardError, geometry
from agents.registry import BUILTIN, DEFAULT_ENTRANTS, KAGGLE_BUILTIN, SpecError, parse_spec
from reports.provenance import toolkit_version
from reports.sprt import Sprt
from reports.stats import Pentanomial
from tournament.limits import Limits
from tournament.openings import OpeningError, resolve
from tournament.record import GameRecord
from tournament.schedule import Settings, schedule
from tournament.store import Store, StoreError

if TYPE_CHECKING:
    from reports.report import Report

DEFAULT_OUT = Path("runs/latest")
DEFAULT_GAMES = 2
DEFAULT_SPRT_GAMES = 20000
MAX_GAMES = 1_000_000
"""Most games one tournament may schedule (its schedule is built in memory: about 0.3 KB a game)."""
MAX_SECONDS = 3600.0
"""Longest ``--act-timeout`` and ``--hang-limit``, in seconds."""

_LIMITS: dict[str, tuple[float, float]] = {
    # destination: (lowest, highest) value; a lowest of 0.0 (a float) means "positive"
    "games": (1, MAX_GAMES // 2),
    "max_games": (2, MAX_GAMES),
    "workers": (1, 256),
    "rows": (1, 100),
    "columns": (1, 100),
    "inarow": (1, 100),
    "act_timeout": (0.0, MAX_SECONDS),
    "hang_limit": (0.0, MAX_SECONDS),
    "seed": (0, 2**63 - 1),
    "opening_plies": (0, 100 * 100),
    "agent_memory": (0, 1 << 24),  # MiB; 0: no limit
    "agent_processes": (1, 100_000),
}
"""Sane bounds of the numeric options, checked before anything is written; ``sprt``'s Elo, alpha
and beta are checked by :class:`reports.sprt.Sprt` (finite, in range)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``connectx run: error: ...``), not usage plus error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _check_numbers(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Exit with one line unless every numeric option given is finite and within :data:`_LIMITS`."""
    for dest, (low, high) in _LIMITS.items():
        value = getattr(args, dest, None)
        if value is None:
            continue
        positive = isinstance(low, float) and low == 0.0
        if math.isfinite(value) and (value > 0 if positive else value >= low) and value <= high:
            continue
        option = "--" + dest.replace("_", "-")
        lowest = "positive" if positive else f">= {low:,}"
        highest = f"{high:,g}" if isinstance(high, float) else f"{high:,}"
        parser.error(f"{option} must be {lowest} and <= {highest}, got {value!r}")


def _match_options(command: argparse.ArgumentParser) -> None:
    """Options shared by ``run`` and ``sprt``: where, on what board, how fast, from which openings."""
    command.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="games played at once, each in its own process (default: number of cores)",
    )
    command.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"tournament directory (default {DEFAULT_OUT})"
    )
    command.add_argument("--rows", type=int, default=6)
    command.add_argument("--columns", type=int, default=7)
    command.add_argument("--inarow", type=int, default=4)
    command.add_argument(
        "--act-timeout",
        type=float,
        default=2.0,
        help="seconds per move before the 60 s overage bank is drawn on (Kaggle's actTimeout, default 2)",
    )
    command.add_argument(
        "--hang-limit",
        type=float,
        default=None,
        help="score a move still running after this many seconds as TIMEOUT at once "
        "(default: Kaggle's limit, actTimeout plus the remaining bank)",
    )
    command.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    command.add_argument(
        "--openings",
        default="auto",
        metavar="FILE|auto|none",
        help="the openings game pairs start from: a file of move strings (one a line, 1-based column "
        "digits), 'auto' (default: on 6x7 four in a row the built-in suite of 350 balanced "
        "openings, elsewhere seeded random openings of 4 plies, no immediate win) or 'none' (the "
        "empty board)",
    )
    command.add_argument(
        "--opening-plies",
        type=int,
        default=None,
        metavar="N",
        help="play seeded random openings of N plies instead (no immediate win after them)",
    )
    command.add_argument(
        "--agent-memory",
        type=int,
        default=Limits().memory_mb,
        metavar="MB",
        help=f"address space of each agent process in MiB, 0 for no limit (default {Limits().memory_mb})",
    )
    command.add_argument(
        "--agent-processes",
        type=int,
        default=Limits().processes,
        metavar="N",
        help="processes and threads each agent may have, when agents run as users of their own "
        f"(the runner is root; default {Limits().processes})",
    )
    command.add_argument(
        "--overwrite",
        action="store_true",
        help="discard a different tournament stored in --out instead of refusing",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="connectx",
        description="ConnectX tournaments through the official kaggle-environments referee.",
    )
    commands = parser.add_subparsers(dest="command", metavar="{run,sprt,table,report,agents}")
    run = commands.add_parser("run", help="play a tournament and write its reports")
    run.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        default=list(DEFAULT_ENTRANTS),
        help="entrants: NAME, NAME:key=value[,key=value] or a .py file (default: every built-in agent)",
    )
    run.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help=f"games per colour for every pairing, i.e. game pairs (default {DEFAULT_GAMES})",
    )
    run.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first entrant plays every other one; the others do not meet",
    )
    _match_options(run)
    sprt = commands.add_parser(
        "sprt",
        help="play game pairs of A against B until an SPRT decides",
        description="Play game pairs of A against B until the generalized SPRT on the pentanomial "
        "counts accepts H0 (A is at most elo0 stronger than B) or H1 (at least elo1), as fastchess "
        "does; Elo here is logistic Elo, the scale of the ratings.",
    )
    sprt.add_argument("agents", nargs=2, metavar="SPEC", help="the two agents, A then B")
    sprt.add_argument("--elo0", type=float, default=0.0, help="Elo difference of H0 (default 0)")
    sprt.add_argument("--elo1", type=float, default=10.0, help="Elo difference of H1 (default 10)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    sprt.add_argument(
        "--max-games",
        type=int,
        default=DEFAULT_SPRT_GAMES,
        help=f"stop undecided after this many games (default {DEFAULT_SPRT_GAMES})",
    )
    _match_options(sprt)
    table = commands.add_parser("table", help="write and print the reports of a stored tournament")
    table.add_argument("dir", type=Path)
    report = commands.add_parser(
        "report",
        help="write report.html, report.md and games.csv of stored tournaments; of two or more, "
        "also a comparison",
        description="Write each DIR's report.html (one self-contained page with every game "
        "replayable), report.md, games.csv and the tables; given two or more DIRs, also "
        "comparison.html and comparison.md of the agents they share.",
    )
    report.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    report.add_argument(
        "--out", type=Path, default=None, help="where the comparison goes (default: the first DIR)"
    )
    commands.add_parser("agents", help="list the agent names")
    return parser


def _settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    _check_numbers(args, parser)
    try:
        specs = [parse_spec(text).text for text in args.agents]
        geometry(args.rows, args.columns, args.inarow)
    except (SpecError, InvalidBoardError) as error:
        parser.error(str(error))
    if len(set(specs)) != len(specs):
        parser.error("an entrant is listed twice")
    if len(specs) < 2:
        parser.error("a tournament needs at least two entrants")
    sprt = None
    if args.command == "sprt":
        try:
            Sprt(args.elo0, args.elo1, args.alpha, args.beta)
        except ValueError as error:
            parser.error(str(error))
        sprt = (args.elo0, args.elo1, args.alpha, args.beta)
        args.games, args.gauntlet = args.max_games // 2, False
    pairings = len(specs) - 1 if args.gauntlet else len(specs) * (len(specs) - 1) // 2
    if 2 * args.games * pairings > MAX_GAMES:
        parser.error(
            f"{len(specs)} entrants with --games {args.games:,} make {2 * args.games * pairings:,} games; "
            f"at most {MAX_GAMES:,} a tournament"
        )
    source = args.openings
    if args.opening_plies is not None:
        if source != "auto":
            parser.error("--opening-plies and --openings exclude each other")
        source = f"plies={args.opening_plies}"
    try:
        description, openings = resolve(
            source, geometry(args.rows, args.columns, args.inarow), pairs=args.games, seed=args.seed
        )
    except OpeningError as error:
        parser.error(str(error))
    return Settings(
        entrants=tuple(specs),
        games=args.games,
        rows=args.rows,
        columns=args.columns,
        inarow=args.inarow,
        act_timeout=args.act_timeout,
        hang_limit=args.hang_limit,
        seed=args.seed,
        gauntlet=args.gauntlet,
        openings=openings,
        opening_source=description,
        sprt=sprt,
    )


def _report(store: Store, out: Path) -> Report | None:
    """Write every report of the tournament in ``store`` into ``out`` and print its standings and
    forfeits; return its :class:`~reports.report.Report` (None when no game is stored yet)."""
    from reports.documents import write_all
    from reports.report import build
    from reports.results import Results
    from reports.terminal import summary

    records = store.records()
    if not records:
        print(f"no games stored in {out} yet")
        return None
    report = build(Results(records, store.settings()), name=Path(out).resolve().name)
    paths = write_all(report, out)
    print("\n".join(summary(report)))
    print(f"{len(records)} games; reports in {out}/: " + ", ".join(path.name for path in paths.values()))
    print(f"open {Path(out) / 'report.html'} in a browser to see it all and replay every game")
    return report


def _reports(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx report DIR [DIR ...]``: each DIR's reports, then the comparison of two or more."""
    from reports.documents import write_comparison

    stores = []
    for directory in args.dirs:
        try:
            stores.append(Store.open(directory))
        except StoreError as error:
            for store in stores:
                store.close()
            parser.error(str(error))
    reports = []
    for directory, store in zip(args.dirs, stores, strict=True):
        with store:
            print(f"== {directory}")
            reports.append(_report(store, directory))
            print()
    if len(args.dirs) > 1:
        if any(report is None for report in reports):
            print("no comparison: a directory holds no games yet", file=sys.stderr)
            return 1
        paths = write_comparison(reports, args.dirs, args.out or args.dirs[0])
        print("comparison: " + ", ".join(str(path) for path in paths.values()))
    return 0


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from tqdm import tqdm

    from tournament import sandbox
    from tournament.runner import GameFailed, run_games

    settings = dataclasses.replace(  # how this run plays, for the report (not part of the identity)
        _settings(args, parser), workers=args.workers, cores=os.cpu_count(), toolkit=toolkit_version()
    )
    limits = Limits(args.agent_memory or None, args.agent_processes)  # in bounds: _settings checked them
    try:
        store = Store.create(args.out, settings, overwrite=args.overwrite)
    except StoreError as error:
        parser.error(str(error))
    with store:
        settings = store.settings()  # those stored: an extended tournament keeps its openings
        sandbox.protect_directory(args.out)  # no agent may read or write the store
        tasks = schedule(settings)
        done = store.game_ids()
        todo = [task for task in tasks if task.game_id not in done]
        failed = 0
        if done:
            print(f"resuming {args.out}: {len(done)} of {len(tasks)} games already played")
        judge = _Judge(settings, store.records()) if settings.sprt else None
        if judge is not None and judge.decision:
            todo = []
        tqdm.monitor_interval = 0  # no monitor thread in a process that forks
        progress = tqdm(total=len(tasks), initial=len(done), unit="game", desc="games", dynamic_ncols=True)
        if judge is not None:
            progress.set_postfix_str(judge.line, refresh=False)
        games = run_games(todo, args.workers, limits)
        try:
            for result in games:
                if isinstance(result, GameFailed):
                    failed += 1
                    progress.write(f"warning: {result}")
                    continue
                store.add(result)
                progress.update()
                if judge is not None:
                    judge.add(result)
                    progress.set_postfix_str(judge.line)
                    if judge.decision:
                        games.close()  # the games still running are not needed
                        break
        except StoreError:  # e.g. a full disk: what is stored stays, the games in flight stop
            games.close()
            progress.close()
            raise
        except KeyboardInterrupt:
            games.close()
            progress.close()
            print(
                f"\ninterrupted: {len(store.game_ids())} games stored in {args.out}; "
                "run the same command again to resume",
                file=sys.stderr,
            )
            return 130
        progress.close()
        _report(store, args.out)
        if judge is not None:
            print(f"SPRT {judge.sprt.describe()}: {judge.line}")
            print(judge.verdict())
    if failed:
        print(
            f"{failed} games failed in the referee and were not stored; run again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


class _Judge:
    """The SPRT of an ``sprt`` match, kept up to date as games end (pairs count once complete)."""

    def __init__(self, settings: Settings, records: list[GameRecord]) -> None:
        self.sprt = Sprt(*settings.sprt)
        self.a = settings.entrants[0]
        self.open: dict[int, GameRecord] = {}
        self.counts = Pentanomial()
        self.games = 0
        for record in records:
            self.add(record, update=False)
        self.update()

    def add(self, record: GameRecord, *, update: bool = True) -> None:
        self.games += 1
        other = self.open.pop(record.pair_id, None)
        if other is None:
            self.open[record.pair_id] = record
        else:
            points = record.score_of(self.a) + other.score_of(self.a)
            self.counts += Pentanomial.from_pair_points(points)
            if update:
                self.update()

    def update(self) -> None:
        self.status = self.sprt.status(self.counts)

    @property
    def decision(self) -> str | None:
        return self.status.decision

    @property
    def line(self) -> str:
        return self.status.format()

    def verdict(self) -> str:
        if self.decision is None:
            return f"no decision after {self.games} games (--max-games reached)"
        return f"{self.decision} accepted after {self.games} games ({self.counts.pairs} pairs)"


def _agents() -> int:
    for name, module in BUILTIN.items():
        doc = (importlib.import_module(module).__doc__ or "").strip().splitlines()
        print(f"{name:16} {doc[0] if doc else ''}")
    for name, builtin in KAGGLE_BUILTIN.items():
        print(f"{name:16} kaggle-environments' built-in ConnectX agent {builtin!r}")
    print(f"{'PATH.py':16} a file agent, loaded as Kaggle loads it (last callable in the file)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status: 0 ok, 1 games failed, 2 bad input or a directory that
    cannot be used (another run holds it, read-only, full, a damaged store), 130 interrupted. Every
    error is one line on stderr."""
    parser = _parser()
    try:
        return _command(parser, argv)
    except StoreError as error:
        parser.error(str(error))
    except OSError as error:  # writing the reports: a read-only directory, a full disk
        parser.error(f"{error.filename}: {error.strerror}" if error.filename else str(error))


def _command(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv or [])])
    if args.command == "agents":
        return _agents()
    if args.command == "report":
        return _reports(args, parser)
    if args.command == "table":
        try:
            store = Store.open(args.dir)
        except StoreError as error:
            parser.error(str(error))
        with store:
            _report(store, args.dir)
        return 0
    return _run(args, parser)  # run or sprt
