"""The ``td`` agent (alpha-beta with a TD(lambda)-learnt MLP evaluation) and its TDLearner."""

from __future__ import annotations

import pickle
import random

import jax.numpy as jnp
import numpy as np
import pytest

from agents.engine.board import Board, geometry
from agents.kit.adapter import as_player, observation
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.random_agent import make_agent as random_agent
from agents.td import VALUE_SCALE, Td, evaluation, inputs, make_agent, value
from agents.weights import load
from tests.boards import random_board
from tournament.openings import random_openings
from training.learners.td import TDLearner, _mlp
from training.selfplay import play

pytestmark = pytest.mark.jax  # the TDLearner runs JAX: a child pytest process runs the module

SMALL = geometry(5, 4, 3)


def _playable(rows: int, columns: int, inarow: int, seed: int, count: int) -> list[Board]:
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = random_board(rng, rows, columns, inarow)
        if not board.is_game_over():
            boards.append(board)
    return boards


@pytest.mark.parametrize("config", [(6, 7, 4), (5, 4, 3), (7, 9, 5)])
def test_plays_a_legal_int_on_any_board(config) -> None:
    fixed, timed = make_agent(depth=2), make_agent()
    for i, board in enumerate(_playable(*config, seed=sum(config), count=6)):
        agent = timed if i < 2 else fixed  # the time-managed default on a 0.1 s move, then depth 2
        move = agent(*observation(board, Clock(act_timeout=0.25, overage=0.0)))
        assert type(move) is int and board.can_play(move), (config, str(board), move)


def test_root_rules_win_then_block_without_search() -> None:
    agent = make_agent(depth=3)
    win = Board.from_moves("443355")  # first player: columns 2 or 6 (1-based) complete the bottom row
    assert agent(*observation(win, Clock())) in (1, 5) and agent.last_move.stage == "win"
    block = Board.from_moves("41424")  # three in column 4: the second player's only move not losing
    assert agent(*observation(block, Clock())) == 3 and agent.last_move.stage == "block"


def test_a_saved_weights_file_is_the_evaluation_the_search_uses(tmp_path) -> None:
    learner = TDLearner(geometry(6, 7, 4), seed=3)
    path = tmp_path / "w.npz"
    learner.save(path)
    arrays = load(str(path), shipped=bytes)
    board = Board.from_moves("44")
    evaluate = evaluation(arrays, board.geo)
    children = {c: -evaluate(board.opponent, board.mask | board.move_cell(c), 3) for c in board.legal_moves()}
    agent = make_agent(weights=str(path), depth=1)
    assert agent(*observation(board, Clock())) == max(children, key=children.get)
    assert agent.last_move.stage == "search"
    x = inputs(board.position, board.mask, board.geo)
    assert evaluate(board.position, board.mask, 2) == round(VALUE_SCALE * float(value(arrays, x)))


def test_a_weights_file_rewritten_at_the_same_path_is_read_again(tmp_path) -> None:
    """As ``connectx train`` does before each evaluation: an agent made later plays the new weights."""
    geo = geometry(6, 7, 4)
    path = tmp_path / "w.npz"

    def choice(arrays, board: Board) -> int:
        evaluate = evaluation(arrays, geo)
        children = {
            c: -evaluate(board.opponent, board.mask | board.move_cell(c), 3) for c in board.legal_moves()
        }
        return max(children, key=children.get)

    old, new = TDLearner(geo, seed=3), TDLearner(geo, seed=4)
    openings = random_openings(geo, plies=8, count=100, seed=5)  # game on, no win at once
    boards = (Board.from_moves(opening) for opening in openings)
    board = next(b for b in boards if choice(old.params, b) != choice(new.params, b))
    old.save(path)
    assert make_agent(weights=str(path), depth=1)(*observation(board, Clock())) == choice(old.params, board)
    new.save(path)
    assert make_agent(weights=str(path), depth=1)(*observation(board, Clock())) == choice(new.params, board)


def test_a_missing_weights_file_fails_at_make_agent(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        make_agent(weights=str(tmp_path / "nope.npz"))


def test_bad_parameters_raise_value_error() -> None:
    for params in ({"depth": -1}, {"seconds": -0.5}, {"depth": 1.5}):
        with pytest.raises(ValueError):
            Td(**params)


def test_the_runtime_mlp_equals_the_trained_one() -> None:
    learner = TDLearner(SMALL, seed=1)
    x = np.random.default_rng(0).normal(size=(4, 10))
    expected = [
        float(_mlp({k: jnp.asarray(v) for k, v in learner.params.items()}, jnp.asarray(r))) for r in x
    ]
    np.testing.assert_allclose(value(learner.params, x), expected, atol=1e-5)


def test_training_changes_the_weights_and_resumes_exactly() -> None:
    first = TDLearner(SMALL, seed=5)
    before = {k: v.copy() for k, v in first.params.items()}
    metrics = first.train(4)
    assert set(metrics) == {"td_error", "first_score", "plies"} and metrics["td_error"] > 0
    assert any(not np.array_equal(before[k], first.params[k]) for k in before)
    saved = pickle.loads(pickle.dumps(first.state()))
    again = first.train(3)
    second = TDLearner(SMALL, seed=99)
    second.load_state(saved)
    assert second.train(3) == again
    for name, array in first.params.items():
        np.testing.assert_array_equal(array, second.params[name])


def test_a_won_game_raises_the_winners_value_of_the_last_position() -> None:
    learner = TDLearner(SMALL, seed=2)
    seed = 0
    while not (trajectory := play([as_player(random_agent(seed=seed))] * 2, SMALL)).winner:
        seed += 1
    i = len(trajectory.moves) - 2  # the position before the winning move, its mover to move
    x = inputs(trajectory.positions[i], trajectory.masks[i], SMALL)
    before = float(value(learner.params, x))
    learner._learn(trajectory)
    assert float(value(learner.params, x)) > before


def test_the_shipped_weights_beat_random() -> None:
    score = 0.0
    for seed in range(4):
        me, other = as_player(make_agent(depth=2)), as_player(random_agent(seed=seed))
        first = seed % 2 == 0
        result = play_game([me, other] if first else [other, me]).result
        score += result if first else 1 - result
    assert score == 4
