"""``minimax``: the course's N-step lookahead, with alpha-beta pruning on bitboards.

The course scores each legal column ``c`` as ``minimax(child(c), depth - 1, maximizing=False)``
where the tree alternates the root player's moves (max) and the opponent's (min), and a node is a
leaf at depth 0 or when it is terminal (a line on the board, or the board full); every leaf --
terminal or not -- is valued by the :data:`~agents.heuristic.MINIMAX` window heuristic from the
root player's side. Source: https://www.kaggle.com/code/alexisbcook/n-step-lookahead.

Alpha-beta pruning (Knuth & Moore, "An analysis of alpha-beta pruning", 1975) returns the same value
for every root column as the plain algorithm, so :func:`minimax_values` equals the course's
``score_move`` values exactly while visiting far fewer leaves; ties are broken at random as in the
course. Children are searched centre-first, which makes cut-offs come early.
"""

from __future__ import annotations

import math
import random
from typing import Any

from agents.adapter import Agent, board_from_obs
from agents.board import Board, Geometry
from agents.heuristic import MINIMAX, evaluate
from agents.lines import has_line


def minimax_values(board: Board, depth: int = 3) -> dict[int, int]:
    """The course's minimax value of every legal column for the side to move.

    ``depth`` ≥ 1 counts plies including the root move (the course's ``N_STEPS``). Values are
    integers in the heuristic's units (a course value of 1e6 is 1_000_000 here). Raises
    ``ValueError`` for ``depth < 1``.
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    geo = board.geo
    mine, theirs = board.position, board.opponent
    values = {}
    for column in board.legal_moves():
        cell = board.move_cell(column)
        values[column] = _search(mine | cell, theirs, geo, depth - 1, False, -math.inf, math.inf)
    return values


def _search(mine: int, theirs: int, geo: Geometry, depth: int, maximizing: bool, alpha: float, beta: float):
    """Alpha-beta minimax below a move; ``maximizing`` when the root player is to move.

    Fail-soft: the result is exact when it lies strictly between ``alpha`` and ``beta``, an upper
    bound when ≤ ``alpha`` and a lower bound when ≥ ``beta``.
    """
    mask = mine | theirs
    last_mover = theirs if maximizing else mine
    if depth == 0 or mask == geo.board or has_line(last_mover, geo):
        return evaluate(mine, theirs, geo, MINIMAX)
    top, bottom, columns = geo.top_cells, geo.bottom_cells, geo.column_masks
    if maximizing:
        value = -math.inf
        for c in geo.centre_order:
            if mask & top[c]:
                continue
            cell = (mask + bottom[c]) & columns[c]
            value = max(value, _search(mine | cell, theirs, geo, depth - 1, False, alpha, beta))
            alpha = max(alpha, value)
            if alpha >= beta:
                break
    else:
        value = math.inf
        for c in geo.centre_order:
            if mask & top[c]:
                continue
            cell = (mask + bottom[c]) & columns[c]
            value = min(value, _search(mine, theirs | cell, geo, depth - 1, True, alpha, beta))
            beta = min(beta, value)
            if alpha >= beta:
                break
    return value


def make_agent(*, depth: int = 3, seed: int | None = None) -> Agent:
    """The N-step lookahead agent searching ``depth`` plies (≥ 1, default 3 as in the course).

    ``seed`` seeds its tie-breaking ``random.Random``. Raises ``ValueError`` for ``depth < 1``.
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    rng = random.Random(seed)

    def agent(obs: Any, config: Any) -> int:
        values = minimax_values(board_from_obs(obs, config), depth)
        best = max(values.values())
        return rng.choice([column for column, value in values.items() if value == best])

    return agent


agent = make_agent()
