"""Negamax agent: opening book, exact solving, then alpha-beta negamax with iterative deepening.

Scores are always from the point of view of the side to move.

Each move (:func:`make_agent`), with the garbage collector off:

1. the only legal move, or a move that wins at once;
2. the opening book (:mod:`agents.book`; 6x7, four in a row) when it knows the position;
3. exact solving (:mod:`agents.solver`, Pons' algorithm) when at most 36 cells are empty: a child
   that keeps a win, else a draw, found by null-window searches under a deadline; the solver's
   transposition table lives as long as the agent, so once a position is solved the following
   moves are mostly table hits;
4. otherwise, or when the deadline comes first, the heuristic search below over the moves not
   proven lost.

Time (:func:`move_budget`): ``actTimeout`` minus a margin, and for exact solving a share of the
overage bank (30 % of what exceeds a 3 s reserve in the first two thirds of the game, 10 % later);
a failed exact solve still leaves the heuristic half of the free time. The bank is never overdrawn.

Heuristic search (any ConnectX configuration):

* immediate win, then immediate block, are checked before any search;
* moves that hand the opponent an immediate win (playing under one of its winning cells) are pruned,
  and a single forced block is played at once (Pons, http://blog.gamesolver.org/solving-connect-four/09-
  anticipate-losing-moves/);
* alpha-beta negamax over a transposition table (dict: key -> depth, bound, value, best column),
  centre-first move ordering with the table's best move first;
* iterative deepening stops inside the time it is given (``config.actTimeout`` minus a safety
  margin); the result of the deepest completed iteration is played;
* at the horizon a heuristic counts the empty winning cells ("threats") of each side, twice for
  threats on the rows that favour their owner (odd rows for the first player, even rows for the
  second: Allis' parity rule), and the stones near the centre; decided positions score
  ``±(WIN - ply)`` so that faster wins are preferred.

``make_agent(**params)`` builds the Kaggle callable; ``agent = make_agent()``.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from agents.adapter import Agent, Clock, board_from_obs
from agents.board import Geometry
from agents.book import load_book
from agents.lines import has_line, wins_function
from agents.solver import SearchAborted, Solver, move_order

__all__ = ["SearchResult", "WIN", "agent", "make_agent", "search"]

WIN = 1_000_000
"""Score of a position won at ply 0; a win at ply ``p`` scores ``WIN - p`` (loss: the negative)."""

_DECIDED = WIN - 10_000  # any |score| above this is a proven win/loss


class _Timeout(Exception):
    """Raised inside the search when the deadline has passed."""


class SearchResult:
    """Outcome of :func:`search`: ``column`` (0-based), ``score`` (side to move), ``depth`` reached
    (plies of the deepest completed iteration), ``nodes`` searched and ``seconds`` spent."""

    __slots__ = ("column", "score", "depth", "nodes", "seconds")

    def __init__(self, column: int, score: int, depth: int, nodes: int, seconds: float) -> None:
        self.column = column
        self.score = score
        self.depth = depth
        self.nodes = nodes
        self.seconds = seconds

    def __repr__(self) -> str:
        return (
            f"SearchResult(column={self.column}, score={self.score}, depth={self.depth}, "
            f"nodes={self.nodes}, seconds={self.seconds:.3f})"
        )


def _centre_weights(geo: Geometry) -> list[tuple[int, int]]:
    """(mask, weight) pairs: stones in columns near the centre are worth more (weight 0 at the edges)."""
    centre = (geo.columns - 1) / 2
    out = []
    for c in range(geo.columns):
        w = int(round((geo.columns / 2) - abs(c - centre)))
        if w > 0:
            out.append((geo.column_masks[c], w))
    return out


def search(
    position: int,
    mask: int,
    ply: int,
    geo: Geometry,
    *,
    seconds: float,
    max_depth: int | None = None,
    allowed: Collection[int] | None = None,
) -> SearchResult:
    """Iterative-deepening alpha-beta negamax from a position given as bitboards.

    ``position``: stones of the side to move; ``mask``: all stones; ``ply``: stones played (see
    :mod:`agents.board`). The position must not be won already and must have a legal move
    (``ValueError`` otherwise). ``seconds`` is the wall-clock budget; the search returns the best
    column of the deepest completed iteration (at least depth 1 is always completed, whatever the
    budget). ``max_depth`` caps the iterations (plies). ``allowed`` restricts the root moves (e.g. to
    columns not proven lost by the solver); it is ignored when it leaves nothing to play.
    """
    start = time.perf_counter()
    deadline = start + seconds
    bottom_cells = geo.bottom_cells
    column_masks = geo.column_masks
    board_mask = geo.board
    bottom = geo.bottom
    size = geo.size
    wins = wins_function(geo)
    order = geo.centre_order
    weights = _centre_weights(geo)
    odd_rows = sum(geo.bottom << r for r in range(0, geo.rows, 2)) & board_mask  # 1st, 3rd, ... from bottom
    even_rows = board_mask ^ odd_rows
    perf = time.perf_counter

    possible = (mask + bottom) & board_mask
    if not possible:
        raise ValueError("no legal move: the board is full")
    opp = position ^ mask
    if ply and has_line(opp, geo):
        raise ValueError("the position is already won")

    # Root shortcuts: win now, else block, else prune moves that lose at once.
    mine = wins(position) & possible
    if mine:
        col = _column_of(mine & -mine, geo)
        return SearchResult(col, WIN - ply - 1, 1, 1, perf() - start)
    threats = wins(opp) & ~mask & board_mask
    forced = possible & threats
    candidates = [c for c in order if possible & column_masks[c]]
    if forced:
        blocks = [c for c in candidates if forced & column_masks[c]]
        if len(blocks) > 1:  # lost anyway: block one threat
            return SearchResult(blocks[0], -(WIN - ply - 2), 1, 1, perf() - start)
        return SearchResult(blocks[0], 0, 1, 1, perf() - start)  # the only move that does not lose
    safe = [c for c in candidates if not (possible & column_masks[c]) & (threats >> 1)]
    if not safe:  # every move lets the opponent win: play the first legal one
        return SearchResult(candidates[0], -(WIN - ply - 2), 1, 1, perf() - start)
    if allowed is not None and any(c in allowed for c in safe):
        safe = [c for c in safe if c in allowed]
    if len(safe) == 1:
        return SearchResult(safe[0], 0, 1, 1, perf() - start)

    table: dict[int, tuple[int, int, int, int]] = {}  # key -> (depth, flag, value, best column)
    nodes = 0
    EXACT, LOWER, UPPER = 0, 1, 2

    def evaluate(cur: int, msk: int, p: int) -> int:
        empty = board_mask & ~msk
        other = cur ^ msk
        mine = wins(cur) & empty
        theirs = wins(other) & empty
        # Threat parity (Allis): the first player profits from threats on odd rows (1st, 3rd, ...
        # counted from the bottom), the second player from threats on even rows.
        my_rows, their_rows = (odd_rows, even_rows) if p % 2 == 0 else (even_rows, odd_rows)
        score = 4 * (mine.bit_count() - theirs.bit_count())
        score += 4 * ((mine & my_rows).bit_count() - (theirs & their_rows).bit_count())
        for cmask, w in weights:
            score += w * ((cur & cmask).bit_count() - (other & cmask).bit_count())
        return score

    def negamax(cur: int, msk: int, p: int, depth: int, alpha: int, beta: int) -> int:
        # Precondition: the side to move cannot win at once (the caller checked) and the game is on.
        nonlocal nodes
        nodes += 1
        if not nodes & 1023 and perf() > deadline:
            raise _Timeout
        if p >= size:
            return 0
        poss = (msk + bottom) & board_mask
        other = cur ^ msk
        opp_threats = wins(other) & ~msk & board_mask
        forced_cells = poss & opp_threats
        if forced_cells:
            if forced_cells & (forced_cells - 1):
                return -(WIN - p - 1)
            poss = forced_cells
        poss &= ~(opp_threats >> 1)
        if not poss:
            return -(WIN - p - 1)
        if p >= size - 1:
            return 0
        if depth <= 0:
            return evaluate(cur, msk, p)
        alpha0 = alpha
        key = cur + msk
        entry = table.get(key)
        first = -1
        if entry is not None:
            e_depth, flag, value, first = entry
            if e_depth >= depth:
                if flag == EXACT:
                    return value
                if flag == LOWER:
                    if value > alpha:
                        alpha = value
                elif value < beta:
                    beta = value
                if alpha >= beta:
                    return value
        moves = [c for c in order if poss & column_masks[c]]
        if first >= 0 and first in moves and moves[0] != first:
            moves.remove(first)
            moves.insert(0, first)
        best = -WIN - 1
        best_col = moves[0]
        for c in moves:
            move = (msk + bottom_cells[c]) & column_masks[c]
            score = -negamax(other, msk | move, p + 1, depth - 1, -beta, -alpha)
            if score > best:
                best = score
                best_col = c
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        table[key] = (depth, flag, best, best_col)
        return best

    def negamax_root(depth: int, root_moves: list[int]) -> tuple[int, int]:
        nonlocal nodes
        alpha, beta = -WIN - 1, WIN + 1
        best_col, best = root_moves[0], -WIN - 1
        for c in root_moves:
            move = (mask + bottom_cells[c]) & column_masks[c]
            score = -negamax(opp, mask | move, ply + 1, depth - 1, -beta, -alpha)
            if score > best:
                best, best_col = score, c
                if score > alpha:
                    alpha = score
        return best_col, best

    root_moves = list(safe)
    best_col, best_score, reached = root_moves[0], 0, 0
    limit = size - ply if max_depth is None else min(max_depth, size - ply)
    depth = 1
    while depth <= limit:
        try:
            col, score = negamax_root(depth, root_moves)
        except _Timeout:
            if reached == 0:  # depth 1 must complete: finish it without a deadline
                deadline = float("inf")
                continue
            break
        best_col, best_score, reached = col, score, depth
        if abs(score) > _DECIDED:
            break
        root_moves.remove(col)
        root_moves.insert(0, col)
        depth += 1
        if perf() > deadline:
            break
    return SearchResult(best_col, best_score, reached, nodes, perf() - start)


def _column_of(cell: int, geo: Geometry) -> int:
    """Column index of a single-bit ``cell``."""
    return (cell.bit_length() - 1) // geo.height


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds for one move from its start: exact solving stops at ``solve``; the heuristic search
    then runs until ``total``, and at least ``fallback`` seconds when exact solving used the bank."""

    solve: float
    total: float
    fallback: float


