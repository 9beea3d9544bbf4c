"""Trainer of ``value_net``: a tanh MLP over afterstates fitted to exact values from the solver.

The network of :mod:`agents.value_net` (inputs :func:`agents.features.planes`, hidden sizes
:data:`HIDDEN`, ``tanh`` everywhere) values a position for its side to move, and the agent plays the
move whose afterstate (the position after it) is worth the most (1-ply search,
:mod:`agents.afterstates`; Sutton & Barto, *Reinforcement Learning*, 2nd ed. 2018, sec. 6.8).

Training examples are the afterstates the agent compares when it moves: for every position of a
training game before a move, the position after each legal move that does not end the game. Each
one's target is its exact value from :class:`training.learners.exact.Oracle`: the perfect-play
result for its side to move, discounted by :data:`GAMMA` a ply until the end (+1 for a win on the
next move, ``GAMMA ** (n - 1)`` for a win in ``n`` plies, 0 for a draw). Where the solver runs out of
nodes, the afterstate actually played keeps the Monte-Carlo target of the seed learner -- the game's
final result for its side to move, discounted alike (Sutton & Barto, ch. 5) -- and the siblings not
played get no target.

Each example with a target enters a replay buffer of :data:`BUFFER` examples (the oldest
overwritten), with its left-right mirror (Connect Four's symmetry: a mirrored position has the same
value), as in :mod:`training.learners.q_net` (:class:`training.learners.replay.ReplayBuffer`): the
position as its planes packed to bits (``numpy.packbits``, ``ceil(2 * rows * columns / 8)`` bytes, 11
on 6x7) and the target. After each game :data:`STEPS` Adam steps (:data:`LEARNING_RATE`; Kingma &
Ba 2015), jitted with JAX, lower the mean squared error over uniform minibatches of :data:`BATCH`
examples from the buffer. The buffer is part of :meth:`ValueNetLearner.state`, so a resumed run continues
bit for bit.

The games cycle as in the classic tic-tac-toe value-network exercise (a 9-18-9-3-1 tanh network
trained on games against itself and a random player): of every three games the first is self-play
with epsilon-greedy exploration (:data:`EPSILON`), the second and third are played greedily against
:mod:`agents.random_agent`, the learner first in the second and second in the third. On 6x7 three
games in four start from a balanced opening (:func:`training.learners.exact.opening`, never one of
the tournament suite's), the others from the empty board. A game is *good* when it is won against
random or drawn in self-play (equal players).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import random_agent, weights
from agents.afterstates import OnePly, afterstates
from agents.engine.board import Board, Geometry
from agents.features import planes
from agents.kit.adapter import as_player
from agents.value_net import evaluator
from training.compiled import keep_compiled
from training.learners.exact import Oracle, opening
from training.learners.explore import EpsilonGreedy
from training.learners.replay import ReplayBuffer, mirror_permutation, pack, packed_width, unpack
from training.selfplay import Trajectory, play

keep_compiled()  # its jitted functions compile once a machine, not once a process (training.compiled)

__all__ = [
    "BATCH",
    "BUFFER",
    "EPSILON",
    "GAMMA",
    "HIDDEN",
    "LEARNING_RATE",
    "STEPS",
    "ValueNetLearner",
    "forward",
]

HIDDEN = (128, 64)
"""Hidden layer widths (84-128-64-1 on 6x7)."""
LEARNING_RATE = 1e-3
"""Adam's step size."""
EPSILON = 0.1
"""Chance that a self-play move is a uniformly random legal column."""
STEPS = 16
"""Adam steps after each game, each on a minibatch from the replay buffer (solving a game's
examples costs far more than a step). Without the buffer, 16 steps on the game's own examples fitted
each game too closely (over 800 games the driver's evaluations against ``random`` scored 0.75-0.85,
those of 4 steps 0.85-1.0). On 6x7, seed 0, 3000 games: 4 steps on each game's own examples scored
91-92 % against ``random`` from the balanced suite (100 games, tournament seeds 1 and 2), most lost
games leaving a threat unblocked; the buffer 96-99 % (seeds 1-3), its loss on fresh games 0.07-0.09
against 0.17-0.23. A net of 256 and 128 units, 32 steps and a buffer of 500,000 scored 94-97 % after
1050 games, no better for its cost."""
BATCH = 256
"""Examples a minibatch."""
BUFFER = 100_000
"""Examples the replay buffer keeps, mirrors included (on 6x7 a training game adds about 140, so
it holds the last 700 games or so)."""
GAMMA = 0.8
"""Discount a ply of the targets: a win in ``n`` plies is worth ``GAMMA ** (n - 1)``. A steep one
makes the targets mostly about the next few plies, what a 1-ply player must see: with 0.95 (and
hidden layers of 64 and 32) the net's mean squared error stayed at 0.22 and it scored 92.5 %
against ``random`` from the balanced suite (80 games), the seed's score; most of its lost games
left a threat unblocked."""


