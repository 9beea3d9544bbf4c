"""``network``: the trained policy/value network as a ConnectX agent (numpy only, no framework).

* ``network`` (``depth=0``): the network alone -- the legal column with the highest policy logit.
  No search and no hand-written rules.
* ``network:depth=N`` (N >= 1): :class:`agents.search.Search` N plies deep with the network's value
  ``P(win) - P(loss)`` (side to move, in [-1, 1]) as the evaluation, as in the TD-trained evaluation of
  KnightCap used inside alpha-beta (Baxter, Tridgell & Weaver 1998): the children of a node one ply
  above the horizon are valued in one batched forward pass, moves are ordered by the policy, and the
  search's tactics score exactly the positions where a move wins or lets the opponent win at once.
* ``network:seconds=S``: the same search by iterative deepening within about ``S`` seconds a move.

Weights: ``agents/data/network.npz`` read through :func:`agents.resources.read` (float16, converted
to float32); see ``agents/data/network.md`` for how they were made. The network knows only the board
of :mod:`agents.network.features` (6x7, four in a row); on any other configuration the agent plays
:mod:`agents.negamax` instead (a network input of another shape would be meaningless, and every agent
must play every configuration).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from agents import resources
from agents.adapter import Agent, Clock, kaggle_agent
from agents.board import Board, geometry
from agents.negamax import Negamax
from agents.network.features import COLUMNS, INAROW, ROWS, encode_batch
from agents.network.numpy_forward import Weights, forward, load_weights, value_of
from agents.search import Search

__all__ = [
    "Network",
    "agent",
    "best_move",
    "make_agent",
    "make_agent_from_weights",
    "network_search",
    "policy_logits",
]

GEOMETRY = geometry(ROWS, COLUMNS, INAROW)
"""The board the network plays (:mod:`agents.network.features`)."""

_cache: dict[str, Weights] = {}


def _shipped_weights() -> Weights:
    if "network" not in _cache:
        _cache["network"] = load_weights(resources.read("network.npz"))
    return _cache["network"]


def _forward(
    weights: Mapping[str, np.ndarray], positions: list[int], masks: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Policy and value logits of the positions given as bitboards (:func:`forward`)."""
    return forward(weights, encode_batch(np.array(positions, np.uint64), np.array(masks, np.uint64)))


def policy_logits(weights: Mapping[str, np.ndarray], board: Board) -> np.ndarray:
    """Policy logits ``(COLUMNS,)`` (float64) of ``board`` (the network's board), illegal columns ``-inf``."""
    logits = _forward(weights, [board.position], [board.mask])[0][0].astype(np.float64)
    for c in range(COLUMNS):
        if not board.can_play(c):
            logits[c] = -np.inf
    return logits


def network_search(weights: Mapping[str, np.ndarray]) -> Search:
    """The :class:`agents.search.Search` of the network's board with ``weights``: the value head as the
    evaluation (one position or a batch), the policy logits as the move order, the clock read at every
    node (a node costs a forward pass)."""

    def value(position: int, mask: int, ply: int) -> float:
        return float(value_of(_forward(weights, [position], [mask])[1])[0])

    def batch(positions: list[int], masks: list[int], ply: int) -> list[float]:
        return value_of(_forward(weights, positions, masks)[1]).tolist()

    def order(position: int, mask: int, ply: int, columns: list[int]) -> list[int]:
        logits = _forward(weights, [position], [mask])[0][0]
        return sorted(columns, key=lambda c: -logits[c])

    return Search(GEOMETRY, value, batch=batch, order=order, check_every=1)


def best_move(weights: Mapping[str, np.ndarray], board: Board, depth: int = 0, seconds: float = 0.0) -> int:
    """The column the agent plays on ``board`` (the network's board, game on, a legal move exists).

    ``seconds`` 0: ``depth`` 0 is the argmax of the policy over legal columns; ``depth`` >= 1 a search
    of that many plies (:func:`network_search`); among equal values the higher policy logit wins.
    ``seconds`` > 0: iterative deepening from depth 1 until ``seconds`` (wall clock) have passed,
    capped at ``depth`` plies when ``depth`` > 0; the deepest completed iteration is played (depth 1
    always completes). Searches stop early once a win or loss is proved.
    """
    if depth <= 0 and seconds <= 0:
        return int(np.argmax(policy_logits(weights, board)))
    search = network_search(weights)
    if seconds <= 0:
        return search.best(board, depth=depth).column
    deadline = time.perf_counter() + seconds
    return search.best(board, depth=depth if depth > 0 else None, deadline=deadline).column


def _check(depth: int, seconds: float) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds >= 0:
        raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")


class Network:
    """The network :class:`~agents.player.Player`: :func:`best_move` on the network's board, a
    :class:`~agents.negamax.Negamax` player on any other. ``weights`` None: the shipped weights, read
    at the first move (``FileNotFoundError`` if the file is missing). Raises ``ValueError`` for a
    negative depth or time, and when asked to play a finished game."""

    def __init__(
        self, weights: Mapping[str, np.ndarray] | None = None, depth: int = 0, seconds: float = 0.0
    ) -> None:
        _check(depth, seconds)
        self.weights = weights
        self.depth = depth
        self.seconds = seconds
        self._fallback: Negamax | None = None

    def play(self, board: Board, clock: Clock) -> int:
        if board.geo != GEOMETRY:
            if self._fallback is None:
                self._fallback = Negamax()
            return self._fallback.play(board, clock)
        if board.winner() is not None:
            raise ValueError("the game is already over")
        weights = _shipped_weights() if self.weights is None else self.weights
        return best_move(weights, board, self.depth, self.seconds)


def make_agent_from_weights(weights: Mapping[str, np.ndarray], depth: int = 0, seconds: float = 0.0) -> Agent:
    """The Kaggle agent of a :class:`Network` player with ``weights``; raises ``ValueError`` for a
    negative depth or time."""
    return kaggle_agent(Network(weights, depth, seconds))


def make_agent(depth: int = 0, seconds: float = 0.0) -> Agent:
    """The ``network`` agent with the shipped weights (``agents/data/network.npz``).

    ``network`` (depth 0) is the network alone; ``network:depth=N`` adds an N-ply alpha-beta search
    with the network as evaluation; ``network:seconds=S`` searches by iterative deepening for about
    ``S`` seconds a move (``depth`` then caps the depth). Raises ``ValueError`` for a negative depth or
    time. The weights are read at the first move (``FileNotFoundError`` if the file is missing).
    """
    return kaggle_agent(Network(None, depth, seconds))


agent = make_agent()
