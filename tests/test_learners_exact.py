"""The learners' exact targets (training.learners.exact): the solver's values satisfy the negamax
Bellman equation the learners use, and training games start from balanced openings outside the
tournament suite."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.engine.board import Board, geometry
from tests.boards import random_board
from training.learners.exact import FIRST_PLY, Oracle, _suite_keys, opening

GAMMA = 0.9


def _worth(board: Board, column: int, oracle: Oracle) -> float:
    """The mover's worth of ``column``: 1 for a win, 0 for a draw, else -GAMMA * the oracle's value."""
    if board.is_winning_move(column):
        return 1.0
    board.push(column)
    try:
        if board.is_game_over():
            return 0.0
        return -GAMMA * float(oracle.values([board.position], [board.mask], [board.ply])[0])
    finally:
        board.pop()


@pytest.mark.parametrize("config", [(5, 4, 3), (6, 7, 4)])
def test_values_are_the_fixed_point_of_the_negamax_bellman_equation(config) -> None:
    oracle = Oracle(geometry(*config), GAMMA)
    rng = random.Random(1)
    checked = 0
    while checked < 12:
        board = random_board(rng, *config)
        if board.is_game_over() or board.ply < FIRST_PLY or board.ply + 1 >= board.geo.size:
            continue
        value = oracle.values([board.position], [board.mask], [board.ply])[0]
        assert value == pytest.approx(max(_worth(board, c, oracle) for c in board.legal_moves()))
        checked += 1


def test_early_positions_and_searches_past_the_bound_have_no_value() -> None:
    board = Board.from_moves("4444")
    assert np.isnan(Oracle(board.geo, GAMMA).values([board.position], [board.mask], [board.ply])[0])
    board = Board.from_moves("4455443")  # ply 7: the pure-Python search needs more than one node
    starved = Oracle(board.geo, GAMMA, early_nodes=1)
    assert np.isnan(starved.values([board.position], [board.mask], [board.ply])[0])


def test_openings_are_balanced_outside_the_suite_on_6x7_and_empty_elsewhere() -> None:
    geo = geometry(6, 7, 4)
    oracle = Oracle(geo, GAMMA)
    rng = np.random.default_rng(0)
    drawn = [opening(geo, rng, oracle) for _ in range(12)]
    assert () in drawn and any(drawn)
    for moves in filter(None, drawn):
        board = Board.from_moves(moves)
        assert 6 <= board.ply <= 8 and not board.winning_moves()
        assert board.position + board.mask not in _suite_keys()
        assert abs(oracle.solver.solve_bits(board.position, board.mask, board.ply)) <= 2
    assert opening(geometry(5, 4, 3), rng, Oracle(geometry(5, 4, 3), GAMMA)) == ()
