"""TD(lambda) self-play training of the ``td`` evaluation (:mod:`agents.td`).

Each training game is played by :func:`training.selfplay.play` with the current MLP on both sides:
the first :attr:`TDLearner.opening` plies are random (drawn from the learner's generator), then each
move is a 1-ply search -- a move that wins at once is taken (a terminal child is worth its result),
else the move whose child has the lowest value for the opponent -- except with probability
``epsilon`` a uniformly random legal move.

Learning is TD(lambda) (Sutton, Machine Learning 3, 1988, eq. 4; Tesauro, CACM 38(3), 1995) over
the positions after each move of the game, with values from the first player's point of view:
``u_t = V(s_t)`` when mark 1 is to move in ``s_t``, else ``-V(s_t)``, where ``V`` is the MLP's value
for the side to move. The TD error is ``delta_t = u_{t+1} - u_t``, the last non-terminal position's
target being the result (+1 first player won, -1 lost, 0 draw); the eligibility trace is
``e_t = lambda * e_{t-1} + grad u_t`` (no discounting), and the weights change by
``alpha * sum_t delta_t * e_t`` at the end of each game (offline updating: the values of one game
all come from the weights it was played with). Exploratory moves are learnt from like the others.
The gradients come from ``jax.grad`` of the MLP, vmapped over the game's positions; the traces are a
``jax.lax.scan``; the update is plain SGD.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from agents.engine.board import Board, Geometry
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.td import inputs, value
from agents.weights import save
from training.compiled import keep_compiled
from training.selfplay import Trajectory, play

keep_compiled()  # its jitted functions compile once a machine, not once a process (training.compiled)

__all__ = ["TDLearner"]


def _mlp(params: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    """:func:`agents.td.value` in JAX, for one input ``(10,)``: a scalar."""
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.tanh(hidden @ params["w2"] + params["b2"])


@jax.jit
def _td_update(
    params: dict[str, jax.Array],
    x: jax.Array,
    sign: jax.Array,
    result: jax.Array,
    count: jax.Array,
    alpha: jax.Array,
    lam: jax.Array,
) -> tuple[dict[str, jax.Array], jax.Array]:
    """One game's TD(lambda) update: ``(new params, sum of |delta_t|)``.

    ``x`` ``(N, 10)``: inputs of the game's non-terminal positions, padded with zeros to a fixed
    ``N``; ``sign`` ``(N,)``: +1 where mark 1 is to move, else -1; ``result``: the first player's
    result; ``count``: how many rows of ``x`` are positions.
    """
    values, grads = jax.vmap(jax.value_and_grad(_mlp), in_axes=(None, 0))(params, x)
    u = sign * values
    steps = jnp.arange(x.shape[0])
    following = jnp.where(steps + 1 < count, jnp.roll(u, -1), result)
    delta = jnp.where(steps < count, following - u, 0.0)
    signed_grads = jax.tree_util.tree_map(lambda g: g * sign.reshape((-1,) + (1,) * (g.ndim - 1)), grads)

    def step(carry: tuple[Any, Any], inputs: tuple[Any, Any]) -> tuple[tuple[Any, Any], None]:
        trace, total = carry
        grad, d = inputs
        trace = jax.tree_util.tree_map(lambda e, g: lam * e + g, trace, grad)
        total = jax.tree_util.tree_map(lambda t, e: t + d * e, total, trace)
        return (trace, total), None

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    (_, total), _ = jax.lax.scan(step, (zeros, zeros), (signed_grads, delta))
    new = jax.tree_util.tree_map(lambda p, t: p + alpha * t, params, total)
    return new, jnp.abs(delta).sum()


class _Greedy:
    """The self-play :class:`~agents.kit.player.Player`: 1-ply search with the learner's current weights,
    a random legal move with probability ``epsilon``."""

    def __init__(self, learner: TDLearner) -> None:
        self.learner = learner

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        learner = self.learner
        legal = board.legal_moves()
        if learner.rng.random() < learner.epsilon:
            return MoveRecord.since(start, board, "explore", int(learner.rng.choice(legal)))
        wins = board.winning_moves()
        if wins:
            return MoveRecord.since(start, board, "win", board.columns(wins)[0])
        geo, opponent = board.geo, board.opponent
        children = [inputs(opponent, board.mask | board.move_cell(c), geo) for c in legal]
        column = legal[int(np.argmin(value(learner.params, np.array(children))))]
        return MoveRecord.since(start, board, "one_ply", column)


class TDLearner:
    """The ``td`` trainer (:class:`training.learners.Learner`) on the board ``geo``.

    ``hidden`` tanh units; ``alpha`` the SGD step, ``lam`` the trace decay lambda, ``epsilon`` the
    exploration rate, ``opening`` the random plies that begin a game. The MLP starts from small
    random weights drawn by ``jax.random.PRNGKey(seed)``; moves are drawn by a numpy generator
    seeded by ``seed``.
    """

    EVAL_PARAMS = {"depth": 3}
    """The agent's parameters in ``connectx train``'s untimed evaluations: a fixed depth (by
    default the agent deepens until the clock)."""

    def __init__(
        self,
        geo: Geometry,
        seed: int,
        *,
        hidden: int = 32,
        alpha: float = 0.005,
        lam: float = 0.9,
        epsilon: float = 0.1,
        opening: int = 2,
    ) -> None:
        self.geo = geo
        self.alpha, self.lam, self.epsilon, self.opening = alpha, lam, epsilon, opening
        k1, k2 = jax.random.split(jax.random.PRNGKey(seed))
        self.params = {
            "w1": np.asarray(jax.random.normal(k1, (len(inputs(0, 0, geo)), hidden)) * 0.3, np.float32),
            "b1": np.zeros(hidden, np.float32),
            "w2": np.asarray(jax.random.normal(k2, (hidden,)) * 0.1, np.float32),
            "b2": np.zeros((), np.float32),
        }
        self.rng = np.random.default_rng(seed)
        self.games = 0

    def train(self, games: int) -> dict[str, float]:
        """Play and learn from ``games`` self-play games; metrics: ``td_error`` (mean |delta| per
        position), ``first_score`` (first player's mean score, 1 win, 0.5 draw), ``plies`` (mean
        moves after the opening)."""
        errors, positions, score, plies = 0.0, 0, 0.0, 0
        player = _Greedy(self)
        for _ in range(games):
            trajectory = play([player, player], self.geo, self._opening())
            errors += self._learn(trajectory)
            positions += max(1, len(trajectory.moves) - 1)
            score += (trajectory.result_for(1) + 1) / 2
            plies += len(trajectory.moves)
            self.games += 1
        n = max(1, games)
        return {"td_error": errors / max(1, positions), "first_score": score / n, "plies": plies / n}

    def _opening(self) -> list[int]:
        """Up to :attr:`opening` random columns that neither end the game nor leave a win at once."""
        board = Board(self.geo.rows, self.geo.columns, self.geo.inarow)
        moves: list[int] = []
        for _ in range(self.opening):
            column = int(self.rng.choice(board.legal_moves()))
            board.push(column)
            if board.is_game_over() or board.winning_moves():
                break
            moves.append(column)
        return moves

    def _learn(self, trajectory: Trajectory) -> float:
        """Apply one game's TD(lambda) update; the sum of its |TD errors|."""
        count = len(trajectory.moves) - 1  # the last position is terminal
        if count < 1:
            return 0.0
        x = np.zeros((self.geo.size, len(inputs(0, 0, self.geo))), np.float32)
        sign = np.zeros(self.geo.size, np.float32)
        for i in range(count):
            x[i] = inputs(trajectory.positions[i], trajectory.masks[i], self.geo)
            sign[i] = 1.0 if trajectory.plies[i] % 2 == 0 else -1.0
        params, error = _td_update(
            self.params,
            x,
            sign,
            np.float32(trajectory.result_for(1)),
            np.int32(count),
            np.float32(self.alpha),
            np.float32(self.lam),
        )
        self.params = {name: np.asarray(array) for name, array in params.items()}
        return float(error)

    def save(self, path: Path) -> None:
        """Write the weights as the ``.npz`` file :mod:`agents.td` loads."""
        save(path, self.params, self.geo)

    def state(self) -> dict[str, Any]:
        """Weights, generator state and games played (picklable)."""
        return {
            "params": {name: array.copy() for name, array in self.params.items()},
            "rng": self.rng.bit_generator.state,
            "games": self.games,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`'s result."""
        self.params = {name: np.array(array) for name, array in state["params"].items()}
        self.rng.bit_generator.state = state["rng"]
        self.games = state["games"]
