"""The solver proper: :class:`Solver`, scores of positions by null-window bisection over the search
kernel (:mod:`agents.engine.solver.kernel`, or its numba twin :mod:`agents.engine.solver.fast`),
stopping at the opening databases (:mod:`agents.engine.solver.databases`). Scores, algorithm and
sources: :mod:`agents.engine.solver`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agents.engine.board import Geometry, geometry
from agents.engine.lines import wins_function
from agents.engine.solver import choice
from agents.engine.solver.databases import Database, load_database
from agents.engine.solver.kernel import build_search
from agents.engine.solver.position import parse_position

__all__ = ["FAST_TABLE_BITS", "Solution", "Solver"]


FAST_TABLE_BITS = 21
"""The numba kernel's transposition table: about ``2**21`` slots of 8 bytes (16 MB)."""


@dataclass(frozen=True, slots=True)
class Solution:
    """Result of :meth:`Solver.solve`: ``score`` (Pons' convention, side to move) and ``nodes`` searched."""

    score: int
    nodes: int


class Solver:
    """Pons-style solver for one board geometry, with its own transposition table.

    ``Solver(rows=6, columns=7, inarow=4, table_limit=4_000_000)``; the table (a dict, about 100 bytes
    an entry) is cleared when it exceeds ``table_limit`` entries at the start of a solve. Reuse one
    solver across positions of a game: the table stays valid (scores depend only on the position).
    ``nodes`` counts the negamax calls of the last :meth:`solve` (or :meth:`analyse`, :meth:`choose`),
    ``searched`` those of the solver's life. ``databases``: True for the best opening database
    installed (:func:`~agents.engine.solver.databases.load_database`; 6x7 only), False for none, or
    a :class:`~agents.engine.solver.databases.Database`; the search stops at its positions.
    """

    def __init__(
        self,
        rows: int = 6,
        columns: int = 7,
        inarow: int = 4,
        *,
        table_limit: int = 4_000_000,
        databases: bool | Database = True,
        fast: bool = True,
    ) -> None:
        self.geo = geometry(rows, columns, inarow)
        self.table: dict[int, int] = {}
        self.table_limit = table_limit
        self.nodes = 0
        self.searched = 0
        self.database: Database | None = None
        if (rows, columns, inarow) == (6, 7, 4) and databases is not False:  # they hold 6x7 only
            self.database = databases if isinstance(databases, Database) else load_database()
        leaf, leaf_ply = (self.database.score, self.database.ply) if self.database else (None, -1)
        self._negamax, self._control, self._wins_cache = build_search(self.geo, self.table, leaf, leaf_ply)
        self._wins = wins_function(self.geo)
        self._leaf_ply = leaf_ply
        self._fast = _fast_solver(self.geo, self.database) if fast else None
        # The numba kernel searches down to the distance database too (it probes it compiled); the
        # packed win/draw/loss book is probed by the pure-Python kernel only.
        self._fast_from = -1 if self.database is None or self.database.exact else leaf_ply + 1

    def reset(self) -> None:
        """Empty the transposition tables."""
        self.table.clear()
        if self._fast is not None:
            self._fast.reset()

    def score_bounds(self, ply: int) -> tuple[int, int]:
        """The lowest and highest score a position at ``ply`` can have (Pons' convention)."""
        size = self.geo.size
        return -((size - ply) // 2), (size + 1 - ply) // 2

    def solve_bits(
        self,
        position: int,
        mask: int,
        ply: int,
        *,
        weak: bool = False,
        deadline: float = float("inf"),
        max_nodes: int = 1 << 62,
        _window: tuple[int, int] | None = None,
    ) -> int:
        """Score of a position given as bitboards (see :mod:`agents.engine.board`); nodes go to
        ``self.nodes``.

        The game must not be over. ``weak=True`` only finds the sign (-1 loss, 0 draw, 1 win).
        ``deadline`` (``time.perf_counter()`` seconds) and ``max_nodes`` bound the work: past them
        :class:`~agents.engine.solver.kernel.SearchAborted` is raised (the table keeps what was
        proved). Null-window searches by bisection of the score range, probing near 0 first (Pons
        part 8).
        """
        geo = self.geo
        if not weak and _window is None and not self.exact_from(ply):
            raise ValueError(f"exact scores at ply {ply} need the distance database; ask for weak=True")
        if self._fast is not None and ply >= self._fast_from:
            return self._solve_fast(position, mask, ply, weak, _window or (0, 0), deadline, max_nodes)
        if len(self.table) > self.table_limit:
            self.table.clear()
        self._control("reset")
        self._control("limits", (deadline, max_nodes))
        self.nodes = 0
        size = geo.size
        possible = (mask + geo.bottom) & geo.board
        if self._wins(position) & possible:
            return 1 if weak else (size + 1 - ply) // 2
        low, high = self.score_bounds(ply)
        if weak:
            low, high = max(low, -1), min(high, 1)
        if _window is not None:
            low, high = _window
        opp_wins = self._wins(position ^ mask)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            while low < high:
                med = low + (high - low) // 2
                if med <= 0 and _trunc_half(low) < med:
                    med = _trunc_half(low)
                elif med >= 0 and _trunc_half(high) > med:
                    med = _trunc_half(high)
                r = self._negamax(position, mask, ply, med, med + 1, opp_wins)
                if r <= med:
                    high = r
                else:
                    low = r
        finally:
            self.nodes = self._control("nodes")
            self.searched += self.nodes
            if gc_was_enabled:
                gc.enable()
        return ((low > 0) - (low < 0)) if weak else low

    def at_least(
        self,
        position: int,
        mask: int,
        ply: int,
        value: int,
        *,
        deadline: float = float("inf"),
        max_nodes: int = 1 << 62,
    ) -> bool:
        """True when the score of the position (bitboards, game on) is ``>= value``: one null-window
        search ``(value - 1, value)``, cheaper than a weak solve (which may need two). Limits and
        errors as :meth:`solve_bits`; ``ValueError`` for a ``value`` other than 0 or 1 where only the
        signs of scores are known (:meth:`exact_from`)."""
        if value not in (0, 1) and not self.exact_from(ply):
            raise ValueError(f"scores at ply {ply} are known only as win, draw or loss")
        if self._wins(position) & (mask + self.geo.bottom) & self.geo.board:
            return (self.geo.size + 1 - ply) // 2 >= value
        score = self.solve_bits(
            position, mask, ply, deadline=deadline, max_nodes=max_nodes, _window=(value - 1, value)
        )
        return score >= value

    def _solve_fast(
        self,
        position: int,
        mask: int,
        ply: int,
        weak: bool,
        window: tuple[int, int],
        deadline: float,
        max_nodes: int,
    ) -> int:
        """:meth:`solve_bits` by the numba kernel, which keeps the deadline by the clock
        (:class:`~agents.engine.solver.fast.FastSolver`)."""
        assert self._fast is not None
        try:
            return int(self._fast.solve_window(position, mask, ply, weak, *window, max_nodes, deadline))
        finally:
            self.nodes = self._fast.nodes
            self.searched += self.nodes

    def exact_from(self, ply: int) -> bool:
        """Whether :meth:`solve_bits` can give exact scores (not only their signs) at ``ply``: always,
        but before the database's ply when the database holds only wins, draws and losses."""
        return self.database is None or self.database.exact or ply > self.database.ply

    # choose and refine keep the signatures of the functions of choice.py that they hand over to: the
    # methods are what agents.kit.solved calls (and tests fake), the functions hold the steps.
    def choose(
        self,
        position: int,
        mask: int,
        ply: int,
        *,
        deadline: float = float("inf"),
        refine_deadline: float | None = None,
    ) -> tuple[int | None, dict[int, int]]:
        """Perfect choice of a move under a deadline: ``(column or None, proven weak values of columns)``;
        see :func:`agents.engine.solver.choice.choose`."""
        return choice.choose(self, position, mask, ply, deadline=deadline, refine_deadline=refine_deadline)

    def refine(self, position: int, mask: int, ply: int, *, deadline: float = float("inf")) -> int | None:
        """The column of the best score, or None; see :func:`agents.engine.solver.choice.refine`."""
        return choice.refine(self, position, mask, ply, deadline=deadline)

    def solve(self, moves: str | Iterable[int], *, weak: bool = False) -> Solution:
        """Solve the position reached by ``moves`` (Pons' notation string, or 0-based columns).

        Returns the score (side to move) and the nodes searched. Raises the errors of
        :func:`parse_position` (all ``ValueError``).
        """
        board = parse_position(moves, self.geo)
        score = self.solve_bits(board.position, board.mask, board.ply, weak=weak)
        return Solution(score, self.nodes)

    def analyse_bits(self, position: int, mask: int, ply: int, *, weak: bool = False) -> list[int | None]:
        """Score of every column (None for a full one) from the side to move's point of view.

        The game must not be over. A column that wins at once scores ``(size + 1 - ply) // 2``; other
        columns score minus the child's solution. ``self.nodes`` holds the total nodes.
        """
        geo = self.geo
        out: list[int | None] = []
        total = 0
        win_now = self._wins(position)
        for c in range(geo.columns):
            if mask & geo.top_cells[c]:
                out.append(None)
                continue
            move = (mask + geo.bottom_cells[c]) & geo.column_masks[c]
            if win_now & move:
                out.append((geo.size + 1 - ply) // 2)
                continue
            if ply + 1 == geo.size:
                out.append(0)
                continue
            child = self.solve_bits(position ^ mask, mask | move, ply + 1, weak=weak)
            total += self.nodes
            out.append(-child)
        self.nodes = total
        return out

    def analyse(self, moves: str | Iterable[int], *, weak: bool = False) -> list[int | None]:
        """Per-column scores of the position reached by ``moves`` (see :meth:`analyse_bits`)."""
        board = parse_position(moves, self.geo)
        return self.analyse_bits(board.position, board.mask, board.ply, weak=weak)


def _fast_solver(geo: Geometry, database: Database | None) -> Any:
    # Any is FastSolver | None: naming it unguarded, a build would need numba.
    """A :class:`~agents.engine.solver.fast.FastSolver` with :data:`FAST_TABLE_BITS`, probing
    ``database`` when it is the distance database (exact), or None where
    the compiled kernel is not available (:func:`agents.engine.solver.warm_up`, which compiles it
    once a process: numba missing or compiling failed) or the geometry is not one it plays."""
    from agents.engine.solver import warm_up

    if not warm_up():
        return None
    try:
        from agents.engine.solver.fast import FastSolver
    except ImportError:  # pragma: no cover - warm_up imported it
        return None
    try:
        exact = database if database is not None and database.exact else None
        return FastSolver(geo.rows, geo.columns, geo.inarow, table_bits=FAST_TABLE_BITS, database=exact)
    except ValueError:
        return None


def _trunc_half(x: int) -> int:
    """``x / 2`` truncated toward zero (C semantics, as in Pons' bisection)."""
    return -((-x) // 2) if x < 0 else x // 2
