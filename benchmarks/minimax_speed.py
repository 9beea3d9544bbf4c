"""Speed of ``minimax`` (alpha-beta on bitboards) against the course's N-step algorithm.

Usage: ``python -m benchmarks.minimax_speed [--depth 3] [--repeat 20]``

Times one move of each on the empty 6x7 board and on a few middle-game positions, checks both
give the same values, and prints the speed-up. The course algorithm is the direct rendering in
``tests/course_reference.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agents.engine.board import Board
from agents.minimax import minimax_values

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import course_reference  # noqa: E402

POSITIONS = {
    "empty board": "",
    "ply 6": "444355",
    "ply 15": "274552224131661",
    "ply 25": "5554224333234511764415115",
}


def seconds_per_call(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(f"{'position':12} {'course s':>10} {'minimax ms':>11} {'speed-up':>9}")
    for name, moves in POSITIONS.items():
        board = Board.from_moves(moves)
        cells = board.to_kaggle()
        ours = minimax_values(board, args.depth)
        theirs = course_reference.minimax_values(cells, board.mark, 6, 7, 4, args.depth)
        assert ours == theirs, (name, ours, theirs)
        fast = seconds_per_call(lambda b=board: minimax_values(b, args.depth), args.repeat)
        slow = seconds_per_call(
            lambda c=cells, m=board.mark: course_reference.minimax_values(c, m, 6, 7, 4, args.depth), 2
        )
        print(f"{name:12} {slow:10.3f} {fast * 1000:11.2f} {slow / fast:8.0f}x")


if __name__ == "__main__":
    main()
