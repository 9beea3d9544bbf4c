"""The alpha-beta game-tree search of the project: negamax with a pluggable evaluation.

Negamax (Knuth & Moore, "An analysis of alpha-beta pruning", Artificial Intelligence 6, 1975) with
fail-soft alpha-beta pruning on the bitboards of :mod:`agents.engine.board`, a transposition table
(a ``dict``: position key -> remaining depth, bound kind, value, best column; its best column is
searched first) and iterative deepening under a deadline. Every searching agent is a configuration
of :class:`Search`:

* ``minimax`` -- the course's evaluation from the root player's side, course rules (no tactics),
  the value of every root column with a full window (:meth:`Search.values`), fixed depth;
* ``negamax`` -- a threat-counting evaluation, tactics, iterative deepening to a deadline;
* ``network:search=alphabeta`` -- the network's value, batched one ply above the horizon, moves ordered by
  its policy.

Values are always from the point of view of the **side to move**. With tactics, a game won with the
``n``-th stone of the board scores ``WIN - n`` for the winner (so faster wins score higher) and
``-(WIN - n)`` for the loser, a full board 0, and static values lie in between.

The evaluation is a callable ``evaluate(position, mask, ply) -> value`` (:class:`Evaluate`):
``position`` holds the stones of the side to move, ``mask`` all stones, ``ply`` the number of stones
(:mod:`agents.engine.board`); the value is for the side to move, in the evaluation's own units, and must lie
strictly within ``±DECIDED`` when tactics are on. Optional hooks: ``batch`` (:class:`EvaluateBatch`)
values many positions in one call -- then a node one ply above the horizon values all its children
in one call, without looking at their own tactics; ``order`` (:class:`Order`) sorts a node's moves
(default: centre first; the transposition table's best column always goes first).

Tactics (``tactics=True``; Pons, http://blog.gamesolver.org/solving-connect-four/09-anticipate-losing-
moves/): a node whose side to move faces two threats, or can only play under a threat, is lost at
the opponent's next stone; a single threat must be blocked; moves under a threat are not searched.
The search never enters a position where the side to move can win at once. Without tactics (the
course's rules) a node ends the search when the last mover has a line or the board is full, and
the evaluation values it like any other leaf.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.engine.board import Board, Geometry
from agents.engine.lines import has_line, non_losing, wins_function

__all__ = ["DECIDED", "WIN", "Evaluate", "EvaluateBatch", "Order", "Search", "SearchResult"]

WIN = 1_000_000
"""A game won with the ``n``-th stone scores ``WIN - n`` for the winner, ``-(WIN - n)`` for the loser."""

DECIDED = WIN - 10_000
"""Any value beyond ``±DECIDED`` is a proven win or loss; static values must lie strictly inside."""

_NEVER = 1 << 62  # a node count no search reaches: limits are not checked
_EXACT, _LOWER, _UPPER = 0, 1, 2  # kinds of transposition-table values


class Evaluate(Protocol):
    """Static value of a position (bitboards, game on) for the side to move, in the evaluation's units."""

    def __call__(self, position: int, mask: int, ply: int, /) -> float: ...


class EvaluateBatch(Protocol):
    """Static values of many positions, all at ``ply``, in the order given (one value per position)."""

    def __call__(self, positions: list[int], masks: list[int], ply: int, /) -> Sequence[float]: ...


class Order(Protocol):
    """The playable ``columns`` (0-based, centre first) of a position, best first."""

    def __call__(self, position: int, mask: int, ply: int, columns: list[int], /) -> list[int]: ...


_Count = Callable[[], int]


class _Timeout(Exception):
    """The search passed its deadline."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Outcome of :meth:`Search.best`: ``column`` (0-based), ``score`` (side to move; 0 for a move played
    without search as the only candidate), ``depth`` in plies of the deepest completed iteration,
    ``nodes`` searched and ``seconds`` spent (wall clock)."""

    column: int
    score: float
    depth: int
    nodes: int
    seconds: float


