"""How fast ``connectx analyze`` judges a run, and whether its verdicts agree with an independent solver.

1. Judge every stored move of RUN as ``connectx analyze`` does (:func:`reports.stats.judging.judge`,
   ``--workers`` processes, no cache unless ``--cached``) and print the time.
2. Check a seeded sample of ``--sample`` judged moves against a solver that took no part in judging
   them: a move at a position of at most 12 stones was judged by the numba kernel down to the opening
   databases, which it probes compiled, so it is checked by the numba kernel without databases (a check
   of the databases and of their probe; the kernel itself is checked against the pure-Python one by
   ``tests/test_fast_solver.py``); a later one was judged by the numba kernel, so it is checked by the
   pure-Python kernel without databases. Each check
   recomputes every column's score, hence ``value_before``, ``value_after``, ``best_columns`` and
   the verdict. Positions before ``--from-ply`` are left out: without databases they take minutes.

    python -m benchmarks.analysis runs/latest
    python -m benchmarks.analysis runs/latest --sample 100 --workers 2
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from agents.engine.solver import Solver
from reports.stats import solved
from reports.stats.analysis import Analysis, Verdict
from reports.stats.judging import judge, unavailable
from tournament.store import Store

DATABASE_PLY = 12
"""The stones of the databases' positions: judging searched down to them before, and past them after."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a tournament directory")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--cached", action="store_true", help="use the run's cache of solved positions")
    parser.add_argument("--sample", type=int, default=60, help="moves to check (default 60)")
    parser.add_argument("--from-ply", type=int, default=8, help="check moves from this ply on (default 8)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with Store.open(args.run) as store:
        records = store.records()
    known = solved.load(args.run) if args.cached else {}
    if why := unavailable(records):
        parser.error(why)
    start = time.perf_counter()
    judged = judge(records, known=known, workers=args.workers)
    seconds = time.perf_counter() - start
    analysis = Analysis(judged.moves)
    print(
        f"judged {len(judged.moves):,} moves of {len(records):,} games in {seconds:.1f} s "
        f"({args.workers} workers): {len(judged.solved):,} positions solved, {judged.cached:,} moves "
        "from cached positions"
    )
    for line in _verdicts(analysis):
        print(line)
    candidates = [move for move in analysis.moves if move.ply >= args.from_ply]
    sample = random.Random(args.seed).sample(candidates, min(args.sample, len(candidates)))
    pure, fast = Solver(databases=False, fast=False), Solver(databases=False, fast=True)
    agree = 0
    start = time.perf_counter()
    for move in sample:
        checker = fast if move.ply - 1 <= DATABASE_PLY else pure
        scores = checker.analyse(move.position)
        best = max(score for score in scores if score is not None)
        after = scores[move.column - 1]
        assert after is not None
        expected = (best, after, tuple(c + 1 for c, s in enumerate(scores) if s == best))
        if (
            move.value_before,
            move.value_after,
            move.best_columns,
        ) == expected and move.verdict is Verdict.of(best, after):
            agree += 1
        else:
            print(f"DISAGREE game {move.game} ply {move.ply} {move.position!r}: {move} vs {scores}")
    print(
        f"independent check: {agree} of {len(sample)} sampled moves (plies {args.from_ply}+) agree "
        f"({time.perf_counter() - start:.1f} s)"
    )
    return 0 if agree == len(sample) else 1


def _verdicts(analysis: Analysis) -> list[str]:
    """Per agent: moves, mistakes, and the games in which it made at least one mistake."""
    lines = []
    for agent in analysis.agents():
        own = [move for move in analysis.moves if move.agent == agent]
        games = {move.game for move in own}
        erred = {move.game for move in own if move.verdict is Verdict.MISTAKE}
        mistakes = sum(move.verdict is Verdict.MISTAKE for move in own)
        games_erred = f"a mistake in {len(erred)} of {len(games)} games"
        lines.append(f"  {agent}: {len(own)} moves, {mistakes} mistakes, {games_erred}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
