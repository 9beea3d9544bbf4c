"""The solved-positions stage: the opening book's move, else a move proven by exact solving.

A thin stage over :func:`agents.engine.book.book_move` (6x7, four in a row) and
:meth:`agents.engine.solver.Solver.choose` (Pons' algorithm, any board) that players run after
:func:`agents.kit.tactics.tactical_move` and before their own search: :class:`SolvedPositions`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.engine.board import Board, Geometry
from agents.engine.book import book_move
from agents.engine.solver import Solver

__all__ = ["EXACT_EMPTY_LIMIT", "TABLE_LIMIT", "SolvedPositions", "Verdict"]

EXACT_EMPTY_LIMIT = 36
"""Exact solving is tried only with at most this many empty cells (6x7: from ply 6 on)."""

TABLE_LIMIT = 2_000_000
"""Transposition-table entries (about 80 bytes each) kept by a player's solver before clearing."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :meth:`SolvedPositions.choose` found: ``move``, ``(stage, column)`` with stage ``book`` or
    ``exact``, when one of them chose; otherwise ``allowed``, the legal columns (increasing) the solver
    did not prove lost -- empty when it proved them all lost, None when it did not run."""

    move: tuple[str, int] | None
    allowed: tuple[int, ...] | None


class SolvedPositions:
    """The stage of one player (see the module docstring); ``book`` and ``exact`` switch its two parts.

    Its solvers, one a board geometry, live as long as the object (so as long as its player): once a
    position is solved, the next moves of the game are mostly table hits. Each table is cleared when
    it exceeds :data:`TABLE_LIMIT` entries.
    """

    def __init__(self, *, book: bool = True, exact: bool = True) -> None:
        self.book = book
        self.exact = exact
        self._solvers: dict[Geometry, Solver] = {}

    def choose(self, board: Board, deadline: float) -> Verdict:
        """The book's move when it knows ``board`` (game on, no move winning at once); else, with at
        most :data:`EXACT_EMPTY_LIMIT` empty cells, :meth:`Solver.choose
        <agents.engine.solver.Solver.choose>` until ``deadline`` (``time.perf_counter()`` seconds): a
        move that keeps a win, else a draw, else in a lost position the longest resistance. When
        neither decides, the :class:`Verdict` tells the search which moves are left."""
        column = book_move(board) if self.book else None
        if column is not None:
            return Verdict(("book", column), None)
        geo = board.geo
        if not self.exact or geo.size - board.ply > EXACT_EMPTY_LIMIT:
            return Verdict(None, None)
        solver = self._solvers.get(geo)
        if solver is None:
            solver = self._solvers[geo] = Solver(geo.rows, geo.columns, geo.inarow, table_limit=TABLE_LIMIT)
        column, values = solver.choose(board.position, board.mask, board.ply, deadline=deadline)
        if column is not None:
            return Verdict(("exact", column), None)
        return Verdict(None, tuple(c for c in board.legal_moves() if values.get(c) != -1))
