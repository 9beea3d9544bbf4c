"""``mcts``: Monte Carlo tree search with uniformly random rollouts, on bitboards.

The search of Kocsis & Szepesvári ("Bandit based Monte-Carlo Planning", ECML 2006): each iteration
walks down the tree, adds one position and values it by playing the game out with uniformly random
legal moves (1 win, 0 draw, -1 loss), and adds that result to every node on the path, each from the
view of the player who moved into it; the move played is the root move with the most visits. This is
the baseline that OpenSpiel's ``MCTSBot`` with its ``RandomRolloutEvaluator`` stands for.

It is the one tree search of :mod:`agents.engine.puct` with :func:`rollout_evaluator` as the
evaluator: a uniform prior over the columns and the playout's result as the value. The walk down
therefore chooses by PUCT's ``Q + c * P * sqrt(N) / (1 + N(a))`` (Silver et al., Nature 2017) with
``P`` one over the children, not by UCT's ``Q + c * sqrt(ln N / N(a))``, and it takes the search's
game knowledge: only the moves that do not lose at once are children, and won and lost positions
are proven up the tree (MCTS-Solver) instead of being played out again.

Around the search: the moves of :func:`agents.kit.tactics.tactical_move` (the only legal move, a win
at once, the only move that does not lose at once) are played without searching. The tree is kept
between moves: when the new position lies at most two plies below the last root, that subtree is
reused. Time: by default ``actTimeout`` minus a margin a move; the overage bank is never drawn on.
"""

from __future__ import annotations

import random

from agents.engine.board import Board, Geometry
from agents.engine.lines import wins_function
from agents.engine.puct import PolicyValue, Puct
from agents.kit.adapter import agent_factory
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.kit.strategy import Strategy
from agents.kit.tactics import tactical_move

__all__ = ["C", "Mcts", "make_agent", "rollout_evaluator"]

C = 4.0
"""The default exploration constant ``c`` (PUCT's, with a prior of one over the children, about 1/7:
hence larger than the network's 2). Against the UCT search with random rollouts (``c`` = √2) that
``mcts`` was before, in game pairs from the built-in balanced suite: 66 % of 110 games at 0.2 s a
move and 75 % of 40 at 1 s; ``c`` from 4 to 8 scored alike (55 % for 2, 53 % for 16 at 0.2 s)."""

MARGIN = 0.25
"""Seconds of ``actTimeout`` left unused: process and referee overhead around the agent's call."""


def rollout_evaluator(geo: Geometry, rng: random.Random) -> PolicyValue:
    """The rollout evaluator of ``geo`` for :class:`agents.engine.puct.Puct`: prior logits ``(columns,)``
    all 0 (a uniform prior) and, as the value, the result of one game from the position played out
    with uniformly random legal moves drawn from ``rng``, for the side to move (1 win, 0 draw, -1
    loss). The position's game must be on."""
    wins = wins_function(geo)
    bottoms, tops, masks, size = geo.bottom_cells, geo.top_cells, geo.column_masks, geo.size
    uniform = [0.0] * geo.columns
    randrange = rng.randrange

    def evaluate(position: int, mask: int, ply: int) -> tuple[list[float], float]:
        cur, msk = position, mask
        legal = [k for k in range(geo.columns) if not msk & tops[k]]
        sign = 1.0  # the result of a win by the player to move now, for the side to move at the start
        while ply < size:
            i = randrange(len(legal))
            column = legal[i]
            cell = (msk + bottoms[column]) & masks[column]
            if cell & wins(cur):
                return uniform, sign
            cur, msk, ply = cur ^ msk, msk | cell, ply + 1
            if msk & tops[column]:
                legal[i] = legal[-1]
                legal.pop()
            sign = -sign
        return uniform, 0.0

    return evaluate


class Mcts(Strategy):
    """The Monte Carlo tree search :class:`~agents.kit.player.Player` (see the module docstring).

    ``c``: PUCT's exploration constant (default :data:`C`); ``rollouts``: the root's visits a move,
    those kept from the last move included (default: as many as ``actTimeout`` minus :data:`MARGIN`
    allows; with it the search ignores the clock and, with a ``seed``, repeats itself exactly);
    ``seconds``: time a move instead of ``actTimeout`` minus :data:`MARGIN`; ``seed`` seeds the
    rollouts. A move's record (:class:`~agents.kit.record.MoveRecord`): stage only/draw/win/block/
    search, with the root's ``visits``, those ``reused`` from the last tree and the ``simulations``
    run by a search. Raises
    ``ValueError`` for ``c < 0``, ``rollouts < 1`` or ``seconds <= 0``.
    """

    def __init__(
        self,
        *,
        c: float = C,
        rollouts: int | None = None,
        seconds: float | None = None,
        seed: int | None = None,
    ) -> None:
        if not c >= 0:
            raise ValueError(f"c must be >= 0, got {c}")
        if rollouts is not None and rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {rollouts}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be > 0, got {seconds}")
        self.c = float(c)
        self.rollouts = rollouts
        self.seconds = seconds
        self.rng = random.Random(seed)
        self._search: Puct | None = None

    def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
        move = tactical_move(board)
        if move is not None:
            return MoveRecord.since(start, board, *move)
        if self._search is None or self._search.geo != board.geo:
            self._search = Puct(board.geo, rollout_evaluator(board.geo, self.rng), self.c)
        if self.rollouts is None:
            seconds = self.seconds if self.seconds is not None else clock.act_timeout - MARGIN
            result = self._search.run(board, deadline=start + max(0.01, seconds))
        else:
            result = self._search.run(board, visits=self.rollouts)
        return MoveRecord.of_tree_search(start, board, "search", result)


make_agent = agent_factory(Mcts)

agent = make_agent()
