"""The opponent's move times beside an agent that leaves 40 children spinning: the wall-clock figure
of the CPU-time freezer (:mod:`tournament.sandbox.freezer`), which the tests check by what the
sandbox controls (``tests/test_containment.py``: the hog's processes take no CPU time while its
opponent moves) rather than by the clock, which measures the machine's load as much.

Usage: ``python -m benchmarks.spinners [--rounds 5] [--opponent mcts:rollouts=1500]``

Each round plays two games on one game process of the runner (:func:`tournament.runner.run_games`,
one worker), the opponent second in both: against ``leftmost`` (the baseline), then against
``tests/misbehaving/spins_children.py`` (the hog: 40 children spinning in sessions of their own from
its first move). For each kind it prints the opponent's total move time a game (the referee's
wall-clock times of its moves, summed), the fastest and the median over the rounds, and the ratio
hog / baseline of each; other work on the machine only ever slows a game, so the fastest games are
the fairest pair. Unfrozen, the spinners would take 40 of the 41 shares of the CPUs from the
opponent: several times slower. Prints the load average at the start and end (``os.getloadavg``).
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from tournament.runner import run_games
from tournament.schedule import GameTask

HOG = Path(__file__).parent.parent / "tests" / "misbehaving" / "spins_children.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of two games (default 5)")
    parser.add_argument("--opponent", default="mcts:rollouts=1500", help="the timed agent's spec")
    args = parser.parse_args()
    kinds = {"baseline": "leftmost", "hog": str(HOG)}
    tasks, kind_of = [], {}
    for number in range(args.rounds):
        for index, (kind, first) in enumerate(kinds.items()):
            game_id = 2 * number + index
            tasks.append(GameTask(game_id, game_id, first, args.opponent, 6, 7, 4, 5.0, None, seed=1))
            kind_of[game_id] = kind
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    seconds: dict[str, list[float]] = {kind: [] for kind in kinds}
    for record in run_games(tasks, 1):
        if record.offender is not None:
            raise SystemExit(f"game {record.game_id}: {record.detail}")
        seconds[kind_of[record.game_id]].append(sum(record.move_times[1::2]))
    for kind, times in seconds.items():
        print(f"{kind:8}  fastest {min(times):.3f} s  median {statistics.median(times):.3f} s a game")
    fastest = min(seconds["hog"]) / min(seconds["baseline"])
    median = statistics.median(seconds["hog"]) / statistics.median(seconds["baseline"])
    print(f"hog / baseline: fastest {fastest:.2f}x, median {median:.2f}x")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
