"""Measure the ``network`` agent: mistake rate on Pons' test sets, and time per move.

Mistake rate (AlphaZero.jl's definition): a move is a mistake when its outcome class (win > draw >
loss, side to move) is below the best available. The best class is the sign of the position's score
in Pons' file; whether the agent's move keeps it is one null-window test of the position after it
(:func:`benchmarks.mistakes.is_mistake`, numba solver :mod:`training.fast_solver`, node limit
``--max-nodes``; positions beyond it are reported as unchecked). A random sample of ``--per-set``
positions per set (seeded)::

    python -m benchmarks.network mistakes --spec network --per-set 200
    python -m benchmarks.network mistakes --spec network:depth=3 --per-set 100
    python -m benchmarks.network speed --spec network --positions 200

Win rates go through the tournament runner instead (kaggle-environments referee, 100 games a colour)::

    connectx run --agents network random kaggle-negamax --gauntlet --games 100 \\
        --out runs/network-games

Reference mistake rates (%): depth-5 minimax 1.7 / 0.7 / 1.4 / 7.3 / 9.2 / 23.5 on L3_R1 / L2_R1 /
L2_R2 / L1_R1 / L1_R2 / L1_R3; AlphaZero.jl about 0 on the easy sets, 2 begin-medium (L1_R2), 2.5
middle-medium (L2_R2), 7 begin-hard (L1_R3) (AlphaZero.jl's Connect Four tutorial, benchmark section,
https://jonathan-laurent.github.io/AlphaZero.jl/stable/tutorial/connect_four/).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter

from agents.adapter import Agent, Clock, observation
from agents.board import Board
from agents.registry import load_agent, parse_spec
from benchmarks.mistakes import MINIMAX5, is_mistake, outcome_sign, rate_interval
from benchmarks.pons import DATA, SETS, read_set

ALPHAZERO_JL = {"L3_R1": 0.0, "L2_R1": 0.0, "L2_R2": 2.5, "L1_R1": 0.0, "L1_R2": 2.0, "L1_R3": 7.0}
CLOCK = Clock()
"""Kaggle's: 2 s a move, a 60 s bank."""


def timed_move(agent: Agent, board: Board) -> tuple[int, float]:
    """``agent``'s column for ``board`` under Kaggle's clock, and the milliseconds the call took (the
    observation is built before the clock starts: what Kaggle times is the agent alone)."""
    obs, config = observation(board, CLOCK)
    start = time.perf_counter()
    column = agent(obs, config)
    return column, 1000 * (time.perf_counter() - start)


def mistakes(args: argparse.Namespace) -> int:
    """Print the mistake table of ``args.spec``; returns 0."""
    from training.fast_solver import FastSolver

    agent = load_agent(parse_spec(args.spec))
    checker = FastSolver(table_bits=24)
    print(f"{args.spec}: {args.per_set} positions a set, seed {args.seed}, node limit {args.max_nodes:,}")
    print(
        f"{'set':6s} {'pos':>4s} {'checked':>7s} {'mistakes':>8s} {'rate':>6s} {'95% CI':>12s} "
        f"{'minimax5':>8s} {'AZ.jl':>6s} {'mean ms':>8s} {'max ms':>8s}"
    )
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        cases = read_set(name, DATA)
        sample = random.Random(args.seed).sample(cases, min(args.per_set, len(cases)))
        stats: Counter[str] = Counter()
        times = []
        for moves, score in sample:
            board = Board.from_moves(moves)
            column, ms = timed_move(agent, board)
            times.append(ms)
            mistake = is_mistake(checker, board, column, outcome_sign(score), args.max_nodes)
            if mistake is None:
                stats["unchecked"] += 1
                continue
            stats["checked"] += 1
            stats["mistakes"] += mistake
        rate = 100 * stats["mistakes"] / max(stats["checked"], 1)
        low, high = rate_interval(stats["mistakes"], stats["checked"])
        print(
            f"{name:6s} {len(sample):4d} {stats['checked']:7d} {stats['mistakes']:8d} {rate:5.1f}% "
            f"{f'{low:.1f}-{high:.1f}%':>12s} {MINIMAX5[name]:7.1f}% {ALPHAZERO_JL[name]:5.1f}% "
            f"{statistics.mean(times):8.2f} {max(times):8.2f}",
            flush=True,
        )
    return 0


def speed(args: argparse.Namespace) -> int:
    """Print the time per move of ``args.spec`` on positions of Pons' sets; returns 0."""
    agent = load_agent(parse_spec(args.spec))
    cases = [case for name in SETS for case in read_set(name, DATA)]
    sample = random.Random(args.seed).sample(cases, args.positions)
    board = Board.from_moves(sample[0][0])
    timed_move(agent, board)  # loads the weights
    times = [timed_move(agent, Board.from_moves(moves))[1] for moves, _ in sample]
    times.sort()
    print(
        f"{args.spec}: {len(times)} positions, ms per move: mean {statistics.mean(times):.2f}, "
        f"median {times[len(times) // 2]:.2f}, p95 {times[int(0.95 * len(times))]:.2f}, max {times[-1]:.2f}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.network", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("mistakes", help="mistake rate on Pons' sets")
    m.add_argument("--spec", default="network")
    m.add_argument("--sets", default=",".join(SETS))
    m.add_argument("--per-set", type=int, default=200)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--max-nodes", type=int, default=200_000_000)
    s = sub.add_parser("speed", help="time per move")
    s.add_argument("--spec", default="network")
    s.add_argument("--positions", type=int, default=200)
    s.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    return mistakes(args) if args.command == "mistakes" else speed(args)


if __name__ == "__main__":
    sys.exit(main())
