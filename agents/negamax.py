"""``negamax``: opening book, exact solving, then alpha-beta negamax with iterative deepening.

Scores are always from the point of view of the side to move.

Each move (:func:`make_agent`), with the garbage collector off:

1. the only legal move, or a move that wins at once;
2. the opening book (:mod:`agents.engine.book`; 6x7, four in a row) when it knows the position;
3. exact solving (:mod:`agents.engine.solver`, Pons' algorithm) when at most 36 cells are empty: a child
   that keeps a win, else a draw, found by null-window searches under a deadline; the solver's
   transposition table lives as long as the agent, so once a position is solved the following
   moves are mostly table hits;
4. otherwise, or when the deadline comes first, the heuristic search below over the moves not
   proven lost.

Time (:func:`move_budget`): ``actTimeout`` minus a margin, and for exact solving a share of the
overage bank (30 % of what exceeds a 3 s reserve in the first two thirds of the game, 10 % later),
but never more than ``longest - actTimeout`` of it, so that no move takes more than ``longest``
(4 s by default); a failed exact solve still leaves the heuristic half of the free time. The bank
is never overdrawn. Why the cap: off the book (from an opening it does not know, or as second
player after the centre opening, where it keeps no move since the position is lost) exact solving
at plies 6-12 took 5-19 s of bank a move, and two moves in three of those ran into the deadline,
the heuristic choosing anyway. With the cap, in gauntlets against ``mcts`` and ``network`` the
largest move fell from 19.0 to 3.9 s and the bank drawn in a game from 11-33 to 4-7 s (on
average), while the mistakes on Pons' early positions (L1 sets, a fresh 60 s bank for each,
``python -m benchmarks.mistakes``) went from 7 to 10 in 74, within noise.

Heuristic search (any ConnectX configuration):

* immediate win, then immediate block, are checked before any search; moves that hand the opponent
  an immediate win are pruned, and a single forced block is played at once (the tactics of
  :mod:`agents.engine.search`);
* :class:`agents.engine.search.Search` with tactics and a transposition table: alpha-beta negamax,
  centre-first move ordering with the table's best move first, iterative deepening that stops inside
  the time it is given; the result of the deepest completed iteration is played;
* at the horizon :func:`threat_evaluation` counts the empty winning cells ("threats") of each side,
  twice for threats on the rows that favour their owner (odd rows for the first player, even rows for
  the second: Allis' parity rule), and the stones near the centre; decided positions score
  ``±(WIN - stones)`` (:data:`agents.engine.search.WIN`) so that faster wins are preferred.

:class:`Negamax` is the :class:`~agents.kit.player.Player`; ``make_agent(**params)`` wraps it as the Kaggle
callable (:func:`agents.kit.adapter.kaggle_agent`); ``agent = make_agent()``.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Any

from agents.engine.board import Board, Geometry
from agents.engine.book import book_move
from agents.engine.lines import wins_function
from agents.engine.search import Evaluate, Search
from agents.engine.solver import Solver
from agents.kit.adapter import Agent, Clock, kaggle_agent

__all__ = ["Budget", "Negamax", "agent", "make_agent", "move_budget", "threat_evaluation"]

EXACT_EMPTY_LIMIT = 36
"""Exact solving is tried only with at most this many empty cells (6x7: from ply 6 on)."""

TABLE_LIMIT = 2_000_000
"""Transposition-table entries (about 80 bytes each) kept by the agent's solver before clearing."""