def move_budget(
    clock: Clock, ply: int, size: int, *, margin: float = 0.15, reserve: float = 3.0, share: float = 0.3
) -> Budget:
    """Split this move's time.

    ``base = actTimeout - margin`` is always available. Exact solving may use half of it plus, from
    the overage bank, a ``share`` of what exceeds ``reserve`` seconds in the first two thirds of the
    game (where exact solving costs most), a third of that share later. The heuristic fallback gets
    the rest of ``base``, and at least half of ``base`` after a failed exact solve (a shallow
    heuristic search is where early mistakes come from). A move thus takes at most ``base + extra``
    seconds plus the call's overhead, ``extra <= share * (bank - reserve)``: the bank is never
    overdrawn.
    """
    base = max(0.05, clock.act_timeout - margin)
    spare = max(0.0, clock.overage - reserve)
    extra = spare * (share if ply < size * 2 // 3 else share / 3)
    return Budget(solve=0.5 * base + extra, total=base, fallback=0.5 * base)


_NOT_SOLVED = -2


def _solve_root(
    solver: Solver, position: int, mask: int, ply: int, deadline: float
) -> tuple[int | None, dict[int, int]]:
    """Exact choice under a deadline: ``(column or None, proven weak values of the columns)``.

    Pass 1 looks, in the solver's move order, for a child whose score is below 0 (a win for us),
    one null-window search each; pass 2 for a child at most 0 (a draw). Children failing pass 2
    are proven lost (value -1). In a lost position the longest loss is chosen when every child can
    be strongly solved in time (from ``_STRONG_EMPTY_LIMIT`` empty cells on). ``None`` when the
    deadline came first or a lost position is left to the heuristic. Assumes no move wins at once.
    """
    geo = solver.geo
    values: dict[int, int] = {}
    order = move_order(position, mask, geo)
    other = position ^ mask
    children = {}
    for column in order:
        move = (mask + geo.bottom_cells[column]) & geo.column_masks[column]
        children[column] = mask | move
        if ply + 1 == geo.size:
            values[column] = 0
    try:
        for column in order:  # pass 1: a win?
            if column not in values and not solver.at_least(
                other, children[column], ply + 1, 0, deadline=deadline
            ):
                values[column] = 1
                return column, values
        for column in order:  # pass 2: a draw?
            if column in values:
                if values[column] == 0:
                    return column, values
                continue
            if solver.at_least(other, children[column], ply + 1, 1, deadline=deadline):
                values[column] = -1
            else:
                values[column] = 0
                return column, values
    except SearchAborted:
        return None, values
    if geo.size - ply > _STRONG_EMPTY_LIMIT:
        return None, values  # lost, and strong solving would be slow: let the heuristic choose
    scores: dict[int, int] = {}
    for column in order:  # lost: prefer the longest resistance
        try:
            scores[column] = -solver.solve_bits(other, children[column], ply + 1, deadline=deadline)
        except SearchAborted:
            return None, values
    return max(order, key=lambda c: scores[c]), values


def make_agent(
    *,
    max_depth: int | None = None,
    margin: float = 0.15,
    book: bool = True,
    exact: bool = True,
    share: float = 0.3,
) -> Agent:
    """Build the Kaggle agent ``agent(obs, config) -> int``.

    Per move: the opening book (6x7, four in a row) when it knows the position; else exact solving
    (Pons-style solver) within the move's budget; else iterative-deepening heuristic negamax over the
    moves not proven lost. The garbage collector is off while the agent thinks.

    ``max_depth``: cap on the heuristic iterative deepening (plies); ``margin``: seconds kept back
    from ``config.actTimeout``; ``book``/``exact``: enable those stages; ``share``: fraction of the
    overage bank (above a 3 s reserve) one move may spend on exact solving. Unknown keyword
    parameters raise ``TypeError``; bad values ``ValueError``. The agent's ``last_move`` attribute
    (a dict: ``stage`` in only/win/book/exact/search, ``ply``, ``seconds``, ``depth``) describes
    its last decision, for benchmarks.
    """
    if max_depth is not None and int(max_depth) < 1:
        raise ValueError("max_depth must be >= 1")
    if not 0.0 <= float(share) <= 1.0:
        raise ValueError("share must be within [0, 1]")
    solvers: dict[Geometry, Solver] = {}
    info: dict[str, Any] = {}

    def negamax_agent(obs: Any, config: Any) -> int:
        start = time.perf_counter()
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            info.clear()
            column = int(_choose(obs, config, start))
            info["seconds"] = time.perf_counter() - start
            return column
        finally:
            if gc_was_enabled:
                gc.enable()

    def _choose(obs: Any, config: Any, start: float) -> int:
        board = board_from_obs(obs, config)
        clock = Clock.from_kaggle(obs, config)
        geo = board.geo
        legal = board.legal_moves()
        if len(legal) == 1:
            return _note(info, "only", legal[0], board.ply)
        mine = board.winning_moves()
        if mine:
            return _note(info, "win", _column_of(mine & -mine, geo), board.ply)
        if book and (geo.rows, geo.columns, geo.inarow) == (6, 7, 4):
            opening = load_book()
            if opening is not None:
                hit = opening.lookup(board.position, board.mask)
                if hit is not None and hit[0] is not None and board.can_play(hit[0]):
                    return _note(info, "book", hit[0], board.ply)
        budget = move_budget(clock, board.ply, geo.size, margin=margin, share=float(share))
        allowed: list[int] | None = None
        if exact and geo.size - board.ply <= _EXACT_EMPTY_LIMIT:
            solver = solvers.get(geo)
            if solver is None:
                solver = solvers[geo] = Solver(geo.rows, geo.columns, geo.inarow, table_limit=_TABLE_LIMIT)
            column, values = _solve_root(solver, board.position, board.mask, board.ply, start + budget.solve)
            if column is not None:
                return _note(info, "exact", column, board.ply)
            allowed = [c for c in legal if values.get(c, _NOT_SOLVED) != -1]
        now = time.perf_counter()
        remaining = max(budget.fallback if allowed is not None else 0.05, start + budget.total - now)
        result = search(
            board.position,
            board.mask,
            board.ply,
            geo,
            seconds=remaining,
            max_depth=None if max_depth is None else int(max_depth),
            allowed=allowed,
        )
        info["depth"] = result.depth
        return _note(info, "search", result.column, board.ply)

    negamax_agent.last_move = info  # type: ignore[attr-defined]
    return negamax_agent


def _note(info: dict[str, Any], stage: str, column: int, ply: int) -> int:
    info["stage"] = stage
    info["ply"] = ply
    return column


_EXACT_EMPTY_LIMIT = 36
"""Exact solving is tried only with at most this many empty cells (6x7: from ply 6 on)."""

_STRONG_EMPTY_LIMIT = 22
"""A lost position is strongly solved (to resist longest) only with at most this many empty cells."""

_TABLE_LIMIT = 2_000_000
"""Transposition-table entries (about 80 bytes each) kept by the agent's solver before clearing."""


agent = make_agent()
