"""``mcts``: Monte Carlo tree search (UCT) with uniformly random rollouts, on bitboards.

UCT (Kocsis & Szepesvári, "Bandit based Monte-Carlo Planning", ECML 2006): each iteration walks
down the tree choosing the child of highest ``mean + c * sqrt(ln N / n)`` (``mean`` the child's
average result for the player who moved into it, ``n`` its visits, ``N`` its parent's), adds one
child, plays the game out with uniformly random legal moves and adds the result (1 win, 0.5 draw,
0 loss) to every node on the path, each from the view of the player who moved into it. The move
played is the root child with the most visits. This is the baseline that OpenSpiel's ``MCTSBot``
(random rollouts) stands for.

Around the search: a winning move is played at once; when the opponent threatens to win, only the
moves that do not lose at once are searched (:meth:`agents.engine.board.Board.non_losing_moves`). The tree
is kept between moves: when the new position lies two plies below the last root, that subtree is
reused. Time: by default ``actTimeout`` minus a margin a move; the overage bank is never drawn on.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from agents.engine.board import Board, Geometry
from agents.engine.lines import wins_function
from agents.kit.adapter import Agent, Clock, kaggle_agent

__all__ = ["Mcts", "make_agent"]

MARGIN = 0.25
"""Seconds of ``actTimeout`` left unused: process and referee overhead around the agent's call."""


class _Node:
    """A position in the tree: ``untried`` columns not expanded yet, ``children`` column -> node,
    ``visits``, ``total`` (results summed for the player who moved into this node) and ``end``: the
    result of a finished game for that player (None while the game goes on)."""

    __slots__ = ("children", "end", "key", "total", "untried", "visits")

    def __init__(self, key: int, untried: list[int], end: float | None) -> None:
        self.key = key
        self.untried = untried
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.end = end


