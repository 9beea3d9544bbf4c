"""The ``q_net`` agent and its DQN learner: legal moves on any board, weights files, the negamax
target, training, exact resume, and the shipped weights against ``random``."""

from __future__ import annotations

import pickle
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import random_agent
from agents.engine.board import Board, geometry
from agents.features import planes
from agents.kit.adapter import as_player, observation
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.q_net import make_agent, q_values
from agents.weights import layers, load, save
from training.learners import q_net as trainer

SMALL = geometry(5, 4, 3)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[trainer.QNetLearner, dict, Path]:
    """A learner on 5x4 (three in a row) after 12 games, its state then, and its weights file."""
    learner = trainer.QNetLearner(SMALL, seed=3)
    learner.train(12)
    path = tmp_path_factory.mktemp("q_net") / "small.npz"
    learner.save(path)
    return learner, pickle.loads(pickle.dumps(learner.state())), path


def _params(learner: trainer.QNetLearner) -> dict[str, np.ndarray]:
    return {name: np.asarray(value) for name, value in learner.carry[0].items()}


@pytest.mark.parametrize(("rows", "columns", "inarow"), [(6, 7, 4), (5, 4, 3), (7, 9, 5)])
def test_every_move_is_a_legal_int_and_the_stage_says_network_or_fallback(rows, columns, inarow) -> None:
    agent = make_agent()
    board = Board(rows, columns, inarow)
    for column in (0, 0, 1, columns - 1, 0, 1):
        board.push(column)
    while not board.is_game_over():
        move = agent(*observation(board, Clock()))
        assert type(move) is int and board.can_play(move)
        assert agent.last_move.stage == ("q" if (rows, columns, inarow) == (6, 7, 4) else "fallback")
        board.push(move)


@pytest.mark.jax
def test_a_weights_file_is_played_by_argmax_over_legal_columns(trained, tmp_path: Path) -> None:
    path = trained[2]
    board = Board.from_moves([0, 1, 1, 2], rows=5, columns=4, inarow=3)
    agent = make_agent(weights=str(path))
    q = q_values(layers(load(str(path), shipped=bytes)), planes(board.position, board.mask, SMALL)[None])[0]
    assert agent(*observation(board, Clock())) == int(np.argmax(q))
    assert agent.last_move.stage == "q"
    # a network that prefers column 0 above all must not play it once column 0 is full
    net = {"w0": np.zeros((2 * SMALL.size, 4), np.float32), "b0": np.array([9, 1, 2, 3], np.float32)}
    save(tmp_path / "zero.npz", net, SMALL)
    full = Board.from_moves([0] * 5, rows=5, columns=4, inarow=3)
    assert make_agent(weights=str(tmp_path / "zero.npz"))(*observation(full, Clock())) == 3


def test_missing_weights_raise_at_make_agent_and_a_bad_file_at_the_first_move(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        make_agent(weights=str(tmp_path / "nope.npz"))
    save(tmp_path / "bad.npz", {"v": np.zeros(3)}, SMALL)
    agent = make_agent(weights=str(tmp_path / "bad.npz"))
    with pytest.raises(ValueError, match="w0"):
        agent(*observation(Board(5, 4, 3), Clock()))


@pytest.mark.jax
def test_the_target_is_the_exact_one_else_the_reward_at_the_end_else_minus_gamma_max_legal_q() -> None:
    rng = np.random.default_rng(0)
    params = trainer._initial(SMALL, rng)
    x = rng.integers(0, 2, (5, 2 * SMALL.size)).astype(np.float32)
    x_next = rng.integers(0, 2, (5, 2 * SMALL.size)).astype(np.float32)
    action = np.array([0, 1, 2, 3, 1], np.int32)
    reward = np.array([1.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    done = np.array([True, True, False, False, False])
    legal = np.array(
        [[True] * 4, [True] * 4, [True, False, True, False], [False, True, False, False], [True] * 4]
    )
    exact = np.array([np.nan, np.nan, np.nan, np.nan, -0.5], np.float32)
    net = layers(params)
    q_next = np.where(legal, q_values(net, x_next), -np.inf).max(axis=1)
    y = np.where(done, reward, -trainer.GAMMA * q_next)
    y[4] = -0.5
    expected = np.mean((q_values(net, x)[np.arange(5), action] - y) ** 2)
    jparams = {k: jnp.asarray(v) for k, v in params.items()}
    carry = (jparams, jparams, trainer._OPTIMISER.init(jparams), jnp.zeros((), jnp.int32))
    _, loss = jax.jit(trainer._update)(carry, (x, action, reward, done, x_next, legal, exact))
    assert float(loss) == pytest.approx(expected, rel=1e-5)


@pytest.mark.jax
def test_training_changes_the_weights_and_a_resumed_learner_continues_identically(trained) -> None:
    learner, state, _ = trained
    initial = trainer._initial(SMALL, np.random.default_rng(3))
    assert any(not np.array_equal(initial[k], v) for k, v in state["params"].items())
    metrics = learner.train(6)
    assert metrics["updates"] > 0 and 0 < metrics["loss"] < 10 and 0 < metrics["epsilon"] <= 1
    assert 0 < metrics["exact"] <= 1
    resumed = trainer.QNetLearner(SMALL, seed=99)
    resumed.load_state(state)
    assert resumed.train(6) == metrics
    for name, value in _params(learner).items():
        assert np.array_equal(value, _params(resumed)[name])
    assert len(resumed.replay) == len(learner.replay) and resumed.replay.head == learner.replay.head
    kept = learner.replay.arrays
    assert all(np.array_equal(v, resumed.replay.arrays[k], equal_nan=True) for k, v in kept.items())


def test_the_shipped_weights_beat_random() -> None:
    score = 0.0
    for game in range(10):
        me, them = as_player(make_agent()), as_player(random_agent.make_agent(seed=game))
        result = play_game([me, them] if game % 2 == 0 else [them, me]).result
        score += result if game % 2 == 0 else 1 - result
    assert score >= 8