def threat_evaluation(geo: Geometry) -> Evaluate:
    """The static value (:class:`agents.engine.search.Evaluate`) of the heuristic search, side to move.

    ``4 * (threats - opponent's threats) + 4 * (threats on favourable rows - the opponent's)`` plus
    ``w * (stones - opponent's stones)`` per column of weight ``w`` (``round(columns / 2 - distance to
    the centre)``, 0 at the edges of 6x7). A threat is an empty cell completing a line; the first
    player's favourable rows are the odd ones counted from the bottom (1st, 3rd, ...), the second
    player's the even ones (Allis' parity rule). Small integers, far inside ``±DECIDED``.
    """
    board_mask = geo.board
    wins = wins_function(geo)
    centre = (geo.columns - 1) / 2
    weights = [
        (geo.column_masks[c], w)
        for c in range(geo.columns)
        if (w := int(round(geo.columns / 2 - abs(c - centre)))) > 0
    ]
    odd_rows = sum(geo.bottom << r for r in range(0, geo.rows, 2)) & board_mask
    even_rows = board_mask ^ odd_rows

    def value(cur: int, msk: int, p: int) -> int:
        empty = board_mask & ~msk
        other = cur ^ msk
        mine = wins(cur) & empty
        theirs = wins(other) & empty
        my_rows, their_rows = (odd_rows, even_rows) if p % 2 == 0 else (even_rows, odd_rows)
        score = 4 * (mine.bit_count() - theirs.bit_count())
        score += 4 * ((mine & my_rows).bit_count() - (theirs & their_rows).bit_count())
        for cmask, w in weights:
            score += w * ((cur & cmask).bit_count() - (other & cmask).bit_count())
        return score

    return value


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds for one move from its start: exact solving stops at ``solve``; the heuristic search
    then runs until ``total``, and at least ``fallback`` seconds when exact solving used the bank."""

    solve: float
    total: float
    fallback: float

    def search_deadline(self, start: float, after_solving: bool) -> float:
        """When the search that follows exact solving must stop (``time.perf_counter()`` seconds;
        ``start`` the move's): at ``start + total``, but no sooner than ``fallback`` seconds from now
        when exact solving ran and failed (``after_solving``), 0.05 s otherwise."""
        now = time.perf_counter()
        return now + max(self.fallback if after_solving else 0.05, start + self.total - now)


def move_budget(
    clock: Clock,
    ply: int,
    size: int,
    *,
    margin: float = 0.15,
    reserve: float = 3.0,
    share: float = 0.3,
    longest: float = 4.0,
    bank_fallback: bool = False,
) -> Budget:
    """Split this move's time (all in seconds).

    ``base = actTimeout - margin`` is always available. Exact solving may use half of it plus, from
    the overage bank, ``extra``: a ``share`` of what exceeds ``reserve`` seconds in the first two
    thirds of the game (where exact solving costs most), a third of that share later, and never more
    than ``longest - actTimeout``. The heuristic fallback gets the rest of ``base``, and at least half
    of ``base`` after a failed exact solve (a shallow heuristic search is where early mistakes come
    from). A move thus takes at most ``base + extra <= max(base, longest - margin)`` seconds plus the
    call's overhead, and ``extra <= share * (bank - reserve)``: the bank is never overdrawn.

    ``bank_fallback``: the bank, rather than exact solving's half of ``base``, pays for the fallback's
    other half: up to half of ``base`` moves from ``solve`` to ``fallback``, so that a failed solve
    leaves the fallback search the whole of ``base`` when ``extra`` covers it. The move's longest time
    stays ``base + extra``. For searches that play much better with a whole move than with half of one
    (the network's PUCT), where the solver's 1 s less out of many matters little.
    """
    base = max(0.05, clock.act_timeout - margin)
    spare = max(0.0, clock.overage - reserve)
    extra = spare * (share if ply < size * 2 // 3 else share / 3)
    extra = min(extra, max(0.0, longest - clock.act_timeout))
    moved = min(extra, 0.5 * base) if bank_fallback else 0.0
    return Budget(solve=0.5 * base + extra - moved, total=base, fallback=0.5 * base + moved)


class Negamax:
    """The negamax :class:`~agents.kit.player.Player` (see the module docstring and :func:`make_agent`).

    ``last_move`` (a dict: ``stage`` in only/draw/win/book/exact/search, ``ply``, ``seconds``, ``depth``)
    describes its last decision, for benchmarks. Solvers and searches live as long as the player.
    """

    def __init__(
        self,
        *,
        max_depth: int | None = None,
        margin: float = 0.15,
        book: bool = True,
        exact: bool = True,
        share: float = 0.3,
        longest: float = 4.0,
    ) -> None:
        if max_depth is not None and int(max_depth) < 1:
            raise ValueError("max_depth must be >= 1")
        if not 0.0 <= float(share) <= 1.0:
            raise ValueError("share must be within [0, 1]")
        if not float(longest) > 0.0:
            raise ValueError("longest must be > 0")
        self.max_depth = None if max_depth is None else int(max_depth)
        self.margin = margin
        self.book = book
        self.exact = exact
        self.share = float(share)
        self.longest = float(longest)
        self.last_move: dict[str, Any] = {}
        self._solvers: dict[Geometry, Solver] = {}
        self._searches: dict[Geometry, Search] = {}

    def play(self, board: Board, clock: Clock) -> int:
        """The column to play (garbage collector off meanwhile); the board is left as it was."""
        start = time.perf_counter()
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            self.last_move.clear()
            column = self._choose(board, clock, start)
            self.last_move["seconds"] = time.perf_counter() - start
            return column
        finally:
            if gc_was_enabled:
                gc.enable()

    def _choose(self, board: Board, clock: Clock, start: float) -> int:
        geo = board.geo
        legal = board.legal_moves()
        if len(legal) == 1:
            return self._note("only", legal[0], board.ply)
        if not geo.winnable:  # no line fits: every game is a draw and a search would only spend the bank
            return self._note("draw", legal[0], board.ply)
        mine = board.winning_moves()
        if mine:
            return self._note("win", board.columns(mine)[0], board.ply)
        column = book_move(board) if self.book else None
        if column is not None:
            return self._note("book", column, board.ply)
        budget = move_budget(
            clock, board.ply, geo.size, margin=self.margin, share=self.share, longest=self.longest
        )
        allowed: list[int] | None = None
        if self.exact and geo.size - board.ply <= EXACT_EMPTY_LIMIT:
            solver = self._solvers.get(geo)
            if solver is None:
                solver = self._solvers[geo] = Solver(
                    geo.rows, geo.columns, geo.inarow, table_limit=TABLE_LIMIT
                )
            deadline = start + budget.solve
            column, values = solver.choose(board.position, board.mask, board.ply, deadline=deadline)
            if column is not None:
                return self._note("exact", column, board.ply)
            allowed = [c for c in legal if values.get(c) != -1]
        search = self._searches.get(geo)
        if search is None:
            search = self._searches[geo] = Search(geo, threat_evaluation(geo))
        deadline = budget.search_deadline(start, after_solving=allowed is not None)
        result = search.best(board, depth=self.max_depth, deadline=deadline, allowed=allowed)
        self.last_move["depth"] = result.depth
        return self._note("search", result.column, board.ply)

    def _note(self, stage: str, column: int, ply: int) -> int:
        self.last_move["stage"] = stage
        self.last_move["ply"] = ply
        return column


def make_agent(
    *,
    max_depth: int | None = None,
    margin: float = 0.15,
    book: bool = True,
    exact: bool = True,
    share: float = 0.3,
    longest: float = 4.0,
) -> Agent:
    """Build the Kaggle agent ``agent(obs, config) -> int`` of a :class:`Negamax` player.

    Per move: the opening book (6x7, four in a row) when it knows the position; else exact solving
    (Pons-style solver) within the move's budget; else iterative-deepening heuristic negamax over the
    moves not proven lost. The garbage collector is off while the agent thinks.

    ``max_depth``: cap on the heuristic iterative deepening (plies); ``margin``: seconds kept back
    from ``config.actTimeout``; ``book``/``exact``: enable those stages; ``share``: fraction of the
    overage bank (above a 3 s reserve) one move may spend on exact solving; ``longest``: seconds a
    move may take, bank included, before exact solving gives up (the bank it draws is at most
    ``longest - actTimeout``). Unknown keyword parameters raise ``TypeError``; bad values
    ``ValueError``. The agent's ``last_move`` attribute is the player's (see :class:`Negamax`).
    """
    return kaggle_agent(
        Negamax(max_depth=max_depth, margin=margin, book=book, exact=exact, share=share, longest=longest)
    )


agent = make_agent()
