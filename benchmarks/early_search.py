"""Analysis before the opening databases' ply: the pure-Python kernel against the compiled one.

Both search down to the distance database (12 stones, :mod:`agents.engine.solver.databases`); the
compiled kernel (:mod:`agents.engine.solver.fast`) probes it compiled. Printed, per position of
:data:`POSITIONS` (plies 0, 4, 8, 11): the CPU and wall milliseconds of every column's
score (``Solver.analyse``) by a fresh solver of each kind (cold transposition tables, the database
loaded before the clock starts), and whether the scores agree.

With ``--run RUN``: ``connectx analyze``'s judging of RUN's games in this process
(:func:`reports.stats.judging.judge`, one worker, no cache), as the package judges now and as it did
before (the positions up to the databases' ply searched by the pure-Python kernel: each ``Solver``
made with the compiled kernel kept for the later positions), and whether the judged moves agree.
The run of the numbers in ``docs``: ``connectx run --agents one_step random --games 3 --workers 1
--seed 1 --out RUN`` (6 games, 132 moves).

    python -m benchmarks.early_search
    python -m benchmarks.early_search --run runs/latest --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agents.engine.solver import Solver, core, warm_up
from agents.engine.solver.databases import load_database
from reports.stats.judging import judge
from tournament.store import Store

POSITIONS = {0: "", 4: "1651", 8: "34452573", 11: "43433554435"}
"""Fixed positions (Pons' move strings) by ply, each with a best score of -1, 0 or 1."""


def timed(work: Callable[[], Any]) -> tuple[Any, float, float]:
    """``(result, CPU seconds, wall seconds)`` of ``work()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = work()
    return result, time.process_time() - cpu, time.perf_counter() - wall


@contextlib.contextmanager
def pure_python_before_the_databases() -> Iterator[None]:
    """Every ``Solver`` made inside searches the positions up to the databases' ply with the
    pure-Python kernel, as the package did before the compiled kernel probed the databases."""
    make = core.Solver.__init__

    def before(self: Solver, *args: Any, **kwargs: Any) -> None:
        make(self, *args, **kwargs)
        if self.database is not None:
            self._fast_from = self.database.ply + 1

    core.Solver.__init__ = before  # type: ignore[method-assign]
    try:
        yield
    finally:
        core.Solver.__init__ = make  # type: ignore[method-assign]


def positions(repeat: int) -> list[str]:
    """One line per position: pure-Python and compiled seconds (best of ``repeat``), agreement."""
    lines = []
    for ply, moves in POSITIONS.items():
        best: dict[bool, tuple[float, float]] = {}
        scores = {}
        for fast in (False, True):
            for _ in range(repeat):
                solver = Solver(fast=fast)
                scores[fast], cpu, wall = timed(lambda: solver.analyse(moves))  # noqa: B023
                best[fast] = min(best.get(fast, (cpu, wall)), (cpu, wall))
        (pure_cpu, pure_wall), (fast_cpu, fast_wall) = best[False], best[True]
        lines.append(
            f"ply {ply:2} {moves or '(empty)':12} pure Python {pure_cpu * 1e3:8.2f} ms CPU"
            f" {pure_wall * 1e3:8.2f} ms wall | compiled {fast_cpu * 1e3:7.2f} ms CPU"
            f" {fast_wall * 1e3:7.2f} ms wall | {pure_cpu / max(fast_cpu, 1e-6):4.0f}x | "
            + ("agree" if scores[False] == scores[True] else "DISAGREE")
        )
    return lines


def analyze(run: Path, repeat: int) -> list[str]:
    """Judging RUN before and after, best of ``repeat`` each, and whether the judged moves agree."""
    with Store.open(run) as store:
        records = store.records()
    lines, judged = [], {}
    for label, mode in (
        ("before (pure Python to ply 12)", pure_python_before_the_databases),
        ("after", None),
    ):
        best = (float("inf"), float("inf"))
        for _ in range(repeat):
            with mode() if mode else contextlib.nullcontext():
                judged[label], cpu, wall = timed(lambda: judge(records, workers=1))
            best = min(best, (cpu, wall))
        moves = len(judged[label].moves)
        lines.append(
            f"judge {len(records)} games, {moves} moves, {label}: {best[0]:.2f} s CPU {best[1]:.2f} s wall"
        )
    before, after = judged.values()
    lines.append("judged moves " + ("agree" if before.moves == after.moves else "DISAGREE"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, help="also judge this tournament directory's games")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many timings (default 1)")
    args = parser.parse_args(argv)
    if load_database() is None or not warm_up():
        parser.error("needs the distance database (bitbully-databases) and numba")
    lines = positions(args.repeat)
    if args.run:
        lines += analyze(args.run, args.repeat)
    print("\n".join(lines))
    return 0 if not any("DISAGREE" in line for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
