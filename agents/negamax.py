"""Negamax agent: alpha-beta negamax with iterative deepening on the bitboard engine.

Scores are always from the point of view of the side to move.

Search (any ConnectX configuration):

* immediate win, then immediate block, are checked before any search;
* moves that hand the opponent an immediate win (playing under one of its winning cells) are pruned,
  and a single forced block is played at once (Pons, http://blog.gamesolver.org/solving-connect-four/09-
  anticipate-losing-moves/);
* alpha-beta negamax over a transposition table (dict: key -> depth, bound, value, best column),
  centre-first move ordering with the table's best move first;
* iterative deepening stops inside the time it is given (``config.actTimeout`` minus a safety
  margin); the result of the deepest completed iteration is played;
* at the horizon a heuristic counts the empty winning cells ("threats") of each side and the stones
  near the centre; decided positions score ``±(WIN - ply)`` so that faster wins are preferred.

``make_agent(**params)`` builds the Kaggle callable; ``agent = make_agent()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agents.adapter import Agent, Clock, board_from_obs
from agents.board import Geometry, has_line, winning_cells

__all__ = ["SearchResult", "WIN", "agent", "make_agent", "search", "wins_function"]

WIN = 1_000_000
"""Score of a position won at ply 0; a win at ply ``p`` scores ``WIN - p`` (loss: the negative)."""

_DECIDED = WIN - 10_000  # any |score| above this is a proven win/loss


class _Timeout(Exception):
    """Raised inside the search when the deadline has passed."""


def wins_function(geo: Geometry) -> Callable[[int], int]:
    """A fast ``stones -> winning cells`` function for ``geo`` (same result as ``board.winning_cells``).

    Cells are restricted to ``geo.board`` and may be occupied or floating: callers intersect them
    with the cells they care about. For ``inarow == 4`` it is Pons' shift formula
    (http://blog.gamesolver.org/solving-connect-four/09-anticipate-losing-moves/), generalised to
    any column height; otherwise it falls back on :func:`agents.board.winning_cells`.
    """
    if geo.inarow != 4:
        return lambda stones: winning_cells(stones, geo)
    h = geo.height
    board = geo.board
    h1, h2, h3 = h - 1, h, h + 1
    d1, d2, d3 = 2 * h1, 2 * h2, 2 * h3
    t1, t2, t3 = 3 * h1, 3 * h2, 3 * h3

    def wins4(p: int) -> int:
        r = (p << 1) & (p << 2) & (p << 3)
        a = (p << h2) & (p << d2)
        b = (p >> h2) & (p >> d2)
        r |= (a & ((p << t2) | (p >> h2))) | (b & ((p << h2) | (p >> t2)))
        a = (p << h1) & (p << d1)
        b = (p >> h1) & (p >> d1)
        r |= (a & ((p << t1) | (p >> h1))) | (b & ((p << h1) | (p >> t1)))
        a = (p << h3) & (p << d3)
        b = (p >> h3) & (p >> d3)
        r |= (a & ((p << t3) | (p >> h3))) | (b & ((p << h3) | (p >> t3)))
        return r & board

    return wins4


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
) -> SearchResult:
    """Iterative-deepening alpha-beta negamax from a position given as bitboards.

    ``position``: stones of the side to move; ``mask``: all stones; ``ply``: stones played (see
    :mod:`agents.board`). The position must not be won already and must have a legal move
    (``ValueError`` otherwise). ``seconds`` is the wall-clock budget; the search returns the best
    column of the deepest completed iteration (at least depth 1 is always completed, whatever the
    budget). ``max_depth`` caps the iterations (plies).
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
    if len(safe) == 1:
        return SearchResult(safe[0], 0, 1, 1, perf() - start)

    table: dict[int, tuple[int, int, int, int]] = {}  # key -> (depth, flag, value, best column)
    nodes = 0
    EXACT, LOWER, UPPER = 0, 1, 2

    def evaluate(cur: int, msk: int) -> int:
        empty = board_mask & ~msk
        other = cur ^ msk
        score = 4 * ((wins(cur) & empty).bit_count() - (wins(other) & empty).bit_count())
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
            return evaluate(cur, msk)
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


def move_budget(clock: Clock, *, margin: float = 0.15, share: float = 0.8) -> float:
    """Seconds the search may use this move: ``share`` of ``actTimeout`` minus ``margin``.

    Never below 0.02 s; never draws on the overage bank.
    """
    return max(0.02, min(clock.act_timeout * share, clock.act_timeout - margin))


def make_agent(*, max_depth: int | None = None, margin: float = 0.15) -> Agent:
    """Build the Kaggle agent ``agent(obs, config) -> int``.

    ``max_depth``: cap on the iterative deepening (plies), default unlimited (time decides);
    ``margin``: seconds kept back from ``config.actTimeout``. Unknown keyword parameters raise
    ``TypeError``.
    """
    if max_depth is not None and int(max_depth) < 1:
        raise ValueError("max_depth must be >= 1")

    def negamax_agent(obs: Any, config: Any) -> int:
        board = board_from_obs(obs, config)
        clock = Clock.from_kaggle(obs, config)
        legal = board.legal_moves()
        if len(legal) == 1:
            return int(legal[0])
        result = search(
            board.position,
            board.mask,
            board.ply,
            board.geo,
            seconds=move_budget(clock, margin=margin),
            max_depth=None if max_depth is None else int(max_depth),
        )
        return int(result.column)

    return negamax_agent


agent = make_agent()