class Search:
    """Alpha-beta negamax on one board geometry with ``evaluate`` at the horizon (see the module docstring).

    ``batch``, ``order``: the optional hooks; ``tactics``: the rules of the module docstring (else the
    course's); ``table``: use a transposition table (cleared at each search); ``check_every``: nodes
    between two reads of the clock (1 when nodes are slow, as a network's are). A ``Search`` may be
    reused for many positions of its geometry, one search at a time.
    """

    def __init__(
        self,
        geo: Geometry,
        evaluate: Evaluate,
        *,
        batch: EvaluateBatch | None = None,
        order: Order | None = None,
        tactics: bool = True,
        table: bool = True,
        check_every: int = 1024,
    ) -> None:
        if check_every < 1:
            raise ValueError(f"check_every must be >= 1, got {check_every}")
        self.geo = geo
        self.tactics = tactics
        self.order = order
        self.batch = batch
        self._negamax, self._horizon, self._begin, self._limit, self._nodes = _kernel(
            geo, evaluate, batch, order, tactics, table, check_every
        )

    def best(
        self,
        board: Board,
        *,
        depth: int | None = None,
        deadline: float | None = None,
        allowed: Collection[int] | None = None,
    ) -> SearchResult:
        """The best column of ``board`` (its geometry, game on, a legal move) for the side to move.

        Without ``deadline``: one search ``depth`` plies deep (``depth`` required). With ``deadline``
        (a ``time.perf_counter()`` time): iterative deepening from 1 ply, at most ``depth`` (None: to
        the end of the game), stopping at the deadline or a proven result; the deepest completed
        iteration is played and depth 1 always completes. Root moves are tried in ``order`` (centre
        first by default), the previous iteration's best first. With tactics, an immediate win, a
        forced block or the only move not lost at once is played without search; ``allowed``
        restricts the other root moves (ignored when it leaves none), and a single one left is played
        without search. Raises ``ValueError`` for a finished game, a board of another geometry, a
        ``depth`` below 1, or no ``depth`` without a deadline.
        """
        start = time.perf_counter()
        if deadline is None and depth is None:
            raise ValueError("a search without a deadline needs a depth")
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self._check(board)
        ply = board.ply
        self._begin()
        self._limit(math.inf)
        moves = self._root_order(board)
        if self.tactics:
            safe = board.columns(board.non_losing_moves())
            shortcut = _tactics(board, moves, safe)
            if shortcut is not None:
                return SearchResult(*shortcut, 1, 1, time.perf_counter() - start)
            moves = [c for c in moves if c in safe]
            if allowed is not None and any(c in allowed for c in moves):
                moves = [c for c in moves if c in allowed]
            if len(moves) == 1:
                return SearchResult(moves[0], 0, 1, 1, time.perf_counter() - start)
        limit = self.geo.size - ply if depth is None else min(depth, self.geo.size - ply)
        column, score, reached = self._iterate(board, limit if deadline is None else 1, moves)
        if deadline is not None:
            self._limit(deadline)
            for d in range(2, limit + 1):
                if abs(score) > DECIDED or time.perf_counter() > deadline:
                    break
                moves.remove(column)
                moves.insert(0, column)
                try:
                    column, score, reached = self._iterate(board, d, moves)
                except _Timeout:
                    break
        return SearchResult(column, score, reached, self._nodes(), time.perf_counter() - start)

    def values(self, board: Board, depth: int) -> dict[int, float]:
        """The value of every legal column of ``board`` (game on) for the side to move, in increasing
        column order: each searched ``depth`` plies deep (the move included) with a full window, so
        every value is exact (the course's ``score_move``). With tactics, a move that wins at once or
        lets the opponent win at once is scored exactly. Raises ``ValueError`` for ``depth < 1``."""
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self._check(board)
        self._begin()
        self._limit(math.inf)
        opponent, mask, ply = board.opponent, board.mask, board.ply
        wins = wins_function(self.geo)
        out: dict[int, float] = {}
        for column in board.legal_moves():
            child = mask | board.move_cell(column)
            if self.tactics and board.is_winning_move(column):
                out[column] = WIN - ply - 1
            elif self.tactics and wins(opponent) & (child + self.geo.bottom) & self.geo.board:
                out[column] = -(WIN - ply - 2)
            else:
                out[column] = -self._negamax(opponent, child, ply + 1, depth - 1, -math.inf, math.inf)
        return out

    def _check(self, board: Board) -> None:
        if board.geo != self.geo:
            raise ValueError(f"a search for {self.geo.rows}x{self.geo.columns} got {board!r}")
        if board.outcome() is not None:
            raise ValueError("the game is over")

    def _root_order(self, board: Board) -> list[int]:
        moves = [c for c in self.geo.centre_order if board.can_play(c)]
        if self.order is not None and len(moves) > 1:
            moves = self.order(board.position, board.mask, board.ply, moves)
        return moves

    def _iterate(self, board: Board, depth: int, moves: list[int]) -> tuple[int, float, int]:
        """``(column, score, depth)`` of one alpha-beta search of the root ``moves``, first best kept."""
        opponent, mask, ply = board.opponent, board.mask, board.ply
        if depth == 1 and self.batch is not None:
            scores = self._horizon(board.position, mask, ply, moves)
        else:
            scores, alpha = [], -math.inf
            for column in moves:
                score = -self._negamax(
                    opponent, mask | board.move_cell(column), ply + 1, depth - 1, -math.inf, -alpha
                )
                scores.append(score)
                alpha = max(alpha, score)
        best = max(scores)
        return moves[scores.index(best)], best, depth


