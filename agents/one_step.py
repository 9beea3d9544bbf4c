"""``one_step``: the course's one-step lookahead with the window heuristic.

Every legal column is scored by :func:`agents.heuristic.evaluate` with
:data:`~agents.heuristic.ONE_STEP` weights on the board after the move; ties are broken at random.
Source: https://www.kaggle.com/code/alexisbcook/one-step-lookahead.
"""

from __future__ import annotations

import random
from typing import Any

from agents.engine.board import Board
from agents.heuristic import ONE_STEP, evaluate
from agents.kit.adapter import Agent, board_from_obs


def score_moves(board: Board) -> dict[int, int]:
    """Heuristic value of each legal column for the side to move (``{column: score}``)."""
    theirs = board.opponent
    return {
        column: evaluate(board.position | board.move_cell(column), theirs, board.geo, ONE_STEP)
        for column in board.legal_moves()
    }


def make_agent(*, seed: int | None = None) -> Agent:
    """The one-step lookahead agent; ``seed`` seeds its tie-breaking ``random.Random``."""
    rng = random.Random(seed)

    def agent(obs: Any, config: Any) -> int:
        scores = score_moves(board_from_obs(obs, config))
        best = max(scores.values())
        return rng.choice([column for column, score in scores.items() if score == best])

    return agent


agent = make_agent()
