"""Time a move of an agent (default ``network``) while other processes keep the other cores busy.

Outside our runner nothing limits numpy's BLAS threads, and a machine whose other cores run
something else is the usual case (Kaggle plays both agents of a game at once). This script starts
``--busy`` processes that spin (default: one fewer than the cores), then times ``--positions``
moves of ``--spec`` on seeded random 6x7 positions in this process, with the weights loaded
beforehand, and prints the median, p95 and maximum in milliseconds::

    python -m benchmarks.network_busy                      # the other core busy
    python -m benchmarks.network_busy --busy 0             # an idle machine, for comparison
    python -m benchmarks.network_busy --spec network:depth=1
    python -m benchmarks.network_busy --spec main.py           # a built submission (python -m submissions)

Run it with no ``OPENBLAS_NUM_THREADS`` (or similar) in the environment, as a user would.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

from agents.adapter import Clock, observation
from agents.board import Board
from agents.lines import has_line
from agents.registry import load_agent, parse_spec

CLOCK = Clock(act_timeout=2.0, overage=60.0)
SPIN = "while True:\n    pass\n"


def positions(count: int, seed: int) -> list[Board]:
    """``count`` positions of 2 to 30 random plies, none won and none full (seeded)."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = Board.from_moves("")
        for _ in range(rng.randint(2, 30)):
            board.play(rng.choice([c for c in range(7) if board.can_play(c)]))
            if has_line(board.opponent, board.geo) or board.is_full():
                break
        else:
            boards.append(board)
    return boards


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``sorted_values`` (nearest rank)."""
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring); returns 0."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.network_busy", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--spec", default="network")
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--busy", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    agent = load_agent(parse_spec(args.spec))
    if isinstance(agent, str):  # a file, e.g. a built submission: its last callable, as Kaggle loads it
        from kaggle_environments.agent import get_last_callable

        with open(agent) as source:
            agent = get_last_callable(source.read(), path=agent)
    boards = positions(args.positions, args.seed)
    agent(*observation(boards[0], CLOCK))  # loads the weights
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.busy)]
    try:
        time.sleep(0.5)  # let the spinners get going
        times = []
        for board in boards:
            obs, config = observation(board, CLOCK)
            start = time.perf_counter()
            agent(obs, config)
            times.append(1000 * (time.perf_counter() - start))
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    times.sort()
    print(
        f"{args.spec}: {len(times)} moves, {args.busy} busy process(es) on {os.cpu_count()} cores, "
        f"ms a move: median {statistics.median(times):.2f}, p95 {percentile(times, 0.95):.2f}, "
        f"max {times[-1]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
