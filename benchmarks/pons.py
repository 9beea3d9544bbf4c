"""Pons' test protocol for the solver: correctness, mean nodes and speed on his six test sets.

Scores are from the side to move, Pons' convention (http://blog.gamesolver.org/solving-connect-four/
02-test-protocol/). Each position is solved with a fresh transposition table (so node counts compare
with Pons' published means); the memo of winning cells is kept (it holds no search result).

    python -m benchmarks.pons                         # all six sets, 10 s limit a position
    python -m benchmarks.pons --sets L3_R1,L2_R1 --limit 200
    python -m benchmarks.pons --compare --sets L2_R1,L1_R1 --limit 300   # nodes/s vs a plain port
    python -m benchmarks.pons --engine numba --sets L2_R2,L1_R2

A position that exceeds ``--seconds`` counts as unsolved (pure-Python engine only); correctness is
reported over the solved ones.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

from agents.engine.solver import SearchAborted, Solver, parse_position, warm_up

DATA = Path(__file__).parent / "data" / "pons"
SETS = ["L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3"]
PONS_NODES = {
    "L3_R1": 51.28,
    "L2_R1": 449.6,
    "L2_R2": 39_900,
    "L1_R1": 3_298,
    "L1_R2": 1_201_000,
    "L1_R3": 65_920_000,
}


def read_set(name: str, data: Path = DATA, limit: int | None = None) -> list[tuple[str, int]]:
    """``(moves, score)`` pairs of ``Test_<name>`` (first ``limit`` lines)."""
    lines = (data / f"Test_{name}").read_text().splitlines()[:limit]
    return [(m, int(s)) for m, s in (line.split() for line in lines)]


def run_set(name: str, engine: str, data: Path, limit: int | None, seconds: float) -> dict[str, float]:
    """Solve a set; returns counts, mean nodes and microseconds over solved positions, nodes/s."""
    cases = read_set(name, data, limit)
    solved = correct = nodes = 0
    elapsed = 0.0
    if engine == "numba":
        from agents.engine.solver.fast import FastSolver

        warm_up()  # compiled outside the timing
        fast = FastSolver()
    else:
        solver = Solver(databases=False, fast=False)  # the pure-Python core alone
    for moves, expected in cases:
        if engine == "numba":
            fast.reset()
            board = parse_position(moves, fast.geo)
            start = time.perf_counter()
            score = fast.solve_bits(board.position, board.mask, board.ply)
            elapsed += time.perf_counter() - start
            n = fast.nodes
        else:
            solver.reset()
            board = parse_position(moves, solver.geo)
            start = time.perf_counter()
            try:
                score = solver.solve_bits(board.position, board.mask, board.ply, deadline=start + seconds)
            except SearchAborted:
                elapsed += time.perf_counter() - start
                continue
            elapsed += time.perf_counter() - start
            n = solver.nodes
        solved += 1
        correct += score == expected
        nodes += n
    return {
        "positions": len(cases),
        "solved": solved,
        "correct": correct,
        "mean_nodes": nodes / max(solved, 1),
        "mean_us": elapsed / max(solved, 1) * 1e6,
        "nodes_per_s": nodes / max(elapsed, 1e-9),
    }


def compare(names: list[str], data: Path, limit: int | None) -> None:
    """Nodes per second of :mod:`agents.engine.solver` against :mod:`benchmarks.straight_port`, interleaved
    position by position on the same machine so that load from other processes hits both alike."""
    from benchmarks import straight_port

    ours = Solver(databases=False, fast=False)
    plain = straight_port.Solver()
    totals = {"ours": [0, 0.0], "plain": [0, 0.0]}
    for name in names:
        for moves, expected in read_set(name, data, limit):
            ours.reset()
            board = parse_position(moves, ours.geo)
            start = time.perf_counter()
            assert ours.solve_bits(board.position, board.mask, board.ply) == expected
            totals["ours"][1] += time.perf_counter() - start
            totals["ours"][0] += ours.nodes
            plain.table.reset()
            plain.node_count = 0
            position = straight_port.position_from_moves(moves)
            gc.disable()
            start = time.perf_counter()
            assert plain.solve(position) == expected
            totals["plain"][1] += time.perf_counter() - start
            gc.enable()
            totals["plain"][0] += plain.node_count
    rate = {k: n / t for k, (n, t) in totals.items()}
    print(f"sets {','.join(names)} (first {limit or 'all'} positions each)")
    for k in ("ours", "plain"):
        n, t = totals[k]
        print(f"  {k:6s} {n:>12,d} nodes {t:8.2f} s {rate[k]:>10,.0f} nodes/s")
    print(f"  speed-up {rate['ours'] / rate['plain']:.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pons", description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--limit", type=int, default=None, help="positions per set (default all)")
    parser.add_argument("--seconds", type=float, default=10.0, help="limit a position (python engine)")
    parser.add_argument("--engine", choices=("python", "numba"), default="python")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--compare", action="store_true", help="nodes/s against the straightforward port")
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if args.compare:
        compare(names, args.data, args.limit)
        return 0
    print(f"engine {args.engine}, limit {args.seconds} s a position")
    print(
        f"{'set':6s} {'pos':>5s} {'solved':>6s} {'correct':>7s} {'mean nodes':>12s} {'Pons':>12s} "
        f"{'mean time':>11s} {'nodes/s':>10s}"
    )
    status = 0
    for name in names:
        r = run_set(name, args.engine, args.data, args.limit, args.seconds)
        if r["correct"] != r["solved"]:
            status = 1
        print(
            f"{name:6s} {r['positions']:5d} {r['solved']:6d} {r['correct']:7d} {r['mean_nodes']:12,.1f} "
            f"{PONS_NODES[name]:12,.1f} {r['mean_us'] / 1e3:9.2f}ms {r['nodes_per_s']:10,.0f}",
            flush=True,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
