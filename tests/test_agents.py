"""Every built-in agent plays a legal Python ``int`` on any configuration; the course agents equal
the course's algorithm."""

from __future__ import annotations

import copy
import importlib
import random

import pytest
from kaggle_environments.utils import structify

from agents.engine.board import Board
from agents.kit.adapter import observation
from agents.kit.clock import Clock
from agents.minimax import minimax_values
from agents.one_step import score_moves
from agents.registry import BUILTIN
from tests import course_reference as course
from tests.boards import random_board

ODD_CONFIGS = [(1, 1, 1), (3, 3, 3), (10, 10, 5), (6, 7, 1), (2, 5, 4), (6, 7, 4), (4, 9, 9)]
LEGAL_AGENTS = [name for name in BUILTIN if name != "middle"]


CLOCK = Clock(act_timeout=0.2, overage=1.0)  # agents that draw on the bank draw little


def positions(seed: int, count: int):
    rng = random.Random(seed)
    found = 0
    while found < count:
        rows, columns, k = rng.choice(ODD_CONFIGS)
        board = random_board(rng, rows, columns, k)
        if not board.is_game_over():
            found += 1
            yield board


@pytest.mark.parametrize("name", LEGAL_AGENTS)
def test_agents_return_a_legal_python_int_and_leave_obs_alone(name):
    agent = importlib.import_module(BUILTIN[name]).make_agent()
    for board in positions(seed=len(name), count=12):
        obs, config = observation(board, CLOCK)
        before = copy.deepcopy(obs)
        move = agent(obs, config)
        assert type(move) is int, (name, type(move))
        assert board.can_play(move), (name, move, str(board))
        assert obs == before


@pytest.mark.parametrize("name", LEGAL_AGENTS)
def test_agents_accept_kaggle_structs(name):
    agent = importlib.import_module(BUILTIN[name]).agent
    obs, config = observation(Board.from_moves("4444"), CLOCK)
    assert Board.from_moves("4444").can_play(agent(structify(obs), structify(config)))


def test_middle_plays_the_centre_even_when_it_is_full():
    from agents.middle import agent

    obs, config = observation(Board.from_moves("444444"), CLOCK)
    assert agent(obs, config) == 3


@pytest.mark.parametrize("name", ["random", "one_step", "minimax"])
def test_seeded_agents_repeat_themselves(name):
    module = importlib.import_module(BUILTIN[name])
    boards = list(positions(seed=5, count=20))
    first = [module.make_agent(seed=11)(*observation(b, CLOCK)) for b in boards]
    second = [module.make_agent(seed=11)(*observation(b, CLOCK)) for b in boards]
    assert first == second


def test_minimax_equals_the_course_algorithm_on_random_positions():
    checked = 0
    for board in positions(seed=2024, count=40):
        geo = board.geo
        cells = board.to_kaggle()
        for depth in (1, 2, 3):
            if depth == 3 and geo.size > 42:
                continue  # the plain reference is too slow on 10x10 at depth 3
            expected = course.minimax_values(cells, board.mark, geo.rows, geo.columns, geo.inarow, depth)
            assert minimax_values(board, depth) == expected, (str(board), depth)
            checked += 1
        assert score_moves(board) == course.one_step_values(
            cells, board.mark, geo.rows, geo.columns, geo.inarow
        )
    assert checked > 80


def test_minimax_rejects_depth_zero():
    with pytest.raises(ValueError):
        minimax_values(Board(), 0)
