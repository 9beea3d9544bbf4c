"""Trainer of ``q_net``: DQN by self-play with exact or negamax targets, one network for both sides.

What is learned: ``Q(s, a)``, the discounted final result (+1 win, -1 loss, 0 draw) for the side to
move in ``s`` after playing column ``a``, as the multilayer perceptron of :mod:`agents.q_net`
(inputs :func:`agents.features.planes`, :data:`HIDDEN` ReLU units, one linear output per column).

One network serves both sides. The classic DQN agent of a two-player game keeps one model per side;
here the input is always written from the side to move's point of view (its stones in the first
plane), so mark 1 to move and mark 2 to move are the same problem and one network learns from the
moves of both, with twice the data a per-side model would see.

Targets (the negamax form of the Q-learning target). In a two-player zero-sum game the state after
our move ``a`` is the opponent's, and the opponent picks the move best for it; its value for us is
minus its best action value. With ``s'`` the position after ``a`` (opponent to move)::

    target = r                                   if the move ends the game
           = -GAMMA * max_{a' legal in s'} Q(s', a')   otherwise

``r`` is +1 when ``a`` wins and 0 when it fills the board (a draw); no other reward is given. This
is Littman's minimax-Q (*Markov games as a framework for multi-agent reinforcement learning*, ICML
1994, section 4) for an alternating game, where the min over the opponent's moves of our value is
minus the max of the opponent's own, written from the mover's side as in negamax. The ``max`` uses
Double DQN (van Hasselt, Guez & Silver, AAAI 2016): the online network picks ``a'``, the target
network values it. Illegal (full) columns are masked out of the ``max``.

Exact targets. The solver knows this equation's fixed point: with ``V*(s')`` the perfect-play value
of ``s'`` for its side to move, discounted by ``GAMMA`` a ply (:class:`training.learners.exact.Oracle`),
``Q*(s, a) = -GAMMA * V*(s')``. Each transition is stored with it when the solver finds it within
its node bound, and the update regresses on it instead of the bootstrapped target; transitions
without it (positions of fewer than :data:`~training.learners.exact.FIRST_PLY` plies, or past the
bound) keep the Double DQN target above. Since the game's model is known, a position of a training
game enters the buffer with every legal action, not only the one played: the transition of an
action not taken is as real as that of the action taken, and the greedy agent compares them all.

Learning is DQN's (Mnih et al., *Nature* 518, 2015): transitions go into a replay buffer of
:data:`BUFFER` transitions (the oldest overwritten), updates use uniform minibatches of
:data:`BATCH` with the mean squared TD error, Adam at :data:`LEARNING_RATE` (optax), and the target
network is copied from the online one every :data:`TARGET_EVERY` updates. After each game,
:data:`UPDATES_PER_MOVE` updates per move played (the opening's moves not counted) are owed and run
in jitted blocks of :data:`BLOCK` (``jax.lax.scan``). Every transition is stored with its left-right
mirror too (Connect Four's symmetry: a mirrored position has the mirrored values).

Exploration: self-play through :func:`training.selfplay.play`, both sides the same epsilon-greedy
player -- a uniformly random legal column with probability epsilon, else the legal column of
highest Q. On 6x7 three games in four start from a balanced opening
(:func:`training.learners.exact.opening`, never one of the tournament suite's), the others from the
empty board. Epsilon falls linearly from :data:`EPSILON_START` to :data:`EPSILON_END` over the first
:data:`EPSILON_GAMES` games and stays there.

The replay buffer holds each position as its :func:`~agents.features.planes` packed to bits
(``numpy.packbits``: ``ceil(2 * rows * columns / 8)`` bytes, 11 on 6x7), with the action, reward,
end flag, exact target (NaN when unknown) and the legal columns of the next position: a compact
numpy record on any board size (raw bitboards would not fit 64-bit integers beyond 8x7), kept in a
:class:`training.learners.replay.ReplayBuffer`. It is part of :meth:`QNetLearner.state`, so a resumed
run continues bit for bit.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import weights as weights_file
from agents.afterstates import afterstates
from agents.engine.board import Board, Geometry
from agents.features import planes
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.q_net import q_values
from agents.weights import Layers
from training.compiled import keep_compiled
from training.learners.exact import Oracle, opening
from training.learners.replay import ReplayBuffer, mirror_permutation, pack, packed_width, unpack
from training.selfplay import Trajectory, play

keep_compiled()  # its jitted functions compile once a machine, not once a process (training.compiled)

__all__ = ["QNetLearner"]

HIDDEN = (128, 128)
"""Units of the hidden layers."""
GAMMA = 0.99
"""Discount a ply: a quicker win is worth more."""
LEARNING_RATE = 1e-3
"""Adam's step size."""
BUFFER = 200_000
"""Transitions the replay buffer keeps (mirrors included)."""
BATCH = 128
"""Transitions a minibatch."""
TARGET_EVERY = 500
"""Updates between copies of the online network into the target network."""
UPDATES_PER_MOVE = 2.0
"""Updates owed per move played."""
BLOCK = 16
"""Updates a jitted call runs."""
EPSILON_START, EPSILON_END, EPSILON_GAMES = 1.0, 0.2, 500
"""The exploration schedule: epsilon from START to END, linearly over GAMES games. The floor of 0.2
keeps the buffer full of positions after imperfect moves: on 6x7 (seed 0, 5000 games, played moves
only and no exact targets) a floor of 0.05 scored 0.89-0.96 against ``random`` once reached (100
games every 500), 0.2 scored 0.93-0.96 (200 games every 1000). With every action of a position
stored, a game teaches several times as much, and the floor comes after 500 games."""


