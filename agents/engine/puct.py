"""PUCT: Monte Carlo tree search guided by a prior over the moves and a value of the positions.

Monte Carlo tree search (Kocsis & Szepesvári, "Bandit based Monte-Carlo Planning", ECML 2006) with
the selection rule of AlphaZero (Silver et al., "Mastering the game of Go without human knowledge",
Nature 550, 2017, and "A general reinforcement learning algorithm that masters chess, shogi and Go
through self-play", Science 362, 2018): each simulation walks down the tree choosing the move ``a``
of highest

    Q(a) + c * P(a) * sqrt(N) / (1 + N(a))

(``Q`` the mean value of the move for the side choosing, in [-1, 1]; ``P`` the prior; ``N(a)`` its
visits; ``N`` the node's) where UCT chooses by ``Q(a) + c * sqrt(ln N / N(a))``, adds the position
it reaches to the tree, values it with the evaluator, and adds that value to every node on the
path, each from the view of the player who moved into it. A move not yet visited counts the node's
own mean as its ``Q`` (first-play urgency). The move played is the root move with the most visits.

Game knowledge on the bitboards of :mod:`agents.engine.board`, so the evaluator is never asked about a
decided position: a position whose side to move can win at once is a proven loss for the player who
moved into it; one with no move that avoids an immediate loss (:func:`agents.engine.lines.non_losing`) a
proven win; elsewhere only the moves that do not lose at once are children. Proven results go up the
tree as in MCTS-Solver (Winands, Björnsson & Saito, "Monte-Carlo Tree Search Solver", CG 2008): a node
with a child that wins is won, one whose children are all proven takes the best of them, and a proven
node is valued exactly. The tree is kept between moves when the new position lies below the last root.

The evaluator is a callable ``evaluate(position, mask, ply) -> (logits, value)``
(:class:`PolicyValue`): ``logits`` one prior logit a column (the search takes the softmax over the
children), ``value`` the expected result for the side to move in [-1, 1] (1 win, 0 draw, -1 loss).
The search asks it once for every node it adds; :func:`cached` keeps the answers of a deterministic
evaluator for the transpositions. Two evaluators serve this one search, as in OpenSpiel's MCTS (an
``Evaluator`` gives ``prior`` and ``evaluate``): the trained network's policy and value
(:func:`agents.network.agent.puct_search`) and a uniform prior with the result of a random playout
(:func:`agents.mcts.rollout_evaluator`), the Monte Carlo tree search of ``mcts``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.engine.board import Board, Geometry
from agents.engine.lines import non_losing, wins_function

__all__ = ["CACHE_LIMIT", "PolicyValue", "Puct", "PuctResult", "cached"]

CACHE_LIMIT = 400_000
"""Answers :func:`cached` keeps (about 300 bytes each) before it drops them all."""


class PolicyValue(Protocol):
    """Prior logits ``(columns,)`` and value (side to move, in [-1, 1]) of a position whose game is on
    (bitboards of :mod:`agents.engine.board`: ``position`` the side to move's stones, ``mask`` all stones)."""

    def __call__(self, position: int, mask: int, ply: int, /) -> tuple[Sequence[float], float]: ...


def cached(evaluate: PolicyValue) -> PolicyValue:
    """``evaluate`` answering each position once: its answers kept by position (a transposition table
    of the evaluator), all dropped when :data:`CACHE_LIMIT` are kept. Only for an evaluator whose
    answer depends on the position alone."""
    table: dict[int, tuple[Sequence[float], float]] = {}

    def lookup(position: int, mask: int, ply: int) -> tuple[Sequence[float], float]:
        key = position + mask
        hit = table.get(key)
        if hit is None:
            if len(table) >= CACHE_LIMIT:
                table.clear()
            hit = table[key] = evaluate(position, mask, ply)
        return hit

    return lookup


@dataclass(frozen=True, slots=True)
class PuctResult:
    """What :meth:`Puct.run` chose: ``column``, the root ``visits`` (those ``reused`` from the last
    tree included), the ``simulations`` run, and ``proven``: the root's exact result for the side to
    move (1 win, 0 draw, -1 loss) when the tree proves it, else None."""

    column: int
    visits: int
    reused: int
    simulations: int
    proven: int | None


class _Node:
    """A position in the tree. ``columns``: its children's moves (empty for a proven node),
    ``priors`` and ``children`` (a :class:`_Node`, or None until first visited) aligned with them;
    ``visits``; ``total``: values summed for the player who moved into the node; ``proven``: that
    player's exact result (1, 0, -1) or None."""

    __slots__ = ("children", "columns", "key", "priors", "proven", "total", "visits")

    def __init__(self, key: int, columns: list[int], priors: list[float], proven: int | None) -> None:
        self.key = key
        self.columns = columns
        self.priors = priors
        self.children: list[_Node | None] = [None] * len(columns)
        self.visits = 0
        self.total = 0.0
        self.proven = proven


class Puct:
    """PUCT search of one geometry with ``evaluate`` (see the module docstring).

    ``c``: the exploration constant (default 2.0, the value that made the fewest mistakes on Pons'
    test sets with the shipped network; see :mod:`benchmarks.network`). The tree lives as long as the
    object. Raises ``ValueError`` for ``c < 0``.
    """

    def __init__(self, geo: Geometry, evaluate: PolicyValue, c: float = 2.0) -> None:
        if not c >= 0:
            raise ValueError(f"c must be >= 0, got {c}")
        self.geo = geo
        self.evaluate = evaluate
        self.c = float(c)
        self._wins = wins_function(geo)
        self._root: _Node | None = None

    def run(
        self,
        board: Board,
        *,
        deadline: float = math.inf,
        visits: int | None = None,
        allowed: Sequence[int] | None = None,
    ) -> PuctResult:
        """Search ``board`` (its geometry, game on, no move winning at once) until ``deadline``
        (``time.perf_counter()`` seconds) or until the root has ``visits`` visits, whichever comes
        first (at least one simulation); ``allowed`` restricts the root's moves (None: all that do
        not lose at once). Stops early once the root's result is proven. Raises ``ValueError`` when
        the board is of another geometry, the side to move wins at once or ``allowed`` names no legal
        column. The tree is many small objects: callers pause the garbage collector
        (:func:`agents.kit.budget.collector_paused`)."""
        if board.geo != self.geo:
            raise ValueError("the board's geometry is not the search's")
        root = self._root_for(board, allowed)
        reused = root.visits - 1
        target = math.inf if visits is None else visits
        simulations = 0
        clock = time.perf_counter
        while root.proven is None and (root.visits < target and clock() < deadline or not simulations):
            self._simulate(root, board.position, board.mask, board.ply)
            simulations += 1
        column = _best_column(root)
        self._root = root
        return PuctResult(column, root.visits, reused, simulations, _negated(root.proven))

    def _root_for(self, board: Board, allowed: Sequence[int] | None) -> _Node:
        """The node of ``board`` from the last tree (two plies down at most), else a new one; its moves
        restricted to ``allowed``. A reused root is never proven (it may lose moves to ``allowed``)."""
        key = board.key()
        root = None
        if self._root is not None:
            level = [self._root]
            for _ in range(3):
                root = next((node for node in level if node.key == key), None)
                if root is not None:
                    break
                level = [child for node in level for child in node.children if child is not None]
        if root is None or not root.columns:
            root = self._expand(board.position, board.mask, board.ply, key, at_root=True)[0]
        root.proven = None
        if allowed is not None:
            keep = [i for i, column in enumerate(root.columns) if column in allowed]
            if not keep:
                raise ValueError(f"no legal column among {list(allowed)}")
            total = sum(root.priors[i] for i in keep) or 1.0
            root.columns = [root.columns[i] for i in keep]
            root.priors = [root.priors[i] / total for i in keep]
            root.children = [root.children[i] for i in keep]
        root.visits = 1 + sum(child.visits for child in root.children if child is not None)
        return root

    def _expand(
        self, cur: int, msk: int, ply: int, key: int, *, at_root: bool = False
    ) -> tuple[_Node, float]:
        """A new node for the position ``cur``/``msk`` (side to move's stones, all stones) reached
        by a move that did not end the game, and its value for the player who moved into it. Proven
        when the side to move wins at once (-1 for that player; at the root, ``ValueError``) or cannot
        avoid an immediate loss (+1; at the root every legal move is then a child instead). A node
        that is not proven therefore has no move that wins at once."""
        geo = self.geo
        possible = (msk + geo.bottom) & geo.board
        if self._wins(cur) & possible:
            if at_root:
                raise ValueError("the side to move wins at once")
            return _Node(key, [], [], -1), -1.0
        threats = self._wins(cur ^ msk) & ~msk & geo.board
        safe = non_losing(possible, threats)
        if not safe:
            if not at_root:
                return _Node(key, [], [], 1), 1.0
            safe = possible
        masks = geo.column_masks
        columns = [c for c in range(geo.columns) if safe & masks[c]]
        logits, value = self.evaluate(cur, msk, ply)
        chosen = [logits[c] for c in columns]
        top = max(chosen)
        weights = [math.exp(logit - top) for logit in chosen]
        total = sum(weights)
        return _Node(key, columns, [w / total for w in weights], None), -value

    def _simulate(self, root: _Node, cur: int, msk: int, ply: int) -> None:
        """One simulation from ``root`` (the position ``cur``/``msk`` at ``ply``). No node walked
        through has a move that wins at once (see :meth:`_expand`), so a new child is a game that goes
        on or, on a full board, a draw."""
        geo = self.geo
        bottoms, masks, size, select = geo.bottom_cells, geo.column_masks, geo.size, self._select
        node, path = root, [root]
        while True:
            if node.proven is not None:
                value = float(node.proven)
                break
            index = select(node)
            column = node.columns[index]
            cell = (msk + bottoms[column]) & masks[column]
            cur, msk, ply = cur ^ msk, msk | cell, ply + 1
            child = node.children[index]
            if child is not None:
                node = child
                path.append(node)
                continue
            if ply == size:
                child, value = _Node(cur + msk, [], [], 0), 0.0
            else:
                child, value = self._expand(cur, msk, ply, cur + msk)
            node.children[index] = child
            path.append(child)
            break
        for visited in reversed(path):
            visited.visits += 1
            visited.total += value
            value = -value
        if path[-1].proven is not None:
            for visited in reversed(path[:-1]):
                if not _prove(visited):
                    break

    def _select(self, node: _Node) -> int:
        """Index of the child of highest PUCT score (see the module docstring)."""
        scale = self.c * math.sqrt(node.visits)
        first_play = -node.total / node.visits  # a node is visited before it is walked through
        priors = node.priors
        best, best_score = 0, -math.inf
        for i, child in enumerate(node.children):
            if child is None:
                score = first_play + scale * priors[i]
            elif child.proven is None:
                score = child.total / child.visits + scale * priors[i] / (1 + child.visits)
            else:
                score = child.proven + scale * priors[i] / (1 + child.visits)
            if score > best_score:
                best, best_score = i, score
        return best


def _prove(node: _Node) -> bool:
    """Set ``node.proven`` from its children when they decide it (MCTS-Solver); True if it changed."""
    if node.proven is not None:
        return False
    proven = [None if child is None else child.proven for child in node.children]
    if 1 in proven:
        node.proven = -1
        return True
    decided = [value for value in proven if value is not None]
    if len(decided) < len(proven):
        return False
    node.proven = -max(decided)
    return True


def _negated(result: int | None) -> int | None:
    return None if result is None else -result


def _best_column(root: _Node) -> int:
    """The column to play: a proven win, else the most visited move not proven lost (the prior breaks
    ties), else the most visited."""
    entries = [
        (child.proven if child is not None else None, child.visits if child is not None else 0, prior, column)
        for child, prior, column in zip(root.children, root.priors, root.columns, strict=True)
    ]
    wins = [entry for entry in entries if entry[0] == 1]
    if wins:
        return wins[0][3]
    alive = [entry for entry in entries if entry[0] != -1] or entries
    return max(alive, key=lambda entry: (entry[1], entry[2]))[3]
