"""The solved-positions stage: a move proven by exact solving, over the solved game's databases.

A thin stage over :meth:`agents.engine.solver.Solver.choose` (Pons' algorithm, any board) that
players run after :func:`agents.kit.tactics.tactical_move` and before their own search:
:class:`SolvedPositions`. On 6x7 the solver stops at the opening databases' 12-stone positions
(:mod:`agents.engine.solver.databases`), so every position is solved in time, from the empty board
on; without the databases, our own opening book (:func:`agents.engine.book.book_move`) answers the
positions it holds and the solver the rest, with at most :data:`EXACT_EMPTY_LIMIT` empty cells.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from agents.engine.board import Board, Geometry
from agents.engine.book import book_move
from agents.engine.solver import Solver, warm_up

__all__ = ["EXACT_EMPTY_LIMIT", "TABLE_LIMIT", "SolvedChoice", "SolvedPositions"]

EXACT_EMPTY_LIMIT = 36
"""Exact solving is tried only with at most this many empty cells (6x7: from ply 6 on)."""

TABLE_LIMIT = 2_000_000
"""Transposition-table entries (about 80 bytes each) kept by a player's solver before clearing."""


@dataclass(frozen=True, slots=True)
class SolvedChoice:
    """What :meth:`SolvedPositions.choose` found: ``move``, ``(stage, column)`` with stage ``book`` or
    ``exact``, when one of them chose; otherwise ``allowed``, the legal columns (increasing) the solver
    did not prove lost -- empty when it proved them all lost, None when it did not run; ``nodes``, the
    solver's nodes for this move."""

    move: tuple[str, int] | None
    allowed: tuple[int, ...] | None
    nodes: int = field(default=0, compare=False)


class SolvedPositions:
    """The stage of one player (see the module docstring). ``exact`` switches the solver on;
    ``book`` the opening databases that the solver stops at, or, without them (or without the
    solver), our opening book.

    Its solvers, one a board geometry, live as long as the object (so as long as its player): once a
    position is solved, the next moves of the game are mostly table hits. Each table is cleared when
    it exceeds :data:`TABLE_LIMIT` entries.
    """

    def __init__(self, *, book: bool = True, exact: bool = True) -> None:
        self.book = book
        self.exact = exact
        self._solvers: dict[Geometry, Solver] = {}
        self._prepared = False

    def prepare(self) -> float:
        """Compile the solver's kernel (:func:`agents.engine.solver.warm_up`) at the player's first
        move, before its search: the seconds it took, 0.0 when there was nothing to do (the solver
        off, a later move, or a kernel this process already holds). The player charges them to the
        first move's overage bank (:func:`agents.kit.budget.charged`), so that the compile never eats
        the move's own solving time, and no later move compiles."""
        if self._prepared or not self.exact:
            return 0.0
        self._prepared = True
        began = time.perf_counter()
        warm_up()
        return time.perf_counter() - began

    def choose(self, board: Board, deadline: float, refine_deadline: float | None = None) -> SolvedChoice:
        """A perfect move for ``board`` (game on, no move winning at once), or what is left to search.

        :meth:`Solver.choose <agents.engine.solver.Solver.choose>` until ``deadline``
        (``time.perf_counter()`` seconds) finds a move that keeps a win, else a draw, and until
        ``refine_deadline`` (default ``deadline``) the fastest win or the slowest loss. Without the
        databases (``book`` off, another board, the package not installed), the opening book's move
        comes first, and the solver runs only with at most :data:`EXACT_EMPTY_LIMIT` empty cells.
        When neither decides, the :class:`SolvedChoice` tells the search which moves are left."""
        geo = board.geo
        solver = self._solvers.get(geo)
        if solver is None and self.exact:
            solver = self._solvers[geo] = Solver(
                geo.rows, geo.columns, geo.inarow, table_limit=TABLE_LIMIT, databases=self.book
            )
        if solver is None or solver.database is None:
            column = book_move(board) if self.book else None
            if column is not None:
                return SolvedChoice(("book", column), None)
            if solver is None or geo.size - board.ply > EXACT_EMPTY_LIMIT:
                return SolvedChoice(None, None)
        column, values = solver.choose(
            board.position, board.mask, board.ply, deadline=deadline, refine_deadline=refine_deadline
        )
        if column is not None:
            return SolvedChoice(("exact", column), None, solver.nodes)
        return SolvedChoice(None, tuple(c for c in board.legal_moves() if values.get(c) != -1), solver.nodes)
