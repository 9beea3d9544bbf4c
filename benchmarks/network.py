"""Time per move of the ``network`` agent (or any spec) on positions of Pons' test sets.

The observation is built before the clock starts, as Kaggle times the agent alone::

    python -m benchmarks.network --spec network:search=none --positions 300

Mistake rates are :mod:`benchmarks.mistakes`' (``--spec network``); win rates go through the
tournament runner (``connectx run --agents network mcts --gauntlet``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from agents.engine.board import Board
from agents.engine.solver import warm_up
from agents.kit.adapter import Agent, observation
from agents.kit.clock import Clock
from agents.registry import load_agent, parse_spec
from benchmarks.pons import DATA, SETS, read_set

CLOCK = Clock()
"""Kaggle's: 2 s a move, a 60 s bank."""


def timed_move(agent: Agent, board: Board) -> tuple[int, float]:
    """``agent``'s column for ``board`` under Kaggle's clock, and the milliseconds the call took (the
    observation is built before the clock starts: what Kaggle times is the agent alone)."""
    obs, config = observation(board, CLOCK)
    start = time.perf_counter()
    column = agent(obs, config)
    return column, 1000 * (time.perf_counter() - start)


def speed(args: argparse.Namespace) -> int:
    """Print the time per move of ``args.spec`` on positions of Pons' sets; returns 0."""
    agent = load_agent(parse_spec(args.spec))
    cases = [case for name in SETS for case in read_set(name, DATA)]
    sample = random.Random(args.seed).sample(cases, args.positions)
    warm_up()  # the solver compiled, and the weights loaded, outside the timing
    timed_move(agent, Board.from_moves(sample[0][0]))
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
    parser.add_argument("--spec", default="network:search=none")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    return speed(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
