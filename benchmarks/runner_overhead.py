"""Cost per game of the isolated tournament runner against kaggle's in-process ``env.run``, and
how it scales from one worker to two.

Usage: ``python -m benchmarks.runner_overhead [--games 50] [--rounds 10] [--mix 96] [--mix-rounds 3]``

1. **Overhead.** ``kaggle-random`` against ``kaggle-random``, in rounds: each round plays ``--games``
   games in this process twice, with ``kaggle_environments.make("connectx").run`` a game and with one
   environment run again and again (kaggle's ``evaluate(..., num_episodes=N)``; ``make`` costs about
   16 ms and ``make(...).run`` resets twice), then as many through
   :func:`tournament.runner.run_games` with one worker (a long-lived game process that keeps its
   environment, each agent in a sandboxed process of its own, forked ahead by the game process's
   zygote, the record built from the steps). The ratio to each baseline is taken per round, so that
   the two sides of a ratio ran moments apart (this 2-core machine's speed drifts by tens of percent
   from minute to minute), and the median over the rounds is printed with the mean milliseconds a
   game: wall time, and CPU time (all processes: the runner's game and agent processes may use the
   second core, which a full machine would not have). The ratio to the reused environment is the
   cost of the isolation alone. The plain loops run in this process, where ``kaggle_environments``
   was imported the runner's way (:mod:`tournament.environments`).
2. **Scaling.** A longer mix, ``--mix`` games of ``minimax:depth=3`` against ``minimax:depth=4``
   with each side first in turn, in ``--mix-rounds`` rounds: each round plays it through the runner
   with one worker and then with two, and the speed-up is the ratio of the wall times (2.0 at best
   on two cores). For reference, the same rounds also play the mix in-process (``make(...).run`` a
   game, no isolation) in a ``concurrent.futures`` pool of one process and then of two: what this
   machine gives for the mix at best. Those pool processes keep our agents' caches (``minimax``'s
   transposition table) from game to game, where every host of the runner starts cold as on Kaggle,
   so they are also faster per game.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from agents.registry import load_agent, parse_spec
from tournament.game import configuration
from tournament.runner import run_games  # imports our agents before kaggle_environments
from tournament.schedule import GameTask

from kaggle_environments import make  # isort: skip


def _random_games(games: int, start: int) -> list[GameTask]:
    return [
        GameTask(
            game_id=i,
            pair_id=i,
            first="kaggle-random",
            second="kaggle-random",
            rows=6,
            columns=7,
            inarow=4,
            act_timeout=2.0,
            hang_limit=None,
            seed=i,
        )
        for i in range(start, start + games)
    ]


MIX = ("minimax:depth=3", "minimax:depth=4")
"""The scaling mix's pairing: about 0.4 s a game on this machine, nearly all of it the agents' search."""


def _mix(games: int) -> list[GameTask]:
    return [
        GameTask(
            game_id=i,
            pair_id=i // 2,
            first=MIX[i % 2],
            second=MIX[1 - i % 2],
            rows=6,
            columns=7,
            inarow=4,
            act_timeout=2.0,
            hang_limit=None,
            seed=i // 2,
        )
        for i in range(games)
    ]


def _in_process(task: GameTask) -> None:
    """Play ``task`` in this process, as ``env.run`` plays it: no sandbox, no referee of ours."""
    sides = ((1, task.first), (2, task.second))
    agents = [load_agent(parse_spec(spec), seed=task.seed + mark) for mark, spec in sides]
    make("connectx", configuration=configuration(task)).run(agents)


def _pooled(tasks: list[GameTask], workers: int) -> float:
    """Wall seconds of playing ``tasks`` in-process in a pool of ``workers`` forked processes."""
    start = time.perf_counter()
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_in_process, tasks))
    return time.perf_counter() - start


def _cpu() -> float:
    """CPU seconds (user and system) of this process and of its children that ended."""
    mine, theirs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


def _timed(tasks: list[GameTask], workers: int) -> tuple[float, float]:
    """Wall and CPU seconds of playing ``tasks`` through the runner (its game processes, ended by
    then, count their hosts, which they reaped)."""
    start, cpu = time.perf_counter(), _cpu()
    records = list(run_games(tasks, workers=workers))
    assert len(records) == len(tasks) and not any(isinstance(r, Exception) for r in records)
    return time.perf_counter() - start, _cpu() - cpu


def _plain(games: int, reuse: bool) -> None:
    """``games`` random-vs-random games in this process: ``make("connectx").run`` each, or one
    environment run again and again, as kaggle's ``evaluate(..., num_episodes=games)`` does."""
    env = make("connectx") if reuse else None
    for _ in range(games):
        (env or make("connectx")).run(["random", "random"])


BASELINES = {"make+run": False, "evaluate": True}
"""The in-process baselines: a new environment a game, or one reused (see :func:`_plain`)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games a side in each round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--mix", type=int, default=96, help="games of the scaling mix (0: none)")
    parser.add_argument("--mix-rounds", type=int, default=3, help="rounds of the scaling mix")
    args = parser.parse_args()

    sides = [*BASELINES, "runner"]
    wall: dict[str, list[float]] = {side: [] for side in sides}
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    for round_number in range(args.rounds):
        for name, reuse in BASELINES.items():
            start, used = time.perf_counter(), _cpu()
            _plain(args.games, reuse)
            wall[name].append((time.perf_counter() - start) / args.games)
            cpu[name].append((_cpu() - used) / args.games)
        seconds, used = _timed(_random_games(args.games, round_number * args.games), 1)
        wall["runner"].append(seconds / args.games)
        cpu["runner"].append(used / args.games)
    print(f"random vs random, {args.rounds} rounds of {args.games} games a side, the runner with 1 worker")
    for label, measure in (("wall", wall), ("CPU", cpu)):
        print(
            f"  {label}: "
            + ", ".join(f"{side} {statistics.mean(measure[side]) * 1000:.1f}" for side in sides)
            + " ms/game (means)"
        )
        for name in BASELINES:
            ratios = [runner / plain for runner, plain in zip(measure["runner"], measure[name], strict=True)]
            print(
                f"    runner / {name:8}: {statistics.median(ratios):.2f}x median over rounds "
                f"(min {min(ratios):.2f}, max {max(ratios):.2f}); each round "
                + " ".join(f"{ratio:.2f}" for ratio in ratios)
            )

    if args.mix:
        print(f"{MIX[0]} vs {MIX[1]}, {args.mix} games, {args.mix_rounds} rounds: wall seconds")
        speedups: dict[str, list[float]] = {"runner": [], "in-process pool": []}
        for _ in range(args.mix_rounds):
            one, _ = _timed(_mix(args.mix), 1)
            two, _ = _timed(_mix(args.mix), 2)
            pool_one, pool_two = _pooled(_mix(args.mix), 1), _pooled(_mix(args.mix), 2)
            speedups["runner"].append(one / two)
            speedups["in-process pool"].append(pool_one / pool_two)
            print(
                f"  runner: 1 worker {one:5.1f}, 2 workers {two:5.1f}, {one / two:.2f}x"
                f"   in-process pool: 1 process {pool_one:5.1f}, 2 processes {pool_two:5.1f}, "
                f"{pool_one / pool_two:.2f}x"
            )
        for name, ratios in speedups.items():
            print(f"  {name} speed-up, 2 against 1: {statistics.median(ratios):.2f}x median over rounds")


if __name__ == "__main__":
    main()
