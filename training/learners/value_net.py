"""Trainer of ``value_net``: a tanh MLP over afterstates fitted to game results (Monte-Carlo targets).

The network of :mod:`agents.value_net` (inputs :func:`agents.features.planes`, hidden sizes
:data:`HIDDEN`, ``tanh`` everywhere) values a position for its side to move. Every position reached
by a move that did not end the game is a training example whose target is the game's final result
for the side to move in it (+1 win, -1 loss, 0 draw): the Monte-Carlo return (Sutton & Barto,
*Reinforcement Learning*, 2nd ed. 2018, ch. 5). After each game one Adam step (:data:`LEARNING_RATE`;
Kingma & Ba 2015) lowers the mean squared error over the whole game, jitted with JAX, padded to the
board's size so that it compiles once.

The games cycle as in the classic tic-tac-toe value-network exercise (a 9-18-9-3-1 tanh network,
learning rate 0.025, 500 K games against itself and a random player): of every three games the first
is self-play with epsilon-greedy exploration (:data:`EPSILON`), the second and third are played
greedily against :mod:`agents.random_agent`, the learner first in the second and second in the
third. A game is *good* when it is won against random or drawn in self-play (equal players).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import random_agent, weights
from agents.afterstates import OnePly
from agents.engine.board import Geometry
from agents.features import planes
from agents.kit.adapter import as_player
from agents.value_net import evaluator
from training.learners.explore import EpsilonGreedy
from training.selfplay import Trajectory, play

__all__ = ["EPSILON", "HIDDEN", "LEARNING_RATE", "Learner", "forward"]

HIDDEN = (64, 32)
"""Hidden layer widths (84-64-32-1 on 6x7)."""
LEARNING_RATE = 1e-3
"""Adam's step size."""
EPSILON = 0.1
"""Chance that a self-play move is a uniformly random legal column."""


def forward(params: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
    """The network of :func:`agents.value_net.forward`, in JAX: values ``(n,)``."""
    for layer in params:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x[:, 0]


def _loss(params: list[dict[str, jax.Array]], x: jax.Array, y: jax.Array, weight: jax.Array) -> jax.Array:
    """Mean squared error over the rows whose ``weight`` is 1."""
    return jnp.sum(weight * (forward(params, x) - y) ** 2) / jnp.maximum(jnp.sum(weight), 1.0)


_OPTIMIZER = optax.adam(LEARNING_RATE)


@jax.jit
def _step(params, opt_state, x, y, weight):
    loss, grads = jax.value_and_grad(_loss)(params, x, y, weight)
    updates, opt_state = _OPTIMIZER.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


class Learner:
    """The ``value_net`` trainer on the board ``geo`` (:class:`training.learners.Learner`). The
    initial weights come from ``jax.random.key(seed)`` (scaled normal, variance 1/inputs), the games'
    draws from ``numpy.random.default_rng(seed)``."""

    def __init__(self, geo: Geometry, seed: int) -> None:
        self.geo = geo
        sizes = (2 * geo.size, *HIDDEN, 1)
        keys = jax.random.split(jax.random.key(seed), len(sizes) - 1)
        self.params = [
            {"w": jax.random.normal(k, (n, m)) / np.sqrt(n), "b": jnp.zeros(m)}
            for k, n, m in zip(keys, sizes, sizes[1:], strict=False)
        ]
        self.opt_state = _OPTIMIZER.init(self.params)
        self.rng = np.random.default_rng(seed)
        self.games = 0
        self._player = OnePly(lambda geo: self._evaluate)
        self._refresh()

    def _refresh(self) -> None:
        """Make the evaluation the training games play with from the current weights (numpy)."""
        self._evaluate = evaluator(self._layers())

    def _layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(np.asarray(p["w"], np.float32), np.asarray(p["b"], np.float32)) for p in self.params]

    def train(self, games: int) -> dict[str, float]:
        """Play and learn from ``games`` games (the cycle of the module docstring). Metrics:
        ``good``, the share of good games; ``won_random``, the share of games against random won;
        ``drawn_self``, the share of self-play games drawn; ``loss``, the mean squared error of the
        games before their step."""
        good = won = drawn = random_games = 0
        losses = []
        for _ in range(games):
            kind = self.games % 3
            if kind == 0:
                player = EpsilonGreedy(self._player, EPSILON, self.rng)
                game = play([player, player], self.geo)
                drawn += game.winner == 0
                good += game.winner == 0
            else:
                opponent = as_player(random_agent.make_agent(seed=int(self.rng.integers(2**63))))
                game = play([self._player, opponent][:: 1 if kind == 1 else -1], self.geo)
                random_games += 1
                won += game.winner == kind
                good += game.winner == kind
            losses.append(self._learn(game))
            self.games += 1
        self_games = games - random_games
        return {
            "good": good / max(games, 1),
            "won_random": won / max(random_games, 1),
            "drawn_self": drawn / max(self_games, 1),
            "loss": float(np.mean(losses)) if losses else 0.0,
        }

    def _learn(self, game: Trajectory) -> float:
        """One step on the positions of ``game`` after every move but the last; returns the loss."""
        size = self.geo.size
        x = np.zeros((size, 2 * size), np.float32)
        y = np.zeros(size, np.float32)
        weight = np.zeros(size, np.float32)
        for i in range(len(game.moves) - 1):
            x[i] = planes(game.positions[i], game.masks[i], self.geo)
            y[i] = -game.result_for(game.mover(i))
            weight[i] = 1.0
        self.params, self.opt_state, loss = _step(self.params, self.opt_state, x, y, weight)
        self._refresh()
        return float(loss)

    def save(self, path: Path) -> None:
        """Write the layers as the weights file :mod:`agents.value_net` reads (float32)."""
        arrays = {}
        for i, (w, b) in enumerate(self._layers()):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        weights.save(path, arrays, self.geo)

    def state(self) -> dict[str, Any]:
        """Weights, Adam's state, generator state and games played, as numpy values."""
        return {
            "params": jax.tree_util.tree_map(np.asarray, self.params),
            "opt_state": jax.tree_util.tree_map(np.asarray, self.opt_state),
            "rng": self.rng.bit_generator.state,
            "games": self.games,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`."""
        self.params = jax.tree_util.tree_map(jnp.asarray, state["params"])
        self.opt_state = jax.tree_util.tree_map(jnp.asarray, state["opt_state"])
        self.rng.bit_generator.state = state["rng"]
        self.games = int(state["games"])
        self._refresh()
