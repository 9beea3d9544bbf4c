"""The ``connectx`` command (also ``python -m tournament``).

``run`` plays a round-robin (or gauntlet) through kaggle-environments, storing every game in
``OUT/tournament.db`` as it ends and writing the reports at the end; run again with the same
options it resumes. ``table`` rewrites and prints the reports of a stored tournament at any time.
``agents`` lists the agent names. Bad input -- an unknown agent, a missing file, an impossible
option, a directory holding another tournament -- prints one line and exits with status 2,
having written nothing. With no arguments: ``run`` with the defaults below.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from agents.board import InvalidBoardError, geometry
from agents.registry import BUILTIN, DEFAULT_ENTRANTS, KAGGLE_BUILTIN, SpecError, parse_spec
from tournament.schedule import Settings, schedule
from tournament.store import DB_NAME, Store, StoreError

DEFAULT_OUT = Path("runs/latest")
DEFAULT_GAMES = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="connectx",
        description="ConnectX tournaments through the official kaggle-environments referee.",
    )
    commands = parser.add_subparsers(dest="command", metavar="{run,table,agents}")
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
        help=f"games per colour for every pairing (default {DEFAULT_GAMES})",
    )
    run.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="games played at once, each in its own process (default: number of cores)",
    )
    run.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"tournament directory (default {DEFAULT_OUT})"
    )
    run.add_argument("--rows", type=int, default=6)
    run.add_argument("--columns", type=int, default=7)
    run.add_argument("--inarow", type=int, default=4)
    run.add_argument(
        "--act-timeout",
        type=float,
        default=2.0,
        help="seconds per move before the 60 s overage bank is drawn on (Kaggle's actTimeout, default 2)",
    )
    run.add_argument(
        "--hang-limit",
        type=float,
        default=None,
        help="score a move still running after this many seconds as TIMEOUT at once "
        "(default: Kaggle's limit, actTimeout plus the remaining bank)",
    )
    run.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    run.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first entrant plays every other one; the others do not meet",
    )
    run.add_argument(
        "--overwrite",
        action="store_true",
        help="discard a different tournament stored in --out instead of refusing",
    )
    table = commands.add_parser("table", help="write and print the reports of a stored tournament")
    table.add_argument("dir", type=Path)
    commands.add_parser("agents", help="list the agent names")
    return parser


def _settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    try:
        specs = [parse_spec(text).text for text in args.agents]
        geometry(args.rows, args.columns, args.inarow)
    except (SpecError, InvalidBoardError) as error:
        parser.error(str(error))
    if len(set(specs)) != len(specs):
        parser.error("an entrant is listed twice")
    if len(specs) < 2:
        parser.error("a tournament needs at least two entrants")
    for name, value in (("--games", args.games), ("--workers", args.workers)):
        if value < 1:
            parser.error(f"{name} must be >= 1")
    if args.act_timeout <= 0 or (args.hang_limit is not None and args.hang_limit <= 0):
        parser.error("--act-timeout and --hang-limit must be positive")
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
    )


def _report(store: Store, out: Path) -> None:
    import pandas as pd

    from reports.write import format_standings, write_reports

    records = store.records()
    if not records:
        print(f"no games stored in {out} yet")
        return
    paths = write_reports(records, out, seed=store.settings().seed)
    print(format_standings(pd.read_csv(paths["standings.csv"])))
    print(f"\n{len(records)} games; reports in {out}/: " + ", ".join(path.name for path in paths.values()))


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from tqdm import tqdm

    from tournament.runner import GameFailed, run_games

    settings = _settings(args, parser)
    if args.overwrite:
        for suffix in ("", "-wal", "-shm"):
            (args.out / (DB_NAME + suffix)).unlink(missing_ok=True)
    try:
        store = Store.create(args.out, settings)
    except StoreError as error:
        parser.error(str(error))
    with store:
        tasks = schedule(settings)
        done = store.game_ids()
        todo = [task for task in tasks if task.game_id not in done]
        failed = 0
        if done:
            print(f"resuming {args.out}: {len(done)} of {len(tasks)} games already played")
        tqdm.monitor_interval = 0  # no monitor thread in a process that forks
        progress = tqdm(total=len(tasks), initial=len(done), unit="game", desc="games", dynamic_ncols=True)
        games = run_games(todo, args.workers)
        try:
            for result in games:
                if isinstance(result, GameFailed):
                    failed += 1
                    progress.write(f"warning: {result}")
                    continue
                store.add(result)
                progress.update()
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
    if failed:
        print(
            f"{failed} games failed in the referee and were not stored; run again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


def _agents() -> int:
    for name, module in BUILTIN.items():
        doc = (importlib.import_module(module).__doc__ or "").strip().splitlines()
        print(f"{name:16} {doc[0] if doc else ''}")
    for name, builtin in KAGGLE_BUILTIN.items():
        print(f"{name:16} kaggle-environments' built-in ConnectX agent {builtin!r}")
    print(f"{'PATH.py':16} a file agent, loaded as Kaggle loads it (last callable in the file)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 games failed, 2 bad input, 130 interrupted)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv or [])])
    if args.command == "agents":
        return _agents()
    if args.command == "table":
        try:
            store = Store.open(args.dir)
        except StoreError as error:
            parser.error(str(error))
        with store:
            _report(store, args.dir)
        return 0
    return _run(args, parser)