def _forward(params: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    """:func:`agents.q_net.q_values` in JAX."""
    n = len(params) // 2
    for i in range(n - 1):
        x = jax.nn.relu(x @ params[f"w{i}"] + params[f"b{i}"])
    return x @ params[f"w{n - 1}"] + params[f"b{n - 1}"]


def _initial(geo: Geometry, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """He-normal weights (the last layer scaled by 0.1, so the first values are near 0), zero biases."""
    sizes = (2 * geo.size, *HIDDEN, geo.columns)
    params = {}
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
        scale = np.sqrt(2.0 / fan_in) * (0.1 if i == len(sizes) - 2 else 1.0)
        params[f"w{i}"] = (rng.standard_normal((fan_in, fan_out)) * scale).astype(np.float32)
        params[f"b{i}"] = np.zeros(fan_out, np.float32)
    return params


_OPTIMISER = optax.adam(LEARNING_RATE)


Carry = tuple[dict[str, jax.Array], dict[str, jax.Array], optax.OptState, jax.Array]
"""``(online params, target params, optimiser state, updates done)``."""


def _update(carry: Carry, batch: tuple[jax.Array, ...]) -> tuple[Carry, jax.Array]:
    """One DQN update on one minibatch; ``carry`` is ``(params, target, optimiser state, updates
    done)``, ``batch`` ``(x, action, reward, done, x_next, legal_next, exact)`` of :data:`BATCH` rows,
    ``exact`` the exact target or NaN."""
    params, target, opt_state, step = carry
    x, action, reward, done, x_next, legal_next, exact = batch
    rows = jnp.arange(x.shape[0])
    online_next = jnp.where(legal_next, _forward(params, x_next), -jnp.inf)
    value_next = _forward(target, x_next)[rows, jnp.argmax(online_next, axis=1)]
    bootstrap = jnp.where(done, reward, -GAMMA * value_next)
    y = jax.lax.stop_gradient(jnp.where(jnp.isnan(exact), bootstrap, exact))

    def loss_of(p: dict[str, jax.Array]) -> jax.Array:
        return jnp.mean((_forward(p, x)[rows, action] - y) ** 2)

    loss, grads = jax.value_and_grad(loss_of)(params)
    changes, opt_state = _OPTIMISER.update(grads, opt_state, params)
    params = optax.apply_updates(params, changes)
    step = step + 1
    copy = step % TARGET_EVERY == 0
    target = jax.tree_util.tree_map(lambda t, p: jnp.where(copy, p, t), target, params)
    return (params, target, opt_state, step), loss


_run_block = jax.jit(lambda carry, batches: jax.lax.scan(_update, carry, batches))
"""A block of updates, :func:`_update` over the leading axis of ``batches``: ``(carry, losses)``."""


class _Explorer:
    """The epsilon-greedy self-play :class:`~agents.kit.player.Player` of a :class:`QNetLearner`."""

    def __init__(self, learner: QNetLearner) -> None:
        self.learner = learner
        self.epsilon = EPSILON_START
        self.net: Layers = []

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        legal = board.legal_moves()
        rng = self.learner.rng
        if rng.random() < self.epsilon:
            return MoveRecord.since(start, board, "explore", legal[int(rng.integers(len(legal)))])
        q = q_values(self.net, planes(board.position, board.mask, board.geo)[None])[0]
        return MoveRecord.since(start, board, "q", legal[int(np.argmax(q[legal]))])


class QNetLearner:
    """DQN self-play trainer of ``q_net`` on the board ``geo`` (see the module docstring); the
    initial weights, openings, exploration and minibatches all come from
    ``numpy.random.default_rng(seed)``."""

    def __init__(self, geo: Geometry, seed: int) -> None:
        self.geo = geo
        self.rng = np.random.default_rng(seed)
        self.inputs = 2 * geo.size
        params = {k: jnp.asarray(v) for k, v in _initial(geo, self.rng).items()}
        self.carry = (params, params, _OPTIMISER.init(params), jnp.zeros((), jnp.int32))
        width = packed_width(self.inputs)
        self.replay = ReplayBuffer(
            BUFFER,
            {
                "cells": ((width,), np.uint8),
                "next_cells": ((width,), np.uint8),
                "next_legal": ((geo.columns,), bool),
                "action": ((), np.int16),
                "reward": ((), np.float32),
                "done": ((), bool),
                "exact": ((), np.float32),
            },
        )
        """The transitions (see the module docstring): the position and the next one packed, the
        next one's legal columns, the action, reward, end flag and exact target (NaN: unknown)."""
        self.oracle = Oracle(geo, GAMMA)
        self.games = 0
        self.owed = 0.0
        self.explorer = _Explorer(self)
        self._mirror = mirror_permutation(geo)

    # --- the protocol ------------------------------------------------------------------------

    def train(self, games: int) -> dict[str, float]:
        """Play ``games`` self-play games, storing their transitions and running the updates they
        owe. Metrics: ``loss`` (mean TD loss of the chunk's updates; NaN when none ran),
        ``epsilon`` (of the last game), ``updates`` (in the chunk), ``plies`` (mean game length
        after the opening), ``exact`` (share of the chunk's transitions with an exact target)."""
        losses: list[np.ndarray] = []
        plies = 0
        exact = []
        for _ in range(games):
            fraction = min(1.0, self.games / EPSILON_GAMES)
            self.explorer.epsilon = EPSILON_START + fraction * (EPSILON_END - EPSILON_START)
            self.explorer.net = self._net()
            start = opening(self.geo, self.rng, self.oracle)
            game = play([self.explorer, self.explorer], self.geo, start)
            exact.append(self._store(game, start))
            self.games += 1
            plies += len(game.moves)
            self.owed += UPDATES_PER_MOVE * len(game.moves)
            while self.owed >= BLOCK and len(self.replay) >= BATCH:
                losses.append(self._block())
                self.owed -= BLOCK
        return {
            "loss": float(np.mean(np.concatenate(losses))) if losses else float("nan"),
            "epsilon": float(self.explorer.epsilon),
            "updates": float(BLOCK * len(losses)),
            "plies": plies / games if games else 0.0,
            "exact": float(np.mean(np.concatenate(exact))) if exact else 0.0,
        }

    def save(self, path: Path) -> None:
        """Write the online network as an :mod:`agents.q_net` weights file."""
        weights_file.save(path, {k: np.asarray(v) for k, v in self.carry[0].items()}, self.geo)

    def state(self) -> dict[str, Any]:
        """Weights, target network, Adam's moments, the replay buffer, counters and the generator."""
        params, target, opt_state, step = self.carry
        return {
            "params": {k: np.array(v) for k, v in params.items()},
            "target": {k: np.array(v) for k, v in target.items()},
            "optimiser": [np.array(leaf) for leaf in jax.tree_util.tree_leaves(opt_state)],
            "step": int(step),
            "replay": self.replay.state(),
            "games": self.games,
            "owed": self.owed,
            "rng": self.rng.bit_generator.state,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`'s result (of a learner of the same board)."""
        params = {k: jnp.asarray(v) for k, v in state["params"].items()}
        target = {k: jnp.asarray(v) for k, v in state["target"].items()}
        treedef = jax.tree_util.tree_structure(_OPTIMISER.init(params))
        opt_state = jax.tree_util.tree_unflatten(treedef, [jnp.asarray(v) for v in state["optimiser"]])
        self.carry = (params, target, opt_state, jnp.asarray(state["step"], jnp.int32))
        self.replay.load_state(state["replay"])
        self.games, self.owed = state["games"], state["owed"]
        self.rng.bit_generator.state = state["rng"]

    # --- inside ------------------------------------------------------------------------------

    def _net(self) -> Layers:
        params = self.carry[0]
        return [(np.asarray(params[f"w{i}"]), np.asarray(params[f"b{i}"])) for i in range(len(params) // 2)]

    def _store(self, game: Trajectory, start: tuple[int, ...]) -> np.ndarray:
        """Put every legal action of every position of ``game``, played from the opening ``start``,
        into the buffer as a transition, each with its mirror; returns whether each has an exact
        target."""
        geo = self.geo
        board = Board(geo.rows, geo.columns, geo.inarow)
        for column in start:
            board.push(column)
        cells: list[np.ndarray] = []
        next_cells: list[np.ndarray] = []
        legal: list[list[bool]] = []
        action: list[int] = []
        reward: list[float] = []
        done: list[bool] = []
        unknown: list[tuple[int, int, int, int]] = []  # (row, position, mask, ply) to solve
        for move in game.moves:
            here = planes(board.position, board.mask, geo)
            after = afterstates(board)
            for column, result, position, mask in zip(
                after.columns, after.results, after.positions, after.masks, strict=True
            ):
                if result is None:
                    unknown.append((len(action), position, mask, board.ply + 1))
                cells.append(here)
                next_cells.append(planes(position, mask, geo))
                legal.append([not mask & top for top in geo.top_cells])
                action.append(column)
                reward.append(result or 0.0)
                done.append(result is not None)
            board.push(move)
        exact = np.array(reward, np.float32)
        if unknown:
            rows, positions, masks, plies = zip(*unknown, strict=True)
            exact[list(rows)] = -GAMMA * self.oracle.values(positions, masks, plies)
        x, x_next = np.array(cells, bool), np.array(next_cells, bool)
        legal_next, actions = np.array(legal, bool), np.array(action, np.int16)
        for flip in (False, True):
            self.replay.append(
                cells=pack(x[:, self._mirror] if flip else x),
                next_cells=pack(x_next[:, self._mirror] if flip else x_next),
                next_legal=legal_next[:, ::-1] if flip else legal_next,
                action=geo.columns - 1 - actions if flip else actions,
                reward=np.array(reward, np.float32),
                done=np.array(done, bool),
                exact=exact,
            )
        solved: np.ndarray = ~np.isnan(exact)
        return solved

    def _block(self) -> np.ndarray:
        """Run :data:`BLOCK` updates on uniform minibatches; their losses."""
        b = self.replay.sample(self.rng, (BLOCK, BATCH))
        batches = (
            unpack(b["cells"], self.inputs),
            b["action"].astype(np.int32),
            b["reward"],
            b["done"],
            unpack(b["next_cells"], self.inputs),
            b["next_legal"],
            b["exact"],
        )
        self.carry, losses = _run_block(self.carry, batches)
        return np.asarray(losses)
