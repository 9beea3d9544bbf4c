"""The Monte Carlo tree search agent: tactics at the root, the rollout evaluator, search results,
reuse of the tree, parameters."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from agents.engine.board import Board
from agents.kit.clock import Clock
from agents.mcts import Mcts, make_agent, rollout_evaluator
from agents.registry import load_agent, parse_spec

CLOCK = Clock()


def test_takes_a_win_and_blocks_a_threat_without_searching() -> None:
    player = Mcts(rollouts=10, seed=1)
    move = player.play(Board.from_moves("445566"), CLOCK)
    assert move.column in (2, 6) and move.stage == "win"  # bottom row X X X: complete it
    move = player.play(Board.from_moves("17273"), CLOCK)
    assert move.column == 3 and move.stage == "block"  # O must block the bottom row at column 4


@pytest.mark.parametrize(
    ("moves", "rows", "columns", "value"),
    [
        ("11", 2, 2, 1.0),  # two in a row on 2x2: the one legal move wins for the side to move
        ("2", 1, 3, -1.0),  # on 1x3: O takes an end, X the other beside its centre stone
        ("1", 1, 2, 0.0),  # on 1x2: O fills the board with no line
    ],
)
def test_the_rollout_values_the_side_to_move(moves: str, rows: int, columns: int, value: float) -> None:
    board = Board.from_moves(moves, rows=rows, columns=columns, inarow=2)
    logits, result = rollout_evaluator(board.geo, random.Random(0))(board.position, board.mask, board.ply)
    assert list(logits) == [0.0] * columns and result == value


def test_finds_the_open_three_that_wins() -> None:
    # X holds the 4th and 5th bottom cells with both ends open: columns 3 or 6 (1-based) make an open
    # three, a win in two moves whatever O does.
    player = Mcts(rollouts=3000, seed=1)
    move = player.play(Board.from_moves("4455"), CLOCK)
    assert move.column in (2, 5) and move.stage == "search"


def test_a_fixed_number_of_rollouts_with_a_seed_repeats_itself() -> None:
    boards = [Board.from_moves(moves) for moves in ("", "4", "4453", "1234567")]
    runs = [[Mcts(rollouts=300, seed=7).play(board, CLOCK).column for board in boards] for _ in range(2)]
    assert runs[0] == runs[1]


def test_the_tree_is_kept_for_the_next_move() -> None:
    player = Mcts(rollouts=2000, seed=3)
    board = Board()
    move = player.play(board, CLOCK)
    board.push(move.column)
    assert move.visits == 2000 == 1 + move.simulations
    board.push(3)  # the reply the tree has explored most: the centre
    move = player.play(board, CLOCK)
    reused = move.reused
    assert reused > 0 and move.simulations == 2000 - 1 - reused  # visits add up
    assert player.play(Board.from_moves("1111"), CLOCK).reused == 0  # an unrelated position: a new tree


def test_plays_other_boards() -> None:
    player = Mcts(rollouts=500, seed=2)
    board = Board.from_moves("3", rows=4, columns=5, inarow=3)
    assert board.can_play(player.play(board, CLOCK).column)
    assert player.play(Board.from_moves("44"), CLOCK).column in range(7)  # a new search for the 6x7 board


def test_seconds_stop_the_search_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``rollouts`` the clock ends the search: on a clock that advances 1 s at each reading
    (the move's start reads 0, the search reads it once before each simulation), a move of 4.5 s
    runs 4 simulations."""
    readings = itertools.count()
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(readings)))
    player = Mcts(seconds=4.5, seed=1)
    move = player.play(Board.from_moves("44"), CLOCK)
    assert move.stage == "search" and move.simulations == 4


@pytest.mark.parametrize("params", [{"c": -1.0}, {"rollouts": 0}, {"seconds": 0.0}])
def test_bad_parameters(params: dict) -> None:
    with pytest.raises(ValueError):
        make_agent(**params)


def test_the_registry_builds_it_from_a_spec() -> None:
    agent = load_agent(parse_spec("mcts:rollouts=50,seed=2,c=1.0"))
    board = Board.from_moves("44")
    obs = {"board": board.to_kaggle(), "mark": board.mark, "remainingOverageTime": 60, "step": 2}
    move = agent(obs, {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2})
    assert type(move) is int and board.can_play(move)
    assert agent.last_move.stage == "search" and agent.last_move.visits == 50  # the player's
