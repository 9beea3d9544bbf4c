"""Mistake rate of any agent on Pons' test positions (AlphaZero.jl's definition).

A move is a mistake when its outcome class (win > draw > loss, from the side to move) is below the
best available. The best class is the sign of the position's score in the test file; whether the
agent's move keeps it is one null-window test of the position after the move (:func:`is_mistake`),
by the numba twin of the solver (:mod:`training.fast_solver`, needs numba) under a node limit
(positions beyond it are reported as unchecked; in a lost position no move is a mistake).

Every position is played by a fresh agent built from ``--spec`` (no table or tree carried over from
earlier moves, the hardest case), called as Kaggle calls it with ``actTimeout`` ``--act`` and an
overage bank of ``--bank`` seconds; the time column is that call's. A random sample of ``--per-set``
positions a set (seeded)::

    python -m benchmarks.mistakes --spec negamax --per-set 40 --act 2 --bank 10
    python -m benchmarks.mistakes --spec network:search=none --per-set 200 --max-nodes 30000000

Reference mistake rates (%) on L3_R1 / L2_R1 / L2_R2 / L1_R1 / L1_R2 / L1_R3: depth-5 minimax 1.7 /
0.7 / 1.4 / 7.3 / 9.2 / 23.5; AlphaZero.jl's agent about 0 / 0 / 2.5 / 0 / 2 / 7 (AlphaZero.jl's
Connect Four tutorial, benchmark section,
https://jonathan-laurent.github.io/AlphaZero.jl/stable/tutorial/connect_four/).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

from agents.engine.board import Board
from agents.engine.solver import SearchAborted
from agents.kit.adapter import Clock, observation
from agents.registry import load_agent, parse_spec
from benchmarks.pons import DATA, SETS, read_set

MINIMAX5 = {"L3_R1": 1.7, "L2_R1": 0.7, "L2_R2": 1.4, "L1_R1": 7.3, "L1_R2": 9.2, "L1_R3": 23.5}
ALPHAZERO_JL = {"L3_R1": 0.0, "L2_R1": 0.0, "L2_R2": 2.5, "L1_R1": 0.0, "L1_R2": 2.0, "L1_R3": 7.0}


def outcome_sign(x: int) -> int:
    return (x > 0) - (x < 0)


def rate_interval(mistakes: int, checked: int) -> tuple[float, float]:
    """Exact (Clopper-Pearson) 95 % interval of a mistake rate, in percent; ``(0, 100)`` when nothing
    was checked. Computed by :func:`scipy.stats.binomtest`."""
    if checked == 0:
        return 0.0, 100.0
    from scipy.stats import binomtest

    ci = binomtest(mistakes, checked).proportion_ci(confidence_level=0.95, method="exact")
    return 100 * ci.low, 100 * ci.high


def is_mistake(checker, board: Board, column: int, best: int, max_nodes: int) -> bool | None:
    """Whether playing ``column`` on ``board`` lowers the outcome class below ``best`` (1 win, 0 draw,
    -1 loss for the side to move: the sign of the position's score in Pons' file).

    A lost position admits no mistake; otherwise one null-window test of the position after the move
    by ``checker`` (a :class:`training.fast_solver.FastSolver`) decides: a win is kept when the opponent
    scores below 0 there, a draw when it scores at most 0. None when that test exceeds ``max_nodes``.
    """
    if best < 0:
        return False
    child = board.copy()
    child.push(column)
    if child.winner() is not None:
        return False
    if child.is_full():
        return best > 0
    try:
        return checker.at_least(child.position, child.mask, child.ply, 1 - best, max_nodes=max_nodes)
    except SearchAborted:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.mistakes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--spec", default="negamax", help="agent spec, as connectx run takes it")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--per-set", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--act", type=float, default=2.0, help="actTimeout, seconds")
    parser.add_argument("--bank", type=float, default=10.0, help="remainingOverageTime given, seconds")
    parser.add_argument("--max-nodes", type=int, default=400_000_000, help="node limit of a check")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--verbose", action="store_true", help="print every mistake")
    args = parser.parse_args(argv)

    from training.fast_solver import FastSolver

    spec = parse_spec(args.spec)
    checker = FastSolver(table_bits=24)
    clock = Clock(act_timeout=args.act, overage=args.bank)
    print(
        f"{args.spec}: act {args.act} s, bank {args.bank} s, {args.per_set} positions a set, seed {args.seed}"
    )
    print(
        f"{'set':6s} {'pos':>4s} {'checked':>7s} {'mistakes':>8s} {'rate':>6s} {'95% CI':>12s} "
        f"{'minimax5':>8s} {'AZ.jl':>6s} {'mean s':>6s} {'max s':>6s}  stages"
    )
    total = Counter()
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        cases = read_set(name, args.data)
        sample = random.Random(args.seed).sample(cases, min(args.per_set, len(cases)))
        stats: Counter[str] = Counter()
        stages: Counter[str] = Counter()
        times = []
        for moves, score in sample:
            board = Board.from_moves(moves)
            agent = load_agent(spec)
            obs, config = observation(board, clock)
            start = time.perf_counter()
            column = agent(obs, config)
            times.append(time.perf_counter() - start)
            last_move = getattr(agent, "last_move", {})
            stages[last_move.get("stage", "?")] += 1
            mistake = is_mistake(checker, board, column, outcome_sign(score), args.max_nodes)
            if mistake is None:
                stats["unchecked"] += 1
                continue
            stats["checked"] += 1
            if mistake:
                if args.verbose:
                    print(f"  mistake: {moves} (score {score}) played column {column + 1}, {last_move}")
                stats["mistakes"] += 1
        total.update(stats)
        rate = 100 * stats["mistakes"] / max(stats["checked"], 1)
        low, high = rate_interval(stats["mistakes"], stats["checked"])
        print(
            f"{name:6s} {len(sample):4d} {stats['checked']:7d} {stats['mistakes']:8d} {rate:5.1f}% "
            f"{f'{low:.1f}-{high:.1f}%':>12s} {MINIMAX5[name]:7.1f}% {ALPHAZERO_JL[name]:5.1f}% "
            f"{sum(times) / len(times):6.2f} {max(times):6.2f}  {dict(stages)}",
            flush=True,
        )
    print(f"all: {total['mistakes']}/{total['checked']} mistakes, unchecked {total['unchecked']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
