"""The ``value_net`` agent (tanh MLP over afterstates, 1-ply search) and its trainer (JAX: the
trainer's tests import it inside the test and are marked ``jax``, see tests/conftest.py)."""

import pickle
import random

import numpy as np
import pytest

from agents import random_agent, value_net
from agents.engine.board import Board, geometry
from agents.features import planes
from agents.kit.adapter import as_player, observation
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.weights import layers, save
from tests.boards import assert_plays_legal_ints, random_board

CLOCK = Clock(act_timeout=1.0, overage=1.0)


@pytest.mark.parametrize(
    ("config", "stage"), [((6, 7, 4), "one_ply"), ((5, 4, 3), "fallback"), ((7, 9, 5), "fallback")]
)
def test_shipped_agent_plays_a_legal_int_on_any_board(config, stage):
    assert_plays_legal_ints(value_net.make_agent(), config, stage, CLOCK)


def test_weights_file_is_used_on_its_own_board_only(tmp_path):
    geo = geometry(5, 4, 3)
    w0 = np.zeros((2 * geo.size, 1), np.float32)
    # the opponent's stone bottom right (row 4, column 3) is good for the mover
    w0[geo.size + 4 * geo.columns + 3] = -1.0
    save(tmp_path / "w.npz", {"w0": w0, "b0": np.zeros(1, np.float32)}, geo)
    agent = value_net.make_agent(weights=str(tmp_path / "w.npz"))
    assert agent(*observation(Board(5, 4, 3), CLOCK)) == 3
    assert (agent.last_move.stage, agent.last_move.value) == ("one_ply", pytest.approx(np.tanh(1.0)))
    agent(*observation(Board(), CLOCK))
    assert agent.last_move.stage == "fallback"


def test_a_missing_weights_file_is_refused_at_make_agent(tmp_path):
    with pytest.raises(FileNotFoundError):
        value_net.make_agent(weights=str(tmp_path / "none.npz"))


def test_a_file_of_another_shape_is_refused_at_the_first_move(tmp_path):
    save(tmp_path / "w.npz", {"w0": np.zeros((84, 2), np.float32), "b0": np.zeros(2)}, geometry(6, 7, 4))
    with pytest.raises(ValueError, match="one output"):
        value_net.make_agent(weights=str(tmp_path / "w.npz"))(*observation(Board(), CLOCK))


@pytest.mark.jax
def test_training_changes_the_weights_and_resumes_exactly(tmp_path):
    from training.learners.value_net import ValueNetLearner

    geo = geometry(5, 4, 3)
    learner = ValueNetLearner(geo, seed=3)
    learner.save(tmp_path / "before.npz")
    metrics = learner.train(4)
    assert set(metrics) == {"good", "won_random", "drawn_self", "loss", "exact"}
    assert 0 <= metrics["good"] <= 1 and 0 < metrics["exact"] <= 1
    learner.save(tmp_path / "after.npz")
    assert not np.array_equal(np.load(tmp_path / "before.npz")["w0"], np.load(tmp_path / "after.npz")["w0"])
    state = pickle.loads(pickle.dumps(learner.state()))
    expected = learner.train(3), learner.state()["params"]
    resumed = ValueNetLearner(geo, seed=99)
    resumed.load_state(state)
    assert resumed.train(3) == expected[0]
    for mine, theirs in zip(resumed.state()["params"], expected[1], strict=True):
        assert np.array_equal(mine["w"], theirs["w"]) and np.array_equal(mine["b"], theirs["b"])


@pytest.mark.jax
def test_saved_weights_value_positions_as_the_learner_does(tmp_path):
    from training.learners.value_net import ValueNetLearner, forward

    geo = geometry(5, 4, 3)
    learner = ValueNetLearner(geo, seed=1)
    learner.train(3)
    learner.save(tmp_path / "v.npz")
    net = layers(np.load(tmp_path / "v.npz"))
    boards = [random_board(random.Random(seed), 5, 4, 3) for seed in range(5)]
    x = np.stack([planes(b.position, b.mask, geo) for b in boards])
    expected = np.asarray(forward(learner.params, x))
    assert np.allclose(value_net.forward(net, x), expected, atol=1e-5)
    evaluate = value_net.evaluator(net)
    assert np.allclose(
        evaluate([b.position for b in boards], [b.mask for b in boards], geo), expected, atol=1e-5
    )


def test_shipped_weights_beat_random():
    me = as_player(value_net.make_agent())
    wins = 0
    for game in range(8):
        opponent = as_player(random_agent.make_agent(seed=game))
        players = [me, opponent] if game % 2 == 0 else [opponent, me]
        wins += play_game(players).outcome.winner == 1 + game % 2
    assert wins >= 7


@pytest.mark.jax
def test_the_replay_buffer_holds_each_example_with_its_mirror():
    from training.learners.value_net import ValueNetLearner

    geo = geometry(5, 4, 3)
    learner = ValueNetLearner(geo, seed=2)
    learner.train(1)
    n = len(learner.replay)
    assert n > 0 and n % 2 == 0 and learner.replay.head == n
    kept = learner.replay.arrays
    cells = np.unpackbits(kept["cells"][:n], axis=1, count=2 * geo.size).reshape(n, 2, geo.rows, geo.columns)
    half = n // 2
    assert np.array_equal(cells[half:], cells[:half, :, :, ::-1])
    assert np.array_equal(kept["target"][half:n], kept["target"][:half])
    assert np.all(np.abs(kept["target"][:n]) <= 1)
