"""The ``lms`` agent (linear features evaluation, 1-ply search) and its LMS trainer."""

import pickle

import numpy as np
import pytest

from agents import lms, random_agent
from agents.engine.board import Board, geometry
from agents.features import FEATURES
from agents.kit.adapter import as_player, observation
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.weights import save
from tests.boards import assert_plays_legal_ints
from training.learners.lms import LMSLearner

CLOCK = Clock(act_timeout=1.0, overage=1.0)


@pytest.mark.parametrize("config", [(6, 7, 4), (5, 4, 3), (7, 9, 5)])
def test_shipped_agent_plays_a_legal_int_on_any_board(config):
    assert_plays_legal_ints(lms.make_agent(), config, "one_ply", CLOCK)


def test_weights_file_is_used(tmp_path):
    def first_move(centre_theirs: float) -> int:
        w = np.zeros(lms.INPUTS)
        w[FEATURES.index("centre_theirs")] = centre_theirs  # the mover's stones, seen after its move
        save(tmp_path / "w.npz", {"w": w}, geometry(6, 7, 4))
        return lms.make_agent(weights=str(tmp_path / "w.npz"))(*observation(Board(), CLOCK))

    assert first_move(-1.0) == 3  # the opponent dislikes the mover's central stones
    assert first_move(1.0) == 0  # ... or likes them: an edge, the left one first


def test_a_missing_weights_file_is_refused_at_make_agent(tmp_path):
    with pytest.raises(FileNotFoundError):
        lms.make_agent(weights=str(tmp_path / "none.npz"))


def test_shipped_evaluation_blocks_a_playable_threat():
    board = Board.from_moves("11223")  # mark 1 holds columns 0-2 of the bottom row; mark 2 to move
    agent = lms.make_agent()
    assert agent(*observation(board, CLOCK)) == 3


def test_training_changes_the_weights_and_resumes_exactly():
    learner = LMSLearner(geometry(5, 4, 3), seed=3)
    metrics = learner.train(4)
    assert set(metrics) == {"mse", "first_score", "plies"}
    assert np.any(learner.w != 0)
    state = pickle.loads(pickle.dumps(learner.state()))
    expected = learner.train(3), learner.w.copy()
    resumed = LMSLearner(geometry(5, 4, 3), seed=99)
    resumed.load_state(state)
    assert resumed.train(3) == expected[0]
    assert np.array_equal(resumed.w, expected[1])


def test_saved_weights_play_as_the_learner_evaluates(tmp_path):
    learner = LMSLearner(geometry(5, 4, 3), seed=1)
    learner.train(5)
    learner.save(tmp_path / "lms.npz")
    agent = lms.make_agent(weights=str(tmp_path / "lms.npz"))
    board = Board(5, 4, 3)
    after = [(board.position ^ board.mask, board.mask | board.move_cell(c)) for c in range(4)]
    values = np.tanh(np.array([lms.inputs(p, m, board.geo) for p, m in after]) @ learner.w)
    move = agent(*observation(board, CLOCK))
    assert -values[move] == pytest.approx(max(-values))


def test_shipped_weights_beat_random():
    me = as_player(lms.make_agent())
    for game in range(6):
        opponent = as_player(random_agent.make_agent(seed=game))
        players = [me, opponent] if game % 2 == 0 else [opponent, me]
        assert play_game(players).outcome.winner == 1 + game % 2
