"""The Gymnasium and PettingZoo environments: their APIs' own checkers, the rules, and the referee's games."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from agents.engine.board import Board
from benchmarks.env_referee import compare, play_random_games
from training.envs import ENV_ID, ConnectXAECEnv, ConnectXEnv, Rewards, env
from training.envs.view import CELL, planes

BOARDS = [(6, 7, 4), (5, 4, 3)]


def scripted(columns: list[int]) -> Any:
    """An opponent playing ``columns`` in turn."""
    moves = iter(columns)

    def agent(obs: Any, config: Any) -> int:
        return next(moves)

    return agent


@pytest.mark.parametrize(("rows", "columns", "inarow"), BOARDS)
def test_gymnasium_check_env_passes(rows: int, columns: int, inarow: int) -> None:
    for mark in (1, 2, "alternate"):
        made = gymnasium.make(
            ENV_ID, rows=rows, columns=columns, inarow=inarow, mark=mark, render_mode="ansi"
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a warning of the checker is a failure
            check_env(made.unwrapped)
        made.close()


@pytest.mark.parametrize(("rows", "columns", "inarow"), BOARDS)
def test_pettingzoo_api_test_passes(rows: int, columns: int, inarow: int) -> None:
    with warnings.catch_warnings():
        # api_test warns of what connect_four_v3 has too: a dict observation, the empty board's zeros
        warnings.filterwarnings("ignore", message="Observation")
        api_test(env(rows=rows, columns=columns, inarow=inarow), num_cycles=300)


def test_the_registered_id_makes_the_environment_with_its_options() -> None:
    made = gymnasium.make(ENV_ID, rows=5, columns=4, inarow=3, opponent="leftmost")
    assert isinstance(made.unwrapped, ConnectXEnv)
    obs, info = made.reset(seed=0)
    assert obs.shape == (2, 5, 4) and obs.dtype == np.float32
    assert info["action_mask"].tolist() == [1, 1, 1, 1]


def test_observation_is_the_learners_planes_and_the_opponent_replies() -> None:
    game = ConnectXEnv(opponent="leftmost")
    obs, info = game.reset(seed=0)
    assert not obs.any() and info["moves"] == ()
    obs, reward, done, truncated, info = game.step(3)
    assert (reward, done, truncated) == (0.0, False, False)
    assert info["moves"] == (3, 0)
    assert obs[0, 5, 3] == 1 and obs[1, 5, 0] == 1 and obs.sum() == 2  # row 0 on top: the bottom is row 5


def test_the_learner_as_mark_2_sees_the_opponents_first_move() -> None:
    game = ConnectXEnv(opponent="middle", mark=2)
    obs, info = game.reset(seed=0)
    assert info["mark"] == 2 and info["moves"] == (3,)
    assert obs[1, 5, 3] == 1 and obs[0].sum() == 0


def test_alternate_colours_restart_at_a_seeded_reset() -> None:
    game = ConnectXEnv(mark="alternate")
    marks = [game.reset(seed=1)[1]["mark"], game.reset()[1]["mark"], game.reset()[1]["mark"]]
    assert marks == [1, 2, 1]
    assert game.reset(seed=1)[1]["mark"] == 1


def test_a_win_a_loss_and_a_draw() -> None:
    game = ConnectXEnv(opponent=scripted([0, 0, 0]))
    game.reset(seed=0)
    for column in (3, 3, 3):
        assert not game.step(column)[2]
    _, reward, done, _, info = game.step(3)
    assert (reward, done, info["result"], info["termination"], info["offender"]) == (
        1.0,
        True,
        1.0,
        "win",
        None,
    )

    game = ConnectXEnv(opponent=scripted([0, 0, 0, 0]))
    game.reset(seed=0)
    for column in (1, 2, 1):
        game.step(column)
    _, reward, done, _, info = game.step(5)
    assert (reward, done, info["result"], info["termination"]) == (-1.0, True, 0.0, "win")

    draw = ConnectXEnv(1, 2, 2, opponent="random")  # two cells, two in a row: nobody can make a line
    draw.reset(seed=0)
    _, reward, done, _, info = draw.step(0)
    assert (reward, done, info["result"], info["termination"]) == (0.0, True, 0.5, "draw")


def test_an_invalid_action_ends_the_episode_with_the_schemes_penalty() -> None:
    game = ConnectXEnv(2, 3, 3, opponent="leftmost", reward="course")
    game.reset(seed=0)
    _, reward, _, _, info = game.step(0)  # the opponent fills column 0
    assert reward == pytest.approx(1 / 6) and info["action_mask"].tolist() == [0, 1, 1]
    assert not game.action_masks()[0]
    _, reward, done, _, info = game.step(0)
    assert (reward, done, info["termination"], info["offender"], info["result"]) == (
        -10.0,
        True,
        "invalid",
        "learner",
        0.0,
    )
    with pytest.raises(RuntimeError, match="reset"):
        game.step(1)
    with pytest.raises(ValueError, match="not in"):
        ConnectXEnv().step(7) if False else _step_after_reset(ConnectXEnv(), 7)


def _step_after_reset(game: ConnectXEnv, action: Any) -> None:
    game.reset(seed=0)
    game.step(action)


@pytest.mark.parametrize(
    ("answer", "termination"),
    [(7, "invalid"), ("3", "invalid"), (np.int64(3), "invalid"), (ValueError("boom"), "error")],
)
def test_the_opponents_forfeit_is_judged_as_the_referee_judges_it(answer: Any, termination: str) -> None:
    def agent(obs: Any, config: Any) -> Any:
        if isinstance(answer, Exception):
            raise answer
        return answer

    game = ConnectXEnv(opponent=agent, reward=Rewards(win=2.0))
    game.reset(seed=0)
    _, reward, done, _, info = game.step(0)
    assert (reward, done, info["termination"], info["offender"], info["result"]) == (
        2.0,
        True,
        termination,
        "opponent",
        1.0,
    )
    assert info["detail"]


def test_an_opponent_over_its_time_forfeits_only_when_timed() -> None:
    from agents.kit.adapter import Clock

    clock = Clock(act_timeout=0.0, overage=0.0)
    slow = "leftmost"
    timed = ConnectXEnv(opponent=slow, clock=clock)
    timed.reset(seed=0)
    assert timed.step(3)[4]["termination"] == "timeout"  # any time at all overdraws an empty bank
    untimed = ConnectXEnv(opponent=slow, clock=clock, timed=False)
    untimed.reset(seed=0)
    assert not untimed.step(3)[2]


def test_openings_from_a_list_a_function_and_the_reset_options() -> None:
    game = ConnectXEnv(openings=[[3, 3, 2]], opponent="leftmost", mark=1)
    _, info = game.reset(seed=0)
    assert info["moves"] == (3, 3, 2, 0)  # the opening leaves mark 2 to move: the opponent's turn
    game = ConnectXEnv(openings=lambda rng: [int(rng.integers(7))])
    assert len(game.reset(seed=0)[1]["moves"]) == 2
    _, info = ConnectXEnv().reset(seed=0, options={"opening": [1, 2], "mark": 1})
    assert info["moves"] == (1, 2)
    with pytest.raises(ValueError, match="opening"):
        ConnectXEnv().reset(seed=0, options={"opening": [0] * 7})
    with pytest.raises(ValueError, match="game ends before the learner"):
        ConnectXEnv(opponent="leftmost", mark=2).reset(seed=0, options={"opening": [0, 1, 0, 1, 0, 1]})


def test_bad_options_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="unknown agent 'negamx': did you mean 'negamax'"):
        ConnectXEnv(opponent="negamx")
    with pytest.raises(ValueError, match="mark"):
        ConnectXEnv(mark=3)
    with pytest.raises(ValueError, match="reward scheme"):
        ConnectXEnv(reward="shaped")
    with pytest.raises(ValueError, match="rows"):
        ConnectXEnv(rows=0)


def test_renders_text_and_a_picture() -> None:
    game = ConnectXEnv(5, 4, 3, opponent="leftmost", render_mode="rgb_array")
    game.reset(seed=0)
    game.step(3)
    picture = game.render()
    assert (
        isinstance(picture, np.ndarray)
        and picture.shape == (5 * CELL, 4 * CELL, 3)
        and picture.dtype == np.uint8
    )
    centre = CELL // 2
    bottom = 4 * CELL + centre
    assert tuple(picture[bottom, 3 * CELL + centre]) == (220, 50, 47)  # mark 1 red, in column 4
    assert tuple(picture[bottom, centre]) == (245, 200, 40)  # mark 2 yellow, in column 1
    text = ConnectXEnv(5, 4, 3, render_mode="ansi")
    text.reset(seed=0)
    assert text.render() == "1 2 3 4\n" + "\n".join([". . . ."] * 5) + "\nX (1) to move\n"


def test_aec_self_play_a_win_and_a_forfeit() -> None:
    aec = ConnectXAECEnv(reward="course")
    aec.reset()
    for column in (3, 0, 3, 0, 3, 0):
        aec.step(column)
    assert aec.rewards == {"player_0": 0.0, "player_1": pytest.approx(1 / 42)}  # the last mover's
    observation = aec.observe("player_0")
    assert observation["action_mask"].tolist() == [1] * 7
    assert (observation["observation"] == planes(Board.from_moves([3, 0, 3, 0, 3, 0]), 1)).all()
    assert not aec.observe("player_1")["action_mask"].any()
    aec.step(3)
    assert aec.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(aec.terminations.values()) and aec.infos["player_1"]["termination"] == "win"

    aec = ConnectXAECEnv(2, 2, 3)
    aec.reset(options={"opening": [0]})
    assert aec.agent_selection == "player_1"
    aec.step(0)
    aec.step(0)  # column 0 is full
    assert aec.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert aec.infos["player_0"] == {"termination": "invalid", "offender": "player_0"}


@pytest.mark.parametrize(
    ("opponent", "games", "plies", "board"),
    [
        # negamax answers at once past the 12-ply databases (before them it reads them in pure Python,
        # about 0.2 s a move): the sample starts from random 14-ply openings, which the referee plays first
        ("negamax", 6, 14, {}),
        ("random", 12, 0, {"rows": 4, "columns": 4, "inarow": 3}),
    ],
)
def test_random_games_in_the_environment_are_the_referees_games(
    opponent: str, games: int, plies: int, board: dict[str, int]
) -> None:
    played = list(play_random_games(games, opponent, seed=3, opening_plies=plies, **board))
    assert compare(played, opponent, **board) == []
    if opponent == "random":  # the sample covers the learner's wins and forfeits, not only its losses
        assert {game.termination for game in played} >= {"win", "invalid"}
        assert any(game.result == 1.0 for game in played)
