"""Per-game overhead of the isolated tournament runner over a plain ``env.run``.

Usage: ``python -m benchmarks.runner_overhead [--games 100]``

Plays the same number of ``kaggle-random`` vs ``kaggle-random`` games (a) with
``kaggle_environments.make("connectx").run`` in a loop and (b) through
:func:`tournament.runner.run_games` with one worker (a forked process per game, each agent in a
sandboxed process of its own behind a proxy, the record built from the steps), and prints the mean
seconds per game of each and their difference. The plain loop runs in this process, where
``kaggle_environments`` was imported the runner's way (:mod:`tournament.referee`).
"""

from __future__ import annotations

import argparse
import time

from tournament.runner import run_games  # imports our agents before kaggle_environments
from tournament.schedule import GameTask

from kaggle_environments import make  # isort: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()

    start = time.perf_counter()
    for _ in range(args.games):
        make("connectx").run(["random", "random"])
    plain = (time.perf_counter() - start) / args.games

    tasks = [
        GameTask(i, i, "kaggle-random", "kaggle-random", 6, 7, 4, act_timeout=2.0, hang_limit=None, seed=i)
        for i in range(args.games)
    ]
    start = time.perf_counter()
    records = list(run_games(tasks, workers=1))
    isolated = (time.perf_counter() - start) / args.games
    assert len(records) == args.games

    print(f"plain env.run      {plain * 1000:8.1f} ms/game")
    print(f"isolated runner    {isolated * 1000:8.1f} ms/game (1 worker)")
    print(f"overhead           {(isolated - plain) * 1000:8.1f} ms/game ({isolated / plain:.2f}x)")


if __name__ == "__main__":
    main()
