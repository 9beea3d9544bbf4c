"""``ppo``: the course's PPO agent, trained with action masks; tactics, then its policy's likeliest column.

Kaggle Learn's ConnectX course ends by training Stable-Baselines3's PPO (Schulman et al., "Proximal
Policy Optimization Algorithms", 2017) in a Gym wrapper of the game, with a small CNN, for 60,000
steps; its agent wins 68 % of its games against ``random``. This agent is that policy network trained
by :mod:`training.learners.ppo` through :class:`training.envs.ConnectXEnv` (sb3-contrib's ``MaskablePPO``:
the policy never puts probability on a full column). Here only its forward pass runs, in numpy.

How it plays: the position as two channel-first planes (:func:`agents.features.planes` reshaped to
``(2, rows, columns)``: the side to move's stones, then the other side's, row 0 on top), then the
course's network:

* two 3x3 convolutions without padding, 2 -> 32 -> 64 channels, ReLU each;
* flattened (channel, row, column), a dense layer to 128, ReLU (the course's ``CustomCNN``);
* the policy's hidden layers, tanh (Stable-Baselines3's default ``pi=[64, 64]``);
* a dense layer to one logit per column.

It plays the legal column with the highest logit (full columns are masked out; no search), the
policy's mode: deterministic. Before the policy, unless ``tactics=false``, the moves every built-in
agent makes without thinking (:func:`agents.kit.tactics.tactical_move`: the only legal column, a win
at once, the one move that does not lose at once): the policy alone misses many of them (docs/rl.md
gives both scores).

Weights: a file of :mod:`agents.weights` holding ``conv0``, ``conv0_bias``, ``conv1``, ``conv1_bias``
(kernels of shape ``(out, in, 3, 3)``, PyTorch's layout) and ``w0, b0, w1, b1, ...`` (``w{i}`` of
shape ``(inputs, outputs)``: ``w0`` the features layer, the last the logits, the others the policy's
hidden layers), float32. ``weights=None`` plays the shipped ``agents/data/ppo.npz`` (6x7, four in a
row); ``weights=PATH`` a file of yours (``FileNotFoundError`` from :func:`make_agent` when missing).

Other boards: the weights are those of one board, so elsewhere the agent plays the one-step fallback
(the legal column of highest :func:`agents.one_step.score_moves` score, ties to the centre); the
record of each move (:class:`~agents.kit.record.MoveRecord`) says so with its stage, ``"fallback"``
(``"policy"`` when the network chose, the tactics' stage, such as ``"win"`` or ``"block"``, when they
did).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from agents import resources
from agents.afterstates import best_column, one_step_values
from agents.engine.board import Board, Geometry
from agents.features import planes
from agents.kit.adapter import agent_factory
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.kit.tactics import tactical_move
from agents.weights import Layers, board_of, layers, load, require

__all__ = ["PPO", "Policy", "agent", "logits", "make_agent"]

CONVOLUTIONS = 2
"""The convolutions of the features extractor, ``conv0`` and ``conv1``."""


class Policy:
    """The policy network of a loaded weights file (the module docstring gives its layers); ``geo`` is
    the board it was trained on. Raises ``ValueError`` when a convolution is missing or the shapes do
    not chain."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.geo = board_of(arrays)
        self.convolutions: list[tuple[np.ndarray, np.ndarray]] = []
        for i in range(CONVOLUTIONS):
            if f"conv{i}" not in arrays or f"conv{i}_bias" not in arrays:
                raise ValueError(f"the weights file has no convolution conv{i}")
            kernel = np.asarray(arrays[f"conv{i}"], np.float32)
            bias = np.asarray(arrays[f"conv{i}_bias"], np.float32)
            if kernel.ndim != 4 or bias.shape != (kernel.shape[0],):
                raise ValueError(f"convolution {i} has shapes {kernel.shape} and {bias.shape}")
            self.convolutions.append((kernel, bias))
        self.dense: Layers = layers(arrays)
        channels = self.convolutions[-1][0].shape[0]
        shrink = sum(kernel.shape[2] - 1 for kernel, _ in self.convolutions)
        flat = channels * (self.geo.rows - shrink) * (self.geo.columns - shrink)
        if (
            len(self.dense) < 2
            or self.dense[0][0].shape[0] != flat
            or self.dense[-1][0].shape[1] != self.geo.columns
        ):
            raise ValueError("the dense layers do not fit the convolutions and the board")


def _convolve(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Cross-correlation of ``x`` ``(channels, rows, columns)`` with ``kernel`` ``(out, channels, k,
    k)``, no padding, stride 1 (``torch.nn.Conv2d(padding=0)``), plus ``bias``: ``(out, rows - k + 1,
    columns - k + 1)``."""
    k = kernel.shape[2]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))  # (c, r', c', k, k)
    out: np.ndarray = np.einsum("chwij,ocij->ohw", windows, kernel, optimize=True) + bias[:, None, None]
    return out


def logits(policy: Policy, x: np.ndarray) -> np.ndarray:
    """The policy's logits, float32 ``(columns,)``, for planes ``x`` of shape ``(2, rows, columns)``."""
    for kernel, bias in policy.convolutions:
        x = np.maximum(_convolve(x, kernel, bias), 0.0)
    h = x.reshape(-1)
    w, b = policy.dense[0]
    h = np.maximum(h @ w + b, 0.0)
    for w, b in policy.dense[1:-1]:
        h = np.tanh(h @ w + b)
    w, b = policy.dense[-1]
    out: np.ndarray = h @ w + b
    return out


class PPO:
    """The ``ppo`` :class:`~agents.kit.player.Player`. ``weights``: a path, or None for the shipped file,
    read at the first move (``FileNotFoundError`` here when the path is no file; ``ValueError`` at
    the first move when it is not a ppo weights file); ``tactics=False``: the policy alone, without
    the moves made without thinking (the module docstring). The stage of its records is
    ``"policy"``, ``"fallback"`` or the tactics'. Raises ``ValueError`` when asked to play a
    finished game."""

    def __init__(self, weights: str | None = None, tactics: bool = True) -> None:
        require(weights)
        self.weights = weights
        self.tactics = tactics
        self._policy: Policy | None = None

    def _load(self) -> Policy:
        if self._policy is None:
            self._policy = Policy(load(self.weights, shipped=lambda: resources.read("ppo.npz")))
        return self._policy

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        if board.is_game_over():
            raise ValueError("the game is already over")
        policy = self._load()
        if self.tactics and (tactical := tactical_move(board)) is not None:
            return MoveRecord.since(start, board, *tactical)
        geo: Geometry = board.geo
        if geo != policy.geo:
            return MoveRecord.since(start, board, "fallback", best_column(one_step_values(board)))
        x = planes(board.position, board.mask, geo).reshape(2, geo.rows, geo.columns)
        scores = logits(policy, x)
        legal = board.legal_moves()
        return MoveRecord.since(start, board, "policy", legal[int(np.argmax(scores[legal]))])


make_agent = agent_factory(PPO)


agent = make_agent()
