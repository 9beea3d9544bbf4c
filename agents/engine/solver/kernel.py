"""The solver's search kernel: one closure per board geometry (see :func:`build_search`).

Scores, algorithm and conventions are those of :mod:`agents.engine.solver`.

Where the time goes in pure Python, and what this module does about it (measured with
``python -m benchmarks.pons --compare``: 3.7x the nodes per second of a straightforward port,
:mod:`benchmarks.straight_port`, with the same node counts):

* one closure per board geometry; every constant is a local or a closure cell, no attribute lookups
  or method calls inside the search;
* the opponent's winning cells of a node are the "threats created" that its parent already computed
  to order its moves; they are passed down, so every node computes winning cells only once per child
  (Pons computes them once more per node in ``possibleNonLosingMoves``);
* the transposition table is a ``dict`` from the position key to an int ``2 * bound + is_lower``
  (a dict beats preallocated lists of keys/values here: one hashed lookup instead of a modulo and
  two list reads, and no collisions to lose results); it is cleared when it exceeds ``table_limit``;
* the winning cells of a set of stones (about 50 big-int operations, 1.1 µs) are memoised in a dict
  (0.05 µs a hit): one player's stones recur across many positions, which doubles the speed;
* moves are sorted with ``list.sort`` on small tuples (stable, so ties keep the centre-first order
  exactly as Pons' insertion sorter does; tuples without a key function sort fastest).

So :func:`build_search` and its ``negamax`` are long on purpose, one closure with everything
inlined: split into functions, every call would be paid at every node. The project's other
functions stay under about 60 lines; this kernel, :func:`agents.engine.search._kernel` and the
numba twin (:mod:`agents.engine.solver.fast`) are the exceptions.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from agents.engine.board import Geometry
from agents.engine.lines import wins_function

__all__ = ["SearchAborted", "WINS_CACHE_LIMIT", "build_search"]

WINS_CACHE_LIMIT = 1_000_000
"""Entries of the memo ``stones -> winning cells`` before it is cleared (between solves)."""


class SearchAborted(Exception):
    """The search ran past its deadline or node limit (see :meth:`agents.engine.solver.Solver.solve_bits`)."""


def build_search(
    geo: Geometry,
    table: dict[int, int],
    leaf: Callable[[int, int], int | None] | None = None,
    leaf_ply: int = -1,
) -> tuple[Callable[..., int], Callable[..., int], dict[int, int]]:
    """The search closures for one geometry: ``(negamax, control, wins_cache)``.

    ``leaf(cur, mask)``, when given, scores every node at ``leaf_ply`` instead of searching it (the
    opening databases, :mod:`agents.engine.solver.databases`); a ``None`` from it means "search on".

    ``negamax(cur, mask, ply, alpha, beta, opp_wins) -> score`` where ``cur`` holds the stones of the
    side to move, ``mask`` all stones and ``opp_wins`` the opponent's winning cells (any superset
    within the board of ``wins_function(geo)(opponent)`` restricted to empty cells works). Preconditions:
    ``alpha < beta``, the side to move cannot win at once and the game is not over. The result is a
    bound in Pons' sense: ``score <= alpha`` means the true score is ``<= score``, ``score >= beta``
    that it is ``>= score``, otherwise it is exact.

    ``control(op, value)`` reads or resets the node counter and the abort limits:
    ``control("nodes")``, ``control("reset")``, ``control("limits", (deadline, max_nodes))``.

    ``wins_cache`` maps stones to their winning cells. For four in a row the kernel computes them with
    an inlined copy of :func:`agents.engine.lines.wins_function` (a call costs about 7 % of the solver's
    speed); ``tests/test_solver.py`` checks the cache against it.
    """
    size = geo.size
    board = geo.board
    bottom = geo.bottom
    # (minus rank, mask) in centre-first order: sorting (score, -rank, ...) tuples in reverse keeps ties
    # centre-first, as Pons' insertion sorter does.
    order_masks = tuple((-i, geo.column_masks[c]) for i, c in enumerate(geo.centre_order))
    get = table.get
    wins_cache: dict[int, int] = {}
    wins_get = wins_cache.get
    four = geo.inarow == 4
    wins = wins_function(geo)
    h = geo.height
    sa, sb, sc = h, h - 1, h + 1
    sa2, sb2, sc2 = 2 * h, 2 * (h - 1), 2 * (h + 1)
    sa3, sb3, sc3 = 3 * h, 3 * (h - 1), 3 * (h + 1)
    # Score bounds by ply (Pons part 4): losing at the opponent's next move, the best that can be
    # hoped for when the opponent cannot win next, the best when we cannot win at once.
    loss = tuple(-((size - p) // 2) for p in range(size + 1))
    lows = tuple(-((size - 2 - p) // 2) for p in range(size + 1))
    highs = tuple((size - 1 - p) // 2 for p in range(size + 1))
    nodes = 0
    check_at = 1 << 62  # node count at which limits are next checked
    deadline = float("inf")
    max_nodes = 1 << 62
    perf = time.perf_counter
    score_leaf = leaf or (lambda cur, msk: None)

    def check() -> None:
        nonlocal check_at
        if nodes >= max_nodes or perf() > deadline:
            raise SearchAborted(f"search aborted after {nodes} nodes")
        check_at = min(nodes + 2048, max_nodes)

    def negamax(cur: int, msk: int, ply: int, alpha: int, beta: int, opp_wins: int) -> int:
        nonlocal nodes
        nodes += 1
        if nodes >= check_at:
            check()
        if ply == leaf_ply:
            score = score_leaf(cur, msk)
            if score is not None:
                return score
        empty = board ^ msk
        opp_wins &= empty
        possible = (msk + bottom) & board
        # agents.engine.lines.non_losing, inlined: a call per node costs about 3 % of the solver's speed.
        forced = possible & opp_wins
        if forced:
            if forced & (forced - 1):  # two threats: lost at the opponent's next move
                return loss[ply]
            possible = forced
        possible &= ~(opp_wins >> 1)
        if not possible:
            return loss[ply]
        if ply >= size - 2:
            return 0
        low = lows[ply]
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
        high = highs[ply]
        key = cur + msk
        entry = get(key)
        if entry is not None:
            if entry & 1:
                low = entry >> 1
                if alpha < low:
                    alpha = low
                    if alpha >= beta:
                        return alpha
            else:
                high = entry >> 1
        if beta > high:
            beta = high
            if alpha >= beta:
                return beta
        kids = []
        for rank, cm in order_masks:
            m = possible & cm
            if m:
                p = cur | m
                r = wins_get(p)
                if r is not None:
                    pass
                elif four:
                    x = p & (p >> 1)
                    r = (x << 2) & (p << 3)
                    x = p & (p >> sa)
                    r |= ((x >> sa) & ((p >> sa3) | (p << sa))) | ((x << sa2) & ((p << sa3) | (p >> sa)))
                    x = p & (p >> sb)
                    r |= ((x >> sb) & ((p >> sb3) | (p << sb))) | ((x << sb2) & ((p << sb3) | (p >> sb)))
                    x = p & (p >> sc)
                    r |= ((x >> sc) & ((p >> sc3) | (p << sc))) | ((x << sc2) & ((p << sc3) | (p >> sc)))
                    wins_cache[p] = r
                else:
                    r = wins_cache[p] = wins(p)
                kids.append(((r & empty).bit_count(), rank, m, r))  # m is not in r: no win at once
        if len(kids) > 1:
            kids.sort(reverse=True)
        other = cur ^ msk
        ply += 1
        for _, _, m, r in kids:
            score = -negamax(other, msk | m, ply, -beta, -alpha, r)
            if score >= beta:
                table[key] = (score << 1) | 1
                return score
            if score > alpha:
                alpha = score
        table[key] = alpha << 1
        return alpha

    def control(op: str, value: tuple[float, int] | None = None) -> int:
        nonlocal nodes, check_at, deadline, max_nodes
        if op == "reset":
            nodes = 0
            if len(wins_cache) > WINS_CACHE_LIMIT:
                wins_cache.clear()
        elif op == "limits":
            assert value is not None
            deadline, max_nodes = value
            check_at = min(nodes + 2048, max_nodes) if deadline != float("inf") else max_nodes
        return nodes

    return negamax, control, wins_cache