def _tactics(board: Board, moves: list[int], safe: list[int]) -> tuple[int, float] | None:
    """``(column, score)`` when the root needs no search: a win at once (the first in ``moves``), the
    only move of ``safe`` (the moves that do not lose at once), or -- when every move loses -- the
    first block, else the first move. None otherwise."""
    ply = board.ply
    wins = board.winning_moves()
    if wins:
        return next(c for c in moves if board.move_cell(c) & wins), WIN - ply - 1
    if len(safe) == 1:
        return safe[0], 0
    if not safe:
        blocks = board.columns(board.threats() & board.possible())
        return next((c for c in moves if c in blocks), moves[0]), -(WIN - ply - 2)
    return None


def _kernel(
    geo: Geometry,
    evaluate: Evaluate,
    batch: EvaluateBatch | None,
    order: Order | None,
    tactics: bool,
    use_table: bool,
    check_every: int,
) -> tuple[
    Callable[..., float],
    Callable[..., list[float]],
    Callable[[], None],
    Callable[[float], None],
    Callable[[], int],
]:
    """The search closures of one configuration: ``(negamax, horizon, begin, limit, nodes)``.

    ``negamax(position, mask, ply, depth, alpha, beta)`` is the fail-soft value of a position (side to
    move; with tactics it must not be able to win at once); ``horizon(position, mask, ply, columns)``
    the values of the given moves from the batch evaluation; ``begin()`` clears the table and the node
    count, ``limit(deadline)`` sets the deadline (``math.inf``: none; past it ``negamax`` raises
    :class:`_Timeout`) and ``nodes()`` counts the nodes since ``begin``.

    Long on purpose: one closure whose constants are locals or cells, and ``negamax`` one function
    with its tactics and table inlined, since every call or attribute lookup inside it is paid at
    every node. The project's other functions stay under about 60 lines; this kernel, the solver's
    (:mod:`agents.engine.solver.kernel`) and its numba twin (:mod:`agents.engine.solver.fast`) are
    the exceptions.
    """
    size = geo.size
    board_mask = geo.board
    bottom = geo.bottom
    bottom_cells = geo.bottom_cells
    column_masks = geo.column_masks
    centre = geo.centre_order
    wins = wins_function(geo)
    losses = tuple(-(WIN - p - 2) for p in range(size + 1))  # lost at the opponent's next stone
    table: dict[int, tuple[int, int, float, int]] = {}
    get = table.get
    nodes = 0
    check_at = _NEVER
    deadline = math.inf
    perf = time.perf_counter

    def begin() -> None:
        nonlocal nodes
        table.clear()
        nodes = 0

    def limit(new_deadline: float) -> None:
        nonlocal check_at, deadline
        deadline = new_deadline
        check_at = check_every if deadline != math.inf else _NEVER

    def check() -> None:
        nonlocal check_at
        if perf() > deadline:
            raise _Timeout
        check_at = nodes + check_every

    def horizon(cur: int, msk: int, p: int, moves: list[int]) -> list[float]:
        assert batch is not None, "horizon() runs only with a batch evaluation"
        kids = [msk | ((msk + bottom_cells[c]) & column_masks[c]) for c in moves]
        return [-v for v in batch([cur ^ msk] * len(kids), kids, p + 1)]

    def negamax(cur: int, msk: int, p: int, depth: int, alpha: float, beta: float) -> float:
        nonlocal nodes
        nodes += 1
        if nodes >= check_at:
            check()
        if tactics:
            other = cur ^ msk
            threats = wins(other) & ~msk & board_mask
            poss = non_losing((msk + bottom) & board_mask, threats)
            if not poss:
                return losses[p]
            if p >= size - 1:
                return 0
            if depth <= 0:
                return evaluate(cur, msk, p)
        else:
            if depth <= 0 or p >= size or has_line(cur ^ msk, geo):
                return evaluate(cur, msk, p)
            other = cur ^ msk
            poss = (msk + bottom) & board_mask
        first = -1
        if use_table:
            alpha0 = alpha
            key = cur + msk
            entry = get(key)
            if entry is not None:
                e_depth, kind, value, first = entry
                if e_depth >= depth:
                    if kind == _EXACT:
                        return value
                    if kind == _LOWER:
                        if value > alpha:
                            alpha = value
                    elif value < beta:
                        beta = value
                    if alpha >= beta:
                        return value
        moves = [c for c in centre if poss & column_masks[c]]
        if depth == 1 and batch is not None:
            scores = horizon(cur, msk, p, moves)
            best = max(scores)
            best_col = moves[scores.index(best)]
        else:
            if order is not None and len(moves) > 1:
                moves = order(cur, msk, p, moves)
            if first >= 0 and moves[0] != first and first in moves:
                moves.remove(first)
                moves.insert(0, first)
            best = -math.inf
            best_col = moves[0]
            for c in moves:
                score = -negamax(other, msk | (poss & column_masks[c]), p + 1, depth - 1, -beta, -alpha)
                if score > best:
                    best = score
                    best_col = c
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            break
        if use_table:
            kind = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
            table[key] = (depth, kind, best, best_col)
        return best

    return negamax, horizon, begin, limit, lambda: nodes
