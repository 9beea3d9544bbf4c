"""A strong Connect-Four solver in pure Python, after Pascal Pons' final solver.

Scores are always from the point of view of the side to move, in Pons' convention
(http://blog.gamesolver.org/solving-connect-four/02-test-protocol/): 0 for a draw; when the side to
move wins, ``(size + 2) // 2 - s`` where ``s`` is the number of stones it will have played when it
wins (22 - s on 6x7); the negative of the winner's score when it loses.

Algorithm (Pons' gamesolver.org parts 4-12): alpha-beta negamax on bitboards (part 6), centre-first
move ordering refined by the number of winning cells a move creates (part 10), pruning of moves that
lose at once (part 9), a transposition table holding upper and lower bounds (parts 7, 11, 12), and
null-window searches driven by bisection of the score range ("iterative deepening", part 8).

The search kernel and what makes it fast in pure Python: :mod:`agents.engine.solver.kernel`.

Python API: :func:`solve`, :func:`analyse`, :class:`Solver`. The command line is ``connectx solve``
(:mod:`connectx.solve`), which writes ``moves score`` lines like Pons' ``c4solver``.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agents.engine.board import (
    Board,
    ColumnFullError,
    GameOverError,
    Geometry,
    NotAColumnError,
    geometry,
)
from agents.engine.lines import has_line, wins_function
from agents.engine.solver.databases import Database, load_database
from agents.engine.solver.kernel import SearchAborted, build_search

__all__ = [
    "FAST_NODES_PER_SECOND",
    "FAST_TABLE_BITS",
    "SearchAborted",
    "Solution",
    "Solver",
    "analyse",
    "move_order",
    "parse_position",
    "solve",
]


FAST_NODES_PER_SECOND = 3_000_000
"""Nodes a second that a deadline allows the numba kernel: under half of the 8 M a second it searches
on an idle core of the development machine, so that a busy machine still keeps the deadline."""

FAST_TABLE_BITS = 21
"""The numba kernel's transposition table: about ``2**21`` slots of 8 bytes (16 MB)."""


@dataclass(frozen=True, slots=True)
class Solution:
    """Result of :meth:`Solver.solve`: ``score`` (Pons' convention, side to move) and ``nodes`` searched."""

    score: int
    nodes: int


def move_order(position: int, mask: int, geo: Geometry) -> list[int]:
    """Playable columns in the solver's order: most winning cells created first, ties centre first
    (Pons part 10). ``position``/``mask`` as in :mod:`agents.engine.board`."""
    wins = wins_function(geo)
    empty = geo.board ^ mask
    scored = []
    for rank, c in enumerate(geo.centre_order):
        if not mask & geo.top_cells[c]:
            move = (mask + geo.bottom_cells[c]) & geo.column_masks[c]
            scored.append((-(wins(position | move) & empty & ~move).bit_count(), rank, c))
    scored.sort()
    return [c for _, _, c in scored]


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
        self._fast = _fast_solver(self.geo) if fast else None

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
        ``deadline`` (``time.perf_counter()`` seconds) and ``max_nodes`` bound the work: past
        them :class:`SearchAborted` is raised (the table keeps what was proved). Null-window searches
        by bisection of the score range, probing near 0 first (Pons part 8).
        """
        geo = self.geo
        if not weak and _window is None and not self.exact_from(ply):
            raise ValueError(f"exact scores at ply {ply} need the distance database; ask for weak=True")
        if self._fast is not None and ply > self._leaf_ply:
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
        """:meth:`solve_bits` by the numba kernel; the deadline becomes a node limit at
        :data:`FAST_NODES_PER_SECOND` (the compiled search cannot read the clock)."""
        assert self._fast is not None
        if deadline != float("inf"):
            seconds = max(0.0, deadline - time.perf_counter())
            max_nodes = min(max_nodes, int(seconds * FAST_NODES_PER_SECOND))
        try:
            return int(self._fast.solve_window(position, mask, ply, weak, *window, max_nodes))
        finally:
            self.nodes = self._fast.nodes
            self.searched += self.nodes

    def exact_from(self, ply: int) -> bool:
        """Whether :meth:`solve_bits` can give exact scores (not only their signs) at ``ply``: always,
        but before the database's ply when the database holds only wins, draws and losses."""
        return self.database is None or self.database.exact or ply > self.database.ply

    def choose(
        self,
        position: int,
        mask: int,
        ply: int,
        *,
        deadline: float = float("inf"),
        refine_deadline: float | None = None,
    ) -> tuple[int | None, dict[int, int]]:
        """Perfect choice of a move under a deadline: ``(column or None, proven weak values of columns)``.

        ``position``/``mask`` as in :mod:`agents.engine.board`, game on, no move winning at once;
        deadlines in ``time.perf_counter()`` seconds. Pass 1 looks, in :func:`move_order`, for a child
        whose score is below 0 (a win for the side to move), one null-window search each; pass 2 for
        a child at most 0 (a draw). Children failing pass 2 are proven lost (value -1). The column
        found keeps the position's value (perfect play in the weak sense). A position of the database
        (:attr:`database`) has a known value, and only the pass for that value runs.

        Then, until ``refine_deadline`` (default ``deadline``), the choice is refined to the best
        score (:meth:`refine`): the fastest win, or in a lost position the slowest loss. When the
        refinement runs out of time a win or draw keeps the column of the passes, and a lost position
        returns ``None``. The column is also ``None`` when ``deadline`` came first: the caller's
        heuristic then chooses among the columns not proven lost.
        """
        geo = self.geo
        values: dict[int, int] = {}
        order = move_order(position, mask, geo)
        other = position ^ mask
        children = {}
        for column in order:
            move = (mask + geo.bottom_cells[column]) & geo.column_masks[column]
            children[column] = mask | move
            if ply + 1 == geo.size:
                values[column] = 0
        searched = self.searched
        found = None  # a column keeping the value
        known = self.database.score(position, mask) if self.database and ply == self.database.ply else None
        try:
            for column in order if known is None or known > 0 else ():  # pass 1: a win?
                if column not in values and not self.at_least(
                    other, children[column], ply + 1, 0, deadline=deadline
                ):
                    values[column] = 1
                    found = column
                    break
            else:
                for column in order if known is None or known == 0 else ():  # pass 2: a draw?
                    if column not in values:
                        drawn = not self.at_least(other, children[column], ply + 1, 1, deadline=deadline)
                        values[column] = 0 if drawn else -1
                    if values[column] == 0:
                        found = column
                        break
        except SearchAborted:
            self.nodes = self.searched - searched
            return None, values
        if known is not None and known < 0:
            values.update((column, -1) for column in order)
        best = None
        if found is None or values[found] != 0:  # every draw is as good
            best = self.refine(position, mask, ply, deadline=refine_deadline or deadline)
        self.nodes = self.searched - searched
        return (found if best is None else best), values

    def refine(self, position: int, mask: int, ply: int, *, deadline: float = float("inf")) -> int | None:
        """The column of the best score: the fastest win, the slowest loss. ``None`` when the deadline
        comes first or exact scores are not available (:meth:`exact_from`). Bitboards as in
        :mod:`agents.engine.board`, game on, no move winning at once.

        One bisection gives the position's score ``s``; then, in :func:`move_order`, the first child
        whose score is at most ``-s`` (so exactly ``-s``) is the move: a null-window search each,
        mostly answered by the transposition table that the bisection filled.
        """
        if not self.exact_from(ply):
            return None
        geo = self.geo
        other = position ^ mask
        try:
            score = self.solve_bits(position, mask, ply, deadline=deadline)
            for column in move_order(position, mask, geo):
                child = mask | ((mask + geo.bottom_cells[column]) & geo.column_masks[column])
                if ply + 1 == geo.size:
                    return column  # the last cell: a draw
                if not self.at_least(other, child, ply + 1, -score + 1, deadline=deadline):
                    return column
        except SearchAborted:
            return None
        return None

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


