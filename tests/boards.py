"""Random positions for the tests."""

from __future__ import annotations

import random

from agents.engine.board import Board


def random_board(rng: random.Random, rows: int, columns: int, k: int) -> Board:
    """A position reached by up to ``rows * columns`` uniformly random legal moves from the empty
    ``rows`` x ``columns`` board with ``k`` in a row; it stops early when the game ends."""
    board = Board(rows, columns, k)
    for _ in range(rng.randrange(rows * columns + 1)):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves()))
    return board