def forward(params: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
    """The network of :func:`agents.value_net.forward`, in JAX: values ``(n,)``."""
    for layer in params:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x[:, 0]


def _loss(params: list[dict[str, jax.Array]], x: jax.Array, y: jax.Array, weight: jax.Array) -> jax.Array:
    """Mean squared error over the rows whose ``weight`` is 1."""
    return jnp.sum(weight * (forward(params, x) - y) ** 2) / jnp.maximum(jnp.sum(weight), 1.0)


_game_loss = jax.jit(_loss)


_OPTIMIZER = optax.adam(LEARNING_RATE)


@jax.jit
def _step(
    params: list[dict[str, jax.Array]], opt_state: optax.OptState, x: jax.Array, y: jax.Array
) -> tuple[list[dict[str, jax.Array]], optax.OptState]:
    """One Adam step on the minibatch ``x`` ``(BATCH, inputs)``, targets ``y`` ``(BATCH,)``."""
    grads = jax.grad(_loss)(params, x, y, jnp.ones_like(y))
    updates, opt_state = _OPTIMIZER.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


class ValueNetLearner:
    """The ``value_net`` trainer on the board ``geo`` (:class:`training.learners.Learner`). The
    initial weights come from ``jax.random.key(seed)`` (scaled normal, variance 1/inputs), the games'
    draws (openings included) and the minibatches from ``numpy.random.default_rng(seed)``."""

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
        self.oracle = Oracle(geo, GAMMA)
        self.games = 0
        self.inputs = 2 * geo.size
        self.replay = ReplayBuffer(
            BUFFER, {"cells": ((packed_width(self.inputs),), np.uint8), "target": ((), np.float32)}
        )
        """The examples learnt from: ``cells``, the afterstate's planes packed; ``target``, its value."""
        self._mirror = mirror_permutation(geo)
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
        ``drawn_self``, the share of self-play games drawn; ``loss``, the mean squared error on each
        game's examples before the steps after it (on positions not yet learnt from); ``exact``, the
        share of examples with an exact target."""
        good = won = drawn = random_games = 0
        losses, exact = [], []
        for _ in range(games):
            kind = self.games % 3
            start = opening(self.geo, self.rng, self.oracle)
            if kind == 0:
                player = EpsilonGreedy(self._player, EPSILON, self.rng)
                game = play([player, player], self.geo, start)
                drawn += game.winner == 0
                good += game.winner == 0
            else:
                opponent = as_player(random_agent.make_agent(seed=int(self.rng.integers(2**63))))
                game = play([self._player, opponent][:: 1 if kind == 1 else -1], self.geo, start)
                random_games += 1
                won += game.winner == kind
                good += game.winner == kind
            loss, solved = self._learn(game, start)
            losses.append(loss)
            exact.append(solved)
            self.games += 1
        self_games = games - random_games
        return {
            "good": good / max(games, 1),
            "won_random": won / max(random_games, 1),
            "drawn_self": drawn / max(self_games, 1),
            "loss": float(np.mean(losses)) if losses else 0.0,
            "exact": float(np.mean(exact)) if exact else 0.0,
        }

    def _examples(
        self, game: Trajectory, start: tuple[int, ...]
    ) -> tuple[list[tuple[int, int, int]], list[float]]:
        """The afterstates of ``game`` (module docstring) as ``(position, mask, ply)``, and each one's
        Monte-Carlo target (NaN for the siblings of the move played)."""
        geo = self.geo
        board = Board(geo.rows, geo.columns, geo.inarow)
        for column in start:
            board.push(column)
        examples, returns = [], []
        last = len(game.moves) - 1
        for i, move in enumerate(game.moves):
            after = afterstates(board)
            played = (board.mask | board.move_cell(move)) if i < last else None
            for position, mask, result in zip(after.positions, after.masks, after.results, strict=True):
                if result is not None:
                    continue  # a move ending the game is valued by its result, not by the network
                examples.append((position, mask, board.ply + 1))
                if mask == played:  # the side to move after it gets the game's result, plies later
                    returns.append(game.result_for(game.mover(i + 1)) * GAMMA ** (last - i - 1))
                else:
                    returns.append(np.nan)
            board.push(move)
        return examples, returns

    def _learn(self, game: Trajectory, start: tuple[int, ...]) -> tuple[float, float]:
        """Store the afterstates of ``game`` played from ``start`` and their mirrors in the buffer and
        take :data:`STEPS` steps on minibatches from it; returns the loss on the game's examples
        before the steps and the share of the afterstates with an exact target."""
        examples, returns = self._examples(game, start)
        size = self.geo.size * self.geo.columns  # padded to at most the afterstates of a game: one compile
        x = np.zeros((size, self.inputs), np.float32)
        y = np.zeros(size, np.float32)
        weight = np.zeros(size, np.float32)
        n = len(examples)
        if n:
            positions, masks, plies = zip(*examples, strict=True)
            exact = self.oracle.values(positions, masks, plies)
            target = np.where(np.isnan(exact), returns, exact)
            x[:n] = [planes(p, m, self.geo) for p, m in zip(positions, masks, strict=True)]
            y[:n] = np.nan_to_num(target)
            weight[:n] = ~np.isnan(target)
            known = weight[:n] > 0
            cells = x[:n][known].astype(bool)
            for flip in (False, True):
                self.replay.append(cells=pack(cells[:, self._mirror] if flip else cells), target=y[:n][known])
        loss = float(_game_loss(self.params, x, y, weight))
        if len(self.replay):
            for _ in range(STEPS):
                batch = self.replay.sample(self.rng, BATCH)
                self.params, self.opt_state = _step(
                    self.params, self.opt_state, unpack(batch["cells"], self.inputs), batch["target"]
                )
        self._refresh()
        return loss, float(np.mean(~np.isnan(exact))) if n else 0.0

    def save(self, path: Path) -> None:
        """Write the layers as the weights file :mod:`agents.value_net` reads (float32)."""
        arrays = {}
        for i, (w, b) in enumerate(self._layers()):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        weights.save(path, arrays, self.geo)

    def state(self) -> dict[str, Any]:
        """Weights, Adam's state, generator state, games played and the replay buffer, as numpy
        values."""
        return {
            "params": jax.tree_util.tree_map(np.asarray, self.params),
            "opt_state": jax.tree_util.tree_map(np.asarray, self.opt_state),
            "rng": self.rng.bit_generator.state,
            "games": self.games,
            "replay": self.replay.state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`."""
        self.params = jax.tree_util.tree_map(jnp.asarray, state["params"])
        self.opt_state = jax.tree_util.tree_map(jnp.asarray, state["opt_state"])
        self.rng.bit_generator.state = state["rng"]
        self.games = int(state["games"])
        self.replay.load_state(state["replay"])
        self._refresh()