class Mcts:
    """The UCT :class:`~agents.kit.player.Player` (see the module docstring).

    ``c``: the exploration constant (default √2); ``rollouts``: iterations a move (then the search
    ignores the clock and, with a ``seed``, repeats itself exactly); ``seconds``: time a move instead
    of ``actTimeout`` minus :data:`MARGIN`; ``seed`` seeds the rollouts. ``last_move`` tells the
    stage (win/only/search), the visits ``reused`` from the last tree, the ``iterations`` run and the
    ``seconds`` of the last move. Raises ``ValueError``
    for ``c < 0``, ``rollouts < 1`` or ``seconds <= 0``.
    """

    def __init__(
        self,
        c: float = math.sqrt(2),
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
        self.last_move: dict[str, object] = {}
        self._root: _Node | None = None
        self._geo: Geometry | None = None

    def play(self, board: Board, clock: Clock) -> int:
        start = time.perf_counter()
        self.last_move.clear()
        self.last_move["ply"] = board.ply
        legal = board.legal_moves()
        wins = board.winning_moves()
        if wins:
            return self._note("win", board.columns(wins)[0], 0, start)
        safe = board.non_losing_moves()
        candidates = board.columns(safe) if safe else legal
        if len(candidates) == 1:
            return self._note("only", candidates[0], 0, start)
        root = self._reuse(board, candidates)
        self.last_move["reused"] = root.visits
        if self.rollouts is None:
            seconds = self.seconds if self.seconds is not None else clock.act_timeout - MARGIN
            deadline = start + max(0.01, seconds)
            iterations = _search(root, board, self.c, self.rng, deadline=deadline)
        else:
            iterations = _search(root, board, self.c, self.rng, count=self.rollouts)
        column = max(root.children.items(), key=lambda item: (item[1].visits, -item[0]))[0]
        self._root, self._geo = root.children[column], board.geo
        return self._note("search", column, iterations, start)

    def _reuse(self, board: Board, candidates: list[int]) -> _Node:
        """The subtree of the last search at this position, else a new root; its untried columns are
        restricted to ``candidates`` (a child outside them is dropped)."""
        key = board.position + board.mask
        root = None
        if self._root is not None and self._geo == board.geo:
            root = next((node for node in self._root.children.values() if node.key == key), None)
        if root is None:
            root = _Node(key, [], None)
        root.children = {c: node for c, node in root.children.items() if c in candidates}
        root.untried = [c for c in candidates if c not in root.children]
        root.visits = sum(node.visits for node in root.children.values())
        return root

    def _note(self, stage: str, column: int, iterations: int, start: float) -> int:
        if stage != "search":
            self._root = None
        self.last_move.update(stage=stage, iterations=iterations, seconds=time.perf_counter() - start)
        return column


def _search(
    root: _Node, board: Board, c: float, rng: random.Random, *, deadline: float = math.inf, count: int = 0
) -> int:
    """Run UCT iterations from ``root`` (the position of ``board``) until ``deadline``
    (``time.perf_counter()`` seconds) or, with ``count``, that many; return the number run."""
    geo = board.geo
    wins = wins_function(geo)
    bottoms, tops, size = geo.bottom_cells, geo.top_cells, geo.size
    randrange, log, sqrt, clock = rng.randrange, math.log, math.sqrt, time.perf_counter
    done = 0
    while (done < count) if count else (clock() < deadline or not done):
        cur, msk, ply = board.position, board.mask, board.ply
        node, path = root, [root]
        # Selection: down through fully expanded nodes.
        while not node.untried and node.children and node.end is None:
            scale = c * sqrt(log(node.visits))
            best, best_value = None, -1.0
            for column, child in node.children.items():
                value = child.total / child.visits + scale / sqrt(child.visits)
                if value > best_value:
                    best, best_value = column, value
            node = node.children[best]
            cur, msk, ply = cur ^ msk, msk | (msk + bottoms[best]), ply + 1
            path.append(node)
        # Expansion: one new child, unless the game is over.
        if node.end is None and node.untried:
            column = node.untried.pop(randrange(len(node.untried)))
            cell = (msk + bottoms[column]) & geo.column_masks[column]
            won = bool(cell & wins(cur))
            cur, msk, ply = cur ^ msk, msk | cell, ply + 1
            end = 1.0 if won else (0.5 if ply == size else None)
            untried = [] if end is not None else [k for k in range(geo.columns) if not msk & tops[k]]
            child = _Node(cur + msk, untried, end)
            node.children[column] = child
            node = child
            path.append(node)
        # Rollout: the result for the player who moved into ``node``.
        result = node.end if node.end is not None else _rollout(cur, msk, ply, geo, wins, randrange)
        for visited in reversed(path):
            visited.visits += 1
            visited.total += result
            result = 1.0 - result
        done += 1
    return done


def _rollout(
    cur: int, msk: int, ply: int, geo: Geometry, wins: Callable[[int], int], randrange: Callable[[int], int]
) -> float:
    """Play uniformly random moves from the position (``cur`` the stones of the side to move) to the
    end; return the result for the player who moved last before it (1 win, 0.5 draw, 0 loss)."""
    bottoms, tops, masks, size = geo.bottom_cells, geo.top_cells, geo.column_masks, geo.size
    legal = [k for k in range(geo.columns) if not msk & tops[k]]
    mover = 0  # 0: the side to move at the start, 1: the other
    while ply < size:
        i = randrange(len(legal))
        column = legal[i]
        cell = (msk + bottoms[column]) & masks[column]
        if cell & wins(cur):
            return 0.0 if mover == 0 else 1.0
        cur, msk, ply = cur ^ msk, msk | cell, ply + 1
        if msk & tops[column]:
            legal[i] = legal[-1]
            legal.pop()
        mover ^= 1
    return 0.5


def make_agent(
    *,
    c: float = math.sqrt(2),
    rollouts: int | None = None,
    seconds: float | None = None,
    seed: int | None = None,
) -> Agent:
    """The Kaggle agent of an :class:`Mcts` player: ``c`` exploration constant, ``rollouts`` a move
    (default: as many as ``actTimeout`` minus :data:`MARGIN` allows), ``seconds`` a move instead,
    ``seed`` for the rollouts. Raises ``ValueError`` on the bad values :class:`Mcts` names. The
    agent's ``last_move`` attribute is the player's."""
    return kaggle_agent(Mcts(c, rollouts, seconds, seed))


agent = make_agent()
