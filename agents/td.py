"""``td``: alpha-beta search with a small MLP evaluation learnt by TD(lambda) in self-play.

The evaluation (:func:`value`) is a multilayer perceptron over the board features of
:func:`agents.features.features` divided by :data:`SCALE` -- ten counts (open twos and threes,
centre stones, threats, playable threats, each side's) that mean the same on every board, so the
one set of weights plays any ConnectX configuration with no fallback. Shapes: input ``(10,)``,
one hidden layer of ``H`` tanh units (``w1`` ``(10, H)``, ``b1`` ``(H,)``), a tanh output (``w2``
``(H,)``, ``b2`` ``()``): the value in ``[-1, 1]`` of the position for the side to move. The
weights were learnt by ``training.learners.td``: temporal-difference learning with eligibility
traces (Sutton, "Learning to predict by the methods of temporal differences", Machine Learning 3,
1988) from self-play, as in TD-Gammon (Tesauro, "Temporal difference learning and TD-Gammon",
Communications of the ACM 38(3), 1995).

Each move (:class:`Td`), with the garbage collector off: the only legal move, a move that wins at
once, or the only move that does not let the opponent win at once is played without search (stage
``only``/``win``/``block``); on a board where no line fits, the first legal move (``draw``): the
tactics of :func:`agents.kit.tactics.tactical_move`. Otherwise :class:`agents.engine.search.Search`
(alpha-beta negamax with tactics and a transposition table) values the leaves with the MLP scaled by
:data:`VALUE_SCALE`, strictly inside ``±DECIDED``; moves are ordered centre first with the
transposition table's best move first, the table filled by the search's own iterative deepening.
Time: iterative deepening until ``actTimeout`` minus ``margin`` (``move_budget(...).total`` of
:mod:`agents.kit.budget`; the overage bank is never drawn on), or until ``seconds`` when given;
``depth`` caps the depth, and alone (``seconds`` 0) makes every move one search of exactly that
depth.

Weights: ``agents/data/td.npz`` (:mod:`agents.weights`, read through :func:`agents.resources.read`),
or a file given as ``weights=PATH``; read at the first move and cached. The shipped weights:
``training.learners.td.TDLearner(geometry(6, 7, 4), seed=0)`` (32 hidden units, defaults) trained on
8000 self-play games, 42 CPU-seconds on one thread.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from agents import resources
from agents.engine.board import Board, Geometry
from agents.engine.search import Evaluate, Search
from agents.features import features
from agents.kit.adapter import agent_factory
from agents.kit.budget import move_budget
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.kit.strategy import Strategy
from agents.kit.tactics import tactical_move
from agents.weights import load, require

__all__ = ["SCALE", "VALUE_SCALE", "Td", "agent", "evaluation", "inputs", "make_agent", "value"]

SCALE = np.array([8.0, 8.0, 4.0, 4.0, 8.0, 8.0, 4.0, 4.0, 2.0, 2.0])
"""Divisors of :func:`agents.features.features` (in the order of ``FEATURES``): typical counts of
6x7 middle games, so that the MLP's inputs are mostly within ``[0, 2]``."""

VALUE_SCALE = 100_000
"""Search units of a value of 1 (far inside ``agents.engine.search.DECIDED``)."""

_shipped: list[dict[str, np.ndarray]] = []
"""The shipped weights, read once for all players; a user's file is read by each player that plays
it (the same path may hold new weights later: ``connectx train`` rewrites it before each
evaluation)."""


def inputs(position: int, mask: int, geo: Geometry) -> np.ndarray:
    """The MLP's input for a position (bitboards, side to move's view): float64 ``(10,)``."""
    scaled: np.ndarray = features(position, mask, geo) / SCALE
    return scaled


def value(weights: Mapping[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The MLP's values in ``[-1, 1]`` for inputs ``x`` of shape ``(..., 10)``: shape ``(...)``."""
    hidden = np.tanh(x @ weights["w1"] + weights["b1"])
    values: np.ndarray = np.tanh(hidden @ weights["w2"] + weights["b2"])
    return values


def evaluation(weights: Mapping[str, np.ndarray], geo: Geometry) -> Evaluate:
    """The search's evaluation (:class:`agents.engine.search.Evaluate`) on ``geo``: :func:`value` of the
    position for the side to move times :data:`VALUE_SCALE`, rounded to an integer."""
    w1 = np.asarray(weights["w1"], np.float64) / SCALE[:, None]  # folds the input scaling in
    b1 = np.asarray(weights["b1"], np.float64)
    w2 = np.asarray(weights["w2"], np.float64)
    b2 = float(weights["b2"])
    tanh = np.tanh

    def evaluate(position: int, mask: int, ply: int) -> int:
        hidden = tanh(features(position, mask, geo) @ w1 + b1)
        return round(VALUE_SCALE * float(tanh(float(hidden @ w2) + b2)))

    return evaluate


def _load(path: str | None) -> dict[str, np.ndarray]:
    if path is not None:
        return load(path, shipped=lambda: resources.read("td.npz"))
    if not _shipped:
        _shipped.append(load(None, shipped=lambda: resources.read("td.npz")))
    return _shipped[0]


class Td(Strategy):
    """The ``td`` :class:`~agents.kit.player.Player` (see the module docstring).

    ``weights``: path of a weights file (None: the shipped ``agents/data/td.npz``), read at the first
    move; a path that is not a file raises ``FileNotFoundError`` here. ``depth``: plies of a
    fixed-depth search (0: iterative deepening for the move's time); ``seconds``: seconds of search a
    move instead of ``actTimeout - margin`` (with ``depth`` > 0 as well: iterative deepening capped at
    ``depth``).

    A move's record (:class:`~agents.kit.record.MoveRecord`): stage only/draw/win/block/search, with
    the ``depth`` and ``nodes`` of a search. Searches
    (one a board geometry) live as long as the player. Raises ``ValueError`` for a negative
    ``depth``, ``seconds`` or ``margin``.
    """

    def __init__(
        self, weights: str | None = None, depth: int = 0, seconds: float = 0.0, margin: float = 0.15
    ) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
        for name, number in (("seconds", seconds), ("margin", margin)):
            if isinstance(number, bool) or not isinstance(number, int | float) or not number >= 0:
                raise ValueError(f"{name} must be a number >= 0, got {number!r}")
        require(weights)
        self.weights = weights
        self.depth = depth
        self.seconds = float(seconds)
        self.margin = float(margin)
        self._searches: dict[Geometry, Search] = {}

    # Like negamax's: the kit's tactics first, then this agent's own search (its evaluation differs).
    def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
        move = tactical_move(board)
        if move is not None:
            return MoveRecord.since(start, board, *move)
        geo = board.geo
        search = self._searches.get(geo)
        if search is None:
            evaluate = evaluation(_load(self.weights), geo)
            search = self._searches[geo] = Search(geo, evaluate, check_every=256)  # clock read ~every 10 ms
        if self.depth and not self.seconds:
            result = search.best(board, depth=self.depth)
        else:
            seconds = self.seconds or move_budget(clock, board.ply, geo.size, margin=self.margin).total
            result = search.best(board, depth=self.depth or None, deadline=start + seconds)
        return MoveRecord.since(start, board, "search", result.column, depth=result.depth, nodes=result.nodes)


make_agent = agent_factory(Td)

agent = make_agent()
