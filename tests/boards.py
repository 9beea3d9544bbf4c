"""Random positions for the tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from agents.engine.board import Board
from agents.kit.adapter import observation
from agents.kit.clock import Clock


def random_board(rng: random.Random, rows: int, columns: int, k: int) -> Board:
    """A position reached by up to ``rows * columns`` uniformly random legal moves from the empty
    ``rows`` x ``columns`` board with ``k`` in a row; it stops early when the game ends."""
    board = Board(rows, columns, k)
    for _ in range(rng.randrange(rows * columns + 1)):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves()))
    return board


def assert_plays_legal_ints(
    agent: Callable[..., Any], config: tuple[int, int, int], stage: str, clock: Clock
) -> None:
    """``agent`` answers ten random positions of the board ``config`` (rows, columns, k in a row; the
    positions drawn from a generator seeded by ``sum(config)``), given ``clock``'s time, each with a
    legal Python int chosen by its search stage ``stage`` (``agent.last_move.stage``)."""
    rng = random.Random(sum(config))
    for _ in range(10):
        board = random_board(rng, *config)
        if not board.is_game_over():
            move = agent(*observation(board, clock))
            assert type(move) is int and board.can_play(move)
            assert agent.last_move.stage == stage
