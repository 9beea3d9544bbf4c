"""``q_net``: a Q-network trained by self-play DQN; plays the legal column of highest Q (numpy only).

How it plays: the position, as :func:`agents.features.planes` (side to move first, ``2 * rows *
columns`` inputs), goes through a small multilayer perceptron -- ReLU hidden layers, a linear output
of one action value ``Q(s, a)`` per column -- and the agent plays the legal column with the highest
value (full columns are masked out; no search). ``Q(s, a)`` estimates the final result for the side
to move after playing ``a`` (+1 win, -1 loss, 0 draw, discounted by the number of plies), the
action-value of Q-learning (Watkins & Dayan, *Machine Learning* 8, 1992) learned as in DQN (Mnih et
al., *Nature* 518, 2015); :mod:`training.learners.q_net` trains it.

Weights: a file of :mod:`agents.weights` holding ``w0, b0, w1, b1, ...`` (float32; ``w{i}`` of shape
``(inputs, outputs)`` of layer ``i``, the last layer's outputs one per column). ``weights=None``
plays the shipped ``agents/data/q_net.npz`` (6x7, four in a row); ``weights=PATH`` a file of yours,
which must exist when the agent is made (``FileNotFoundError`` from :func:`make_agent`). Weights are
read at the first move and kept by the agent (the shipped ones by the module).
The shipped network (84 inputs, two hidden layers of 128, 7 outputs) was trained by ``connectx
train q_net --games 1500`` (seed 0; 1500 self-play games, three in four from balanced openings,
exact targets from the solver; 394 CPU seconds); it scores 96 % against ``random`` from the
tournament's balanced openings (80 games, 77 won, 3 lost) and 15 % against ``one_step`` (the run's
last evaluation, 20 games): it has learned to beat aimless play, not to look ahead.

Other boards: raw-board inputs mean nothing on a board other than the weights', so there the agent
plays the one-step fallback -- the legal column of highest :func:`agents.one_step.score_moves`
score, ties to the column nearest the centre -- and its move's record has stage ``fallback``
(``q`` when the network chose).
"""

from __future__ import annotations

import time

import numpy as np

from agents import resources
from agents.afterstates import best_column, one_step_values
from agents.engine.board import Board, Geometry
from agents.features import planes
from agents.kit.adapter import agent_factory
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.weights import Layers, board_of, layers, load, require

__all__ = ["QNet", "agent", "make_agent", "q_values"]

_shipped: list[tuple[Layers, Geometry]] = []


def q_values(net: Layers, x: np.ndarray) -> np.ndarray:
    """Action values of inputs ``x`` of shape ``(batch, inputs)`` (float32): ``(batch, outputs)``.
    ReLU after every layer but the last."""
    for w, b in net[:-1]:
        x = np.maximum(x @ w + b, 0.0)
    w, b = net[-1]
    return x @ w + b


def _fits(net: Layers, geo: Geometry) -> bool:
    return bool(net[0][0].shape[0] == 2 * geo.size and net[-1][0].shape[1] == geo.columns)


class QNet:
    """The ``q_net`` :class:`~agents.kit.player.Player`. ``weights``: a path, or None for the shipped
    file, read at the first move (``FileNotFoundError`` here when the path is no file; ``ValueError``
    at the first move when it is not a q_net weights file). A move's stage is ``q`` or ``fallback``
    (see the module docstring). Raises ``ValueError`` when asked to play a finished
    game."""

    def __init__(self, weights: str | None = None) -> None:
        require(weights)
        self.weights = weights
        self._loaded: tuple[Layers, Geometry] | None = None

    def _load(self) -> tuple[Layers, Geometry]:
        if self._loaded is None:
            if self.weights is None and _shipped:
                self._loaded = _shipped[0]
            else:
                arrays = load(self.weights, shipped=lambda: resources.read("q_net.npz"))
                self._loaded = (layers(arrays), board_of(arrays))
                if self.weights is None:
                    _shipped.append(self._loaded)
        return self._loaded

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        if board.is_game_over():
            raise ValueError("the game is already over")
        net, trained_on = self._load()
        if board.geo != trained_on or not _fits(net, board.geo):
            return MoveRecord.since(start, board, "fallback", best_column(one_step_values(board)))
        q = q_values(net, planes(board.position, board.mask, board.geo)[None])[0]
        legal = board.legal_moves()
        return MoveRecord.since(start, board, "q", legal[int(np.argmax(q[legal]))])


make_agent = agent_factory(QNet)

agent = make_agent()
