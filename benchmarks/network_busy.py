"""Time a move of an agent (default ``network:search=none``) while other processes keep the other cores busy.

Outside our runner nothing limits numpy's BLAS threads, and a machine whose other cores run
something else is the usual case (Kaggle plays both agents of a game at once). This script starts
``--busy`` processes that spin (default: one fewer than the cores), then times ``--positions``
moves of ``--spec`` on seeded random 6x7 positions in this process, with the weights loaded
beforehand, and prints the median, p95 and maximum in milliseconds::

    python -m benchmarks.network_busy                      # the other core busy
    python -m benchmarks.network_busy --busy 0             # an idle machine, for comparison
    python -m benchmarks.network_busy --spec network:search=alphabeta,depth=1
    python -m benchmarks.network_busy --spec main.py           # a built submission (connectx build)

Run it with no ``OPENBLAS_NUM_THREADS`` (or similar) in the environment, as a user would.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys

from agents import random_agent
from agents.engine.board import Board
from agents.engine.solver import warm_up
from agents.kit.adapter import as_player
from agents.kit.player import play_game
from agents.registry import load_agent, parse_spec
from benchmarks.load import spinning
from benchmarks.network import timed_move


def positions(count: int, seed: int) -> list[Board]:
    """``count`` positions of 2 to 30 plies from games of two seeded ``random`` players (played by
    :func:`agents.kit.player.play_game`), none won and none full."""
    rng = random.Random(seed)
    players = [as_player(random_agent.make_agent(seed=seed + side)) for side in (0, 1)]
    boards: list[Board] = []
    while len(boards) < count:
        moves = play_game(players).moves
        plies = rng.randint(2, 30)
        if plies < len(moves):
            boards.append(Board.from_moves(moves[:plies]))
    return boards


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``sorted_values`` (nearest rank)."""
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring); returns 0."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.network_busy", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--spec", default="network:search=none")
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
    warm_up()  # the solver compiled, and the weights loaded, outside the timing
    timed_move(agent, boards[0])
    with spinning(args.busy):
        times = [timed_move(agent, board)[1] for board in boards]
    times.sort()
    print(
        f"{args.spec}: {len(times)} moves, {args.busy} busy process(es) on {os.cpu_count()} cores, "
        f"ms a move: median {statistics.median(times):.2f}, p95 {percentile(times, 0.95):.2f}, "
        f"max {times[-1]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
