"""Where the pure-Python solver stops fitting in a move: the time to choose an exact move, by ply.

For each ply, positions are drawn from Pons' test sets (begin sets for plies up to 14, middle sets
after), and the agent's exact stage (:meth:`agents.engine.solver.Solver.choose`: weak-solve the children in
move order until one keeps the best outcome class) is timed with a fresh solver, capped at
``--cap`` seconds. The opening book must cover the plies where this does not fit in
``actTimeout`` (2 s) plus the share of the bank a move may take::

    python -m benchmarks.book_depth --plies 6,8,10,12,14,16,18 --per-ply 8 --cap 20
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from agents.engine.board import Board
from agents.engine.solver import Solver
from benchmarks.pons import DATA, read_set


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.book_depth", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--plies", default="6,8,10,12,14,16,18")
    parser.add_argument("--per-ply", type=int, default=8)
    parser.add_argument(
        "--cap", type=float, default=20.0, help="seconds before a position counts as too slow"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    pool: dict[int, list[str]] = {}
    for name in ("L1_R1", "L1_R2", "L2_R1", "L2_R2"):
        for moves, _ in read_set(name, args.data):
            pool.setdefault(len(moves), []).append(moves)
    rng = random.Random(args.seed)
    print(
        f"cap {args.cap} s; columns: positions, median s, 90th percentile s, share within 1.85 s / 10 s / cap"
    )
    for ply in (int(p) for p in args.plies.split(",")):
        candidates = pool.get(ply, [])
        sample = rng.sample(candidates, min(args.per_ply, len(candidates)))
        times = []
        for moves in sample:
            board = Board.from_moves(moves)
            if board.winning_moves():
                continue
            solver = Solver()
            start = time.perf_counter()
            column, values = solver.choose(board.position, board.mask, board.ply, deadline=start + args.cap)
            # A lost position with many empty cells comes back without a column but fully proven.
            proven = column is not None or len(values) == len(board.legal_moves())
            times.append(time.perf_counter() - start if proven else float("inf"))
        if not times:
            continue
        finite = sorted(times)
        median = statistics.median(finite)
        p90 = finite[min(len(finite) - 1, int(0.9 * len(finite)))]

        def share(limit: float, times: list[float] = times) -> str:
            return f"{100 * sum(t <= limit for t in times) / len(times):3.0f}%"

        print(
            f"ply {ply:2d}: {len(times):3d}  {median:7.2f}  {p90:7.2f}  "
            f"{share(1.85)} {share(10.0)} {share(args.cap)}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