def _fast_solver(geo: Geometry) -> Any:  # FastSolver | None: naming it unguarded, a build would need numba
    """A :class:`~agents.engine.solver.fast.FastSolver` with :data:`FAST_TABLE_BITS`, or None where
    numba does not import (a single-file submission) or the geometry is not one it plays."""
    try:
        from agents.engine.solver.fast import FastSolver
    except ImportError:
        return None
    try:
        return FastSolver(geo.rows, geo.columns, geo.inarow, table_bits=FAST_TABLE_BITS)
    except ValueError:
        return None


def _trunc_half(x: int) -> int:
    """``x / 2`` truncated toward zero (C semantics, as in Pons' bisection)."""
    return -((-x) // 2) if x < 0 else x // 2


def parse_position(moves: str | Iterable[int], geo: Geometry) -> Board:
    """The board after ``moves`` on ``geo``; the game must still be on.

    Raises :class:`agents.engine.board.NotAColumnError` (bad digit),
    :class:`agents.engine.board.ColumnFullError`, :class:`agents.engine.board.GameOverError` (a move
    after a line, or the position is already won or the board full), all subclasses of ``ValueError``.
    """
    if isinstance(moves, str):
        board = Board.from_moves("", rows=geo.rows, columns=geo.columns, inarow=geo.inarow)
        for i, char in enumerate(moves, 1):
            if not ("1" <= char <= "9") or int(char) > geo.columns:
                raise NotAColumnError(f"move {i} {char!r} is not a column digit 1-{geo.columns}")
            try:
                board.push(int(char) - 1)
            except ColumnFullError:
                raise ColumnFullError(f"move {i}: column {char} is full") from None
            except GameOverError:
                raise GameOverError(f"move {i} {char!r} comes after the game was won") from None
    else:
        board = Board.from_moves(moves, rows=geo.rows, columns=geo.columns, inarow=geo.inarow)
    if board.ply and has_line(board.opponent, geo):
        raise GameOverError("the position is already won")
    if board.is_full():
        raise GameOverError("the board is full")
    return board


_default_solvers: dict[tuple[int, int, int], Solver] = {}


def _default(rows: int, columns: int, inarow: int) -> Solver:
    key = (rows, columns, inarow)
    if key not in _default_solvers:
        _default_solvers[key] = Solver(rows, columns, inarow)
    return _default_solvers[key]


def solve(
    moves: str | Iterable[int], *, weak: bool = False, rows: int = 6, columns: int = 7, inarow: int = 4
) -> Solution:
    """Score and node count of a position (fresh transposition table). See :meth:`Solver.solve`.

    >>> solve("2252576253462244111563365343671351441")
    Solution(score=-1, nodes=4)
    """
    solver = _default(rows, columns, inarow)
    solver.reset()
    return solver.solve(moves, weak=weak)


def analyse(
    moves: str | Iterable[int], *, weak: bool = False, rows: int = 6, columns: int = 7, inarow: int = 4
) -> list[int | None]:
    """Per-column scores of a position (None for a full column). See :meth:`Solver.analyse`.

    >>> analyse("2252576253462244111563365343671351441")
    [None, None, None, None, None, -1, -2]

    Raises the errors of :func:`parse_position`.
    """
    return _default(rows, columns, inarow).analyse(moves, weak=weak)
