"""``value_net``: a tanh value network over afterstates of the raw board, playing by 1-ply search.

The network (a multilayer perceptron, numpy forward pass here) takes
:func:`agents.features.planes` of a position -- ``2 * rows * columns`` 0/1 inputs, the side to move's
stones first -- through ``tanh`` hidden layers to one ``tanh`` output: the position's value in
(-1, 1) for its side to move, trained on the solver's exact values of positions, discounted a ply
(``training.learners.value_net``). The agent plays the legal move whose afterstate is worth the
most to the mover (:mod:`agents.afterstates`: a winning move is worth 1, a move filling the board 0,
any other minus the network's value of the position after it), valuing all afterstates of a move
in one forward pass. This is the value network of the classic tic-tac-toe exercise (a 9-18-9-3-1
bipolar-sigmoid network trained on game results against itself and a random player) on a ConnectX
board, its targets exact.

Weights: ``agents/data/value_net.npz`` (:mod:`agents.weights`: layer ``i`` as ``w{i}`` of shape
``(inputs, outputs)`` and ``b{i}`` of shape ``(outputs,)``), read through
:func:`agents.resources.read` at the first move, or the file ``weights=PATH``. The network only fits
the board it was trained on (6x7, four in a row, for the shipped file); on any other configuration
the agent plays the one-step lookahead fallback of :mod:`agents.afterstates` (its move's stage
``fallback``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents import resources
from agents.afterstates import OnePly, PositionValues
from agents.engine.board import Geometry
from agents.features import planes
from agents.kit.adapter import Agent, kaggle_agent
from agents.weights import Layers, board_of, layers, load, require

__all__ = ["agent", "evaluator", "forward", "make_agent"]


def forward(layers: Layers, x: np.ndarray) -> np.ndarray:
    """Values ``(n,)`` in (-1, 1) of the inputs ``x`` of shape ``(n, inputs)``: ``tanh`` after every
    layer."""
    for weight, bias in layers:
        x = np.tanh(x @ weight + bias)
    return x[:, 0]


def evaluator(layers: Layers) -> PositionValues:
    """The :data:`agents.afterstates.PositionValues` of the network: one forward pass for all positions."""

    def evaluate(positions: Sequence[int], masks: Sequence[int], geo: Geometry) -> np.ndarray:
        return forward(layers, np.stack([planes(p, m, geo) for p, m in zip(positions, masks, strict=True)]))

    return evaluate


def make_agent(weights: str | None = None) -> Agent:
    """The ``value_net`` agent with the weights file ``weights`` (None: the shipped
    ``agents/data/value_net.npz``).

    A missing ``weights`` path raises ``FileNotFoundError`` here; the file is read at the first move
    (``ValueError`` if it is not a weights file of this network). On a board other than the file's
    the agent plays the one-step fallback.
    """
    require(weights)
    loaded: list[tuple[Geometry, PositionValues]] = []

    def evaluate_for(geo: Geometry) -> PositionValues | None:
        if not loaded:
            arrays = load(weights, shipped=lambda: resources.read("value_net.npz"))
            net = layers(arrays)
            trained_on = board_of(arrays)
            if net[-1][0].shape[1] != 1:
                raise ValueError("weights file has no chain of layers w0, b0, ... ending in one output")
            if net[0][0].shape[0] != 2 * trained_on.size:
                raise ValueError(f"weights file {weights or '(shipped)'} does not fit its own board")
            loaded.append((trained_on, evaluator(net)))
        trained_on, evaluate = loaded[0]
        return evaluate if geo == trained_on else None

    return kaggle_agent(OnePly(evaluate_for))


agent = make_agent()
