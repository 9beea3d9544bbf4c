"""Trainer of ``lms``: LMS (Widrow-Hoff) on a linear evaluation of board features, from self-play.

Mitchell, *Machine Learning* (1997), ch. 1.2: the evaluation ``V(b) = tanh(w . x(b))``
(:mod:`agents.lms`) is fitted to training values ``V_train(b)`` taken from the current estimate
of the successor position. Here the successor of a position is the position one move later (the
opponent to move), so ``V_train(b) = -V(successor)``; when the move ends the game it is the mover's
result, +1 win, -1 loss, 0 draw. After each game every position, in the order played, gets
``w += eta * (V_train(b) - V(b)) * (1 - V(b)^2) * x(b)``: the LMS rule through the tanh squash
(``1 - V^2`` is its derivative), i.e. a gradient step on ``(V_train - V)^2 / 2``.

Training games are self-play through :func:`training.selfplay.play`, both sides the agent's 1-ply
search with epsilon-greedy exploration (:data:`EPSILON`): a deterministic player against itself
would replay one game forever. A position whose move was random gets no update, since its successor
tells nothing of the value of the position under the policy (Sutton & Barto, 2018, sec. 1.5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents import weights
from agents.afterstates import OnePly
from agents.engine.board import Geometry
from agents.lms import INPUTS, evaluator, inputs
from training.learners.explore import EpsilonGreedy
from training.selfplay import Trajectory, play

__all__ = ["EPSILON", "ETA", "LMSLearner"]

ETA = 0.01
"""LMS learning rate."""
EPSILON = 0.1
"""Chance that a training move is a uniformly random legal column."""


class LMSLearner:
    """The ``lms`` trainer on the board ``geo`` (:class:`training.learners.Learner`); weights start
    at zero, the exploration draws from a generator seeded by ``seed``."""

    def __init__(self, geo: Geometry, seed: int) -> None:
        self.geo = geo
        self.w = np.zeros(INPUTS)
        self.rng = np.random.default_rng(seed)
        self.games = 0

    def train(self, games: int) -> dict[str, float]:
        """Play and learn from ``games`` self-play games. Metrics: ``mse``, the mean squared
        ``V_train - V`` of the chunk's updates (before each update); ``first_score``, mark 1's mean
        score (1 win, 0.5 draw); ``plies``, the mean game length."""
        errors: list[float] = []
        first = plies = 0.0
        for _ in range(games):
            player = EpsilonGreedy(OnePly(lambda geo: evaluator(self.w)), EPSILON, self.rng)
            trajectory = play([player, player], self.geo)
            errors += self._learn(trajectory, player.explored)
            first += (trajectory.result_for(1) + 1) / 2
            plies += len(trajectory.moves)
            self.games += 1
        return {
            "mse": float(np.mean(np.square(errors))) if errors else 0.0,
            "first_score": first / max(games, 1),
            "plies": plies / max(games, 1),
        }

    def _learn(self, game: Trajectory, explored: list[bool]) -> list[float]:
        """LMS updates on the positions of ``game`` before each greedy move; returns the errors."""
        positions = (0, *game.positions)
        masks = (0, *game.masks)
        last = len(game.moves) - 1
        errors = []
        x: np.ndarray | None = inputs(positions[0], masks[0], self.geo)
        for i in range(len(game.moves)):
            assert x is not None  # a successor is None only after the last move
            successor = None if i == last else inputs(positions[i + 1], masks[i + 1], self.geo)
            if not explored[i]:
                value = np.tanh(self.w @ x)
                target = game.result_for(game.mover(i)) if successor is None else -np.tanh(self.w @ successor)
                error = target - value
                self.w += ETA * error * (1.0 - value * value) * x
                errors.append(float(error))
            x = successor
        return errors

    def save(self, path: Path) -> None:
        """Write ``w`` as the weights file :mod:`agents.lms` reads."""
        weights.save(path, {"w": self.w}, self.geo)

    def state(self) -> dict[str, Any]:
        """Weights, generator state and games played."""
        return {"w": self.w.copy(), "rng": self.rng.bit_generator.state, "games": self.games}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`."""
        self.w = np.array(state["w"], dtype=np.float64)
        self.rng.bit_generator.state = state["rng"]
        self.games = int(state["games"])
