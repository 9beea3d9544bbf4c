"""``connectx analyze RUN``: judge every move of a stored tournament against perfect play.

It writes ``RUN/moves.csv`` (:mod:`reports.stats.analysis`: one row per stored move, with its value
before and after, the best columns and a verdict) and prints each agent's accuracy; ``connectx
report --analyze`` and ``connectx run --analyze`` call :func:`analyze_run` before writing the
reports, which then show the analysis. Positions solved once are kept beside ``moves.csv``
(:mod:`reports.stats.solved`), so a second analysis, or one after more games, solves only new
positions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agents.files import replace_atomically
from connectx.options import BOUNDS, check_ranges, workers_option
from connectx.progress import Ticking, bar
from reports.words import plural
from tournament.store import Store, StoreError

__all__ = ["GAMES_PER_WORKER", "add_commands", "analyze_run"]

GAMES_PER_WORKER = 20
"""Games for each judging process started, at the least, when the number of workers is not given: a
worker costs about 1.4 s of CPU to start (imports, the databases, the compiled kernel) and a game
about 0.14 s to judge (6 games of one_step against random, ``python -m benchmarks.early_search``),
so a pool of two on two cores is faster only from about 20 games; fewer are judged in this process."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``analyze`` to the subcommands ``commands``."""
    analyze = commands.add_parser(
        "analyze",
        help="judge every move of a stored tournament against perfect play (RUN/moves.csv)",
        description="Judge every move of the games stored in RUN against perfect play (Connect Four is "
        "solved; 6x7 boards with 4 in a row only) and write RUN/moves.csv: one row per move with its "
        "value before and after (Pons scores, mover's side), the best columns and a verdict (best, "
        "inaccuracy, mistake). `connectx report RUN` then shows each agent's accuracy and worst moves.",
    )
    analyze.add_argument("dir", type=Path, metavar="RUN", help="a tournament directory")
    workers_option(analyze, "games judged", f", and one per {GAMES_PER_WORKER} games at the most")
    analyze.set_defaults(handler=_analyze)


def _analyze(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx analyze RUN``: exit 0 when judged, 2 when the run cannot be (one line)."""
    check_ranges(args, parser, {"workers": BOUNDS["workers"]})
    try:
        store = Store.open(args.dir)
    except StoreError as error:
        parser.error(str(error))
    with store:
        if not store.game_ids():
            parser.error(f"no games stored in {args.dir} yet")
        why = analyze_run(store, args.dir, workers=args.workers)
    if why is not None:
        parser.error(why)
    return 0


def analyze_run(
    store: Store,
    out: Path,
    *,
    workers: int | None = None,
    on_judged: Callable[[int, int], object] = lambda done, total: None,
) -> str | None:
    """Judge every game in ``store``, write ``out/moves.csv`` and print the accuracy table; return
    None, or why the games cannot be judged (a sentence; nothing is written then). ``workers``
    processes judge (None: the cores, and one per :data:`GAMES_PER_WORKER` games at the most). ``on_judged``
    hears of the games judged so far and in all, as each is.

    The positions solved go to the cache in ``out`` (:mod:`reports.stats.solved`); a cache that
    cannot be read or written is left out, with a note on stderr. Raises OSError when ``moves.csv``
    cannot be written.
    """
    from reports.render.analysis import accuracy_lines
    from reports.stats import solved
    from reports.stats.accuracy import accuracy
    from reports.stats.analysis import MOVES_FILE, Analysis
    from reports.stats.judging import judge, unavailable

    records = store.records()
    why = unavailable(records)
    if why is not None:
        return why
    try:
        known = solved.load(out)
    except solved.CacheError as error:
        print(f"note: the solved positions kept before are not used ({error})", file=sys.stderr)
        known = {}
    if workers is None:
        workers = max(1, min(len(os.sched_getaffinity(0)), len(records) // GAMES_PER_WORKER))
    start = time.perf_counter()
    judging = bar(total=len(records), unit="game", desc="judging moves")  # its clock runs while workers start
    with judging, Ticking(judging):

        def progress(done: int) -> None:
            judging.update(done - judging.n)
            on_judged(done, len(records))

        judged = judge(records, known=known, workers=min(workers, len(records)), progress=progress)
    seconds = time.perf_counter() - start
    try:
        solved.keep(out, judged.solved)
    except solved.CacheError as error:
        print(f"note: the solved positions are not kept ({error})", file=sys.stderr)
    analysis = Analysis(judged.moves)
    replace_atomically(Path(out) / MOVES_FILE, analysis.write)
    print(
        f"judged {len(judged.moves):,} moves of {plural(len(records), 'game')} in {seconds:.1f} s: "
        f"{len(judged.solved):,} positions solved, {judged.cached:,} moves from positions solved before"
    )
    print("\n".join(accuracy_lines(accuracy(analysis, records))))
    print(f"every move: {Path(out) / MOVES_FILE}")
    return None
