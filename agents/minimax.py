"""``minimax``: the course's N-step lookahead, with alpha-beta pruning on bitboards.

The course scores each legal column ``c`` as ``minimax(child(c), depth - 1, maximizing=False)``
where the tree alternates the root player's moves (max) and the opponent's (min), and a node is a
leaf at depth 0 or when it is terminal (a line on the board, or the board full); every leaf --
terminal or not -- is valued by the :data:`~agents.heuristic.MINIMAX` window heuristic from the
root player's side. Source: https://www.kaggle.com/code/alexisbcook/n-step-lookahead.

Here that is :class:`agents.engine.search.Search` without tactics (and without its transposition table
below depth 4, where no position recurs) and with the heuristic signed for the side to move
(negamax: the root player's value at even distances from the root, its negative at odd ones).
Alpha-beta pruning (Knuth & Moore 1975) with a full window for every root column returns the
same value for every column as the plain algorithm, so :func:`minimax_values` equals the course's
``score_move`` values exactly while visiting far fewer leaves; ties are broken at random as in the
course. Children are searched centre-first, which makes cut-offs come early.
"""

from __future__ import annotations

import random
import time
from functools import cache

from agents.engine.board import Board, Geometry
from agents.engine.search import Evaluate, Search
from agents.heuristic import MINIMAX, evaluate
from agents.kit.adapter import agent_factory
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord


def course_evaluation(geo: Geometry, root_ply: int) -> Evaluate:
    """The :data:`~agents.heuristic.MINIMAX` heuristic of the player to move at ``root_ply``, as a value
    for the side to move (:class:`agents.engine.search.Evaluate`): negated at odd distances from the root."""

    def value(position: int, mask: int, ply: int) -> int:
        if (ply ^ root_ply) & 1:
            return -evaluate(position ^ mask, position, geo, MINIMAX)
        return evaluate(position, position ^ mask, geo, MINIMAX)

    return value


@cache
def _search(geo: Geometry, parity: int, table: bool) -> Search:
    """The course's search for a root at a ply of the given parity (built once)."""
    return Search(geo, course_evaluation(geo, parity), tactics=False, table=table)


def minimax_values(board: Board, depth: int = 3) -> dict[int, int]:
    """The course's minimax value of every legal column for the side to move.

    ``depth`` ≥ 1 counts plies including the root move (the course's ``N_STEPS``). Values are
    integers in the heuristic's units (a course value of 1e6 is 1_000_000 here), keyed by column in
    increasing order. Raises ``ValueError`` for ``depth < 1``.
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    # No position recurs within 3 plies (a transposition swaps two stones of one player), so the
    # transposition table only pays from depth 4 on.
    table = depth >= 4
    return _search(board.geo, board.ply % 2, table).values(board, depth)  # type: ignore[return-value]


class Minimax:
    """The N-step lookahead :class:`~agents.kit.player.Player`: a column of the highest
    :func:`minimax_values` searching ``depth`` plies (≥ 1, default 3 as in the course), ties broken by
    ``random.Random(seed)``. Raises ``ValueError`` for ``depth < 1``."""

    def __init__(self, *, depth: int = 3, seed: int | None = None) -> None:
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self.depth = depth
        self.rng = random.Random(seed)

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        values = minimax_values(board, self.depth)
        best = max(values.values())
        column = self.rng.choice([column for column, value in values.items() if value == best])
        return MoveRecord.since(start, board, "search", column, depth=self.depth, value=best)


make_agent = agent_factory(Minimax)

agent = make_agent()
