"""``negamax``: perfect play (the solved game's databases, exact solving), else alpha-beta negamax.

Scores are always from the point of view of the side to move.

Each move (:func:`make_agent`), with the garbage collector off, the stages of :mod:`agents.kit`
first:

1. the only legal move, a move that wins at once, or the only move that does not lose at once
   (:func:`agents.kit.tactics.tactical_move`);
2. exact solving (:mod:`agents.engine.solver`, Pons' algorithm, :class:`agents.kit.solved.SolvedPositions`):
   a child that keeps a win, else a draw, found by null-window searches under a deadline, then,
   within ``actTimeout``, the fastest win or the slowest loss. On 6x7 the search stops at the solved
   game's 12-stone positions (:mod:`agents.engine.solver.databases`), so this is perfect play from
   the empty board on. Without the databases, our opening book (:mod:`agents.engine.book`) answers
   first, and the solver runs only when at most 36 cells are empty. The solver's transposition table
   lives as long as the agent, so once a position is solved the following moves are mostly table
   hits;
3. otherwise, or when the deadline comes first, the heuristic search below over the moves not
   proven lost.

Time (:func:`agents.kit.budget.move_budget`): ``actTimeout`` minus a margin, and for exact solving a
share of the overage bank (half of what exceeds :data:`BANK_KEPT`, itself half of Kaggle's 60 s bank,
in the first two thirds of the game, a sixth later), but never more than ``longest - actTimeout`` of
it, so that no move takes more than ``longest`` (20 s by default) and no game spends more than half
of the bank; a failed exact solve still leaves the heuristic half of the free time. The hard moves
are those just past the databases (plies 13-16), where the solver starts without a table. The
solver stops by the clock, so on a slow or busy CPU perfect play draws on the bank for its proof
(up to 15 s of it in one move, with a full bank) rather than play an unproved move; on an idle
core the compiled solver (numba, a dependency) proves them in about a second at most. A single-file
submission compiles the same kernel at its first move where numba imports, as on Kaggle's image
(:meth:`agents.kit.solved.SolvedPositions.prepare`, drawn from the bank), and searches in pure
Python where it does not, where some take 5-15 s (``python -m benchmarks.mistakes --spec main.py``
measures both).

Heuristic search (any ConnectX configuration), what is negamax's own:

* moves that hand the opponent an immediate win are pruned (the tactics of
  :mod:`agents.engine.search`);
* :class:`agents.engine.search.Search` with tactics and a transposition table: alpha-beta negamax,
  centre-first move ordering with the table's best move first, iterative deepening that stops inside
  the time it is given; the result of the deepest completed iteration is played;
* at the horizon :func:`threat_evaluation` counts the empty winning cells ("threats") of each side,
  twice for threats on the rows that favour their owner (odd rows for the first player, even rows for
  the second: Allis' parity rule), and the stones near the centre; decided positions score
  ``±(WIN - stones)`` (:data:`agents.engine.search.WIN`) so that faster wins are preferred.

:class:`Negamax` is the :class:`~agents.kit.player.Player`, its parameters those of the spec
(``negamax:max_depth=6``); ``make_agent(**params)`` wraps it as the Kaggle callable
(:func:`agents.kit.adapter.agent_factory`); ``agent = make_agent()``.
"""

from __future__ import annotations

from agents.engine.board import Board, Geometry
from agents.engine.lines import wins_function
from agents.engine.search import Evaluate, Search
from agents.kit.adapter import agent_factory
from agents.kit.budget import move_budget
from agents.kit.clock import DEFAULT_OVERAGE, Clock
from agents.kit.record import MoveRecord
from agents.kit.solved import SolvedPositions
from agents.kit.strategy import Strategy
from agents.kit.tactics import tactical_move

__all__ = ["BANK_KEPT", "USES_SOLVER", "Negamax", "agent", "make_agent", "threat_evaluation"]

USES_SOLVER = True
"""The solved stage searches with the compiled solver (:func:`agents.registry.uses_solver`)."""

BANK_KEPT = DEFAULT_OVERAGE / 2
"""Seconds of the overage bank that exact solving never spends (half of Kaggle's 60 s): no game uses
more than half of the bank, however many hard positions it meets."""


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


class Negamax(Strategy):
    """The negamax :class:`~agents.kit.player.Player` (see the module docstring).

    Per move: the kit's tactics; exact solving (Pons-style solver, down to the opening databases on
    6x7, our opening book first without them) within the move's budget; else iterative-deepening
    heuristic negamax over the moves not proven lost. ``max_depth``: cap on the heuristic iterative
    deepening (plies); ``margin``: seconds kept back from ``config.actTimeout``; ``book``/``exact``:
    enable those stages; ``share``: fraction of the overage bank (above :data:`BANK_KEPT`) one move
    may spend on exact solving; ``longest``: seconds a move may take, bank included, before exact
    solving gives up (the bank it draws is at most ``longest - actTimeout``). Bad values raise
    ``ValueError``.

    A move's record (:class:`~agents.kit.record.MoveRecord`): stage only/draw/win/block/book/exact/
    search, with the ``depth`` and ``nodes`` of a search.
    Solvers and searches live as long as the player.
    """

    def __init__(
        self,
        *,
        max_depth: int | None = None,
        margin: float = 0.15,
        book: bool = True,
        exact: bool = True,
        share: float = 0.5,
        longest: float = 20.0,
    ) -> None:
        if max_depth is not None and int(max_depth) < 1:
            raise ValueError("max_depth must be >= 1")
        if not 0.0 <= float(share) <= 1.0:
            raise ValueError("share must be within [0, 1]")
        if not float(longest) > 0.0:
            raise ValueError("longest must be > 0")
        self.max_depth = None if max_depth is None else int(max_depth)
        self.margin = margin
        self.share = float(share)
        self.longest = float(longest)
        self._solved = SolvedPositions(book=book, exact=exact)
        self._searches: dict[Geometry, Search] = {}

    def _prepare(self) -> float:
        return self._solved.prepare()

    def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
        move = tactical_move(board)
        if move is not None:
            return MoveRecord.since(start, board, *move)
        geo = board.geo
        budget = move_budget(
            clock,
            board.ply,
            geo.size,
            margin=self.margin,
            reserve=BANK_KEPT,
            share=self.share,
            longest=self.longest,
        )
        verdict = self._solved.choose(board, start + budget.solve, refine_deadline=start + budget.total)
        if verdict.move is not None:
            return MoveRecord.since(start, board, *verdict.move, nodes=verdict.nodes or None)
        search = self._searches.get(geo)
        if search is None:
            search = self._searches[geo] = Search(geo, threat_evaluation(geo))
        deadline = budget.search_deadline(start, after_solving=verdict.allowed is not None)
        result = search.best(board, depth=self.max_depth, deadline=deadline, allowed=verdict.allowed)
        return MoveRecord.since(start, board, "search", result.column, depth=result.depth, nodes=result.nodes)


make_agent = agent_factory(Negamax)

agent = make_agent()
