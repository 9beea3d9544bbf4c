"""The one alpha-beta search: its table, hooks and deadline change what they should and nothing else."""

from __future__ import annotations

import random
import time

import pytest
from test_board import random_board

from agents.engine.board import Board
from agents.engine.search import DECIDED, WIN, Search
from agents.heuristic import MINIMAX, evaluate
from agents.minimax import course_evaluation
from agents.negamax import threat_evaluation


def open_positions(seed: int, count: int) -> list[Board]:
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = random_board(rng, 6, 7, 4)
        if board.outcome() is None and board.ply < 30:
            boards.append(board)
    return boards


@pytest.mark.parametrize("tactics", [False, True])
def test_the_table_and_the_move_order_leave_the_values_alone(tactics: bool) -> None:
    def evaluation(position: int, mask: int, ply: int) -> int:  # any static value will do
        return threat_evaluation(board.geo)(position, mask, ply)

    for board in open_positions(seed=3, count=12):
        plain = Search(board.geo, evaluation, tactics=tactics, table=False).values(board, 4)
        tabled = Search(board.geo, evaluation, tactics=tactics).values(board, 4)
        reverse = Search(board.geo, evaluation, tactics=tactics, order=lambda p, m, n, cols: cols[::-1])
        assert plain == tabled == reverse.values(board, 4), str(board)


def test_best_agrees_with_values() -> None:
    for board in open_positions(seed=4, count=12):
        search = Search(board.geo, threat_evaluation(board.geo))
        values = search.values(board, 3)
        result = search.best(board, depth=3)
        assert values[result.column] == max(values.values())
        if result.nodes > 1:  # searched, not a tactical shortcut
            assert result.score == max(values.values())


@pytest.mark.parametrize(("moves", "third"), [("1122", 1), ("11223", 1 - 100)])
def test_course_values_are_the_root_players(moves: str, third: int) -> None:
    board = Board.from_moves(moves)
    values = Search(board.geo, course_evaluation(board.geo, board.ply), tactics=False).values(board, 1)
    for column, value in values.items():
        mine = board.position | board.move_cell(column)
        assert value == evaluate(mine, board.opponent, board.geo, MINIMAX)
    assert values[2] == third  # an open three of the root player's, less 100 for one of the opponent's


def test_tactics_win_block_and_give_up() -> None:
    geo = Board().geo
    search = Search(geo, lambda p, m, n: 0)
    win = search.best(Board.from_moves("112233"), depth=3)
    assert (win.column, win.score) == (3, WIN - 7)
    assert search.best(Board.from_moves("11223"), depth=3).column == 3  # the only block
    lost = search.best(Board.from_moves("22334"), depth=3)  # X threatens 1 and 5 on the bottom row
    assert (lost.column, lost.score) == (4, -(WIN - 7))  # the first block, centre first


def test_a_forced_win_is_proven_and_stops_deepening() -> None:
    board = Board.from_moves("2737")  # X to move makes a double threat on the bottom row
    result = Search(board.geo, threat_evaluation(board.geo)).best(
        board, depth=9, deadline=time.perf_counter() + 60
    )
    assert result.column in (0, 3) and result.score > DECIDED
    assert result.depth < 9


def test_allowed_restricts_the_root_moves() -> None:
    board = Board.from_moves("44")
    search = Search(board.geo, threat_evaluation(board.geo))
    assert search.best(board, depth=2, allowed=[0, 6]).column in (0, 6)
    assert search.best(board, depth=2, allowed=[]).column == search.best(board, depth=2).column


def test_batch_evaluation_is_called_once_per_node_above_the_horizon() -> None:
    calls: list[int] = []

    def batch(positions: list[int], masks: list[int], ply: int) -> list[float]:
        calls.append(len(positions))
        return [0.0] * len(positions)

    board = Board.from_moves("4")
    result = Search(board.geo, lambda p, m, n: 0.0, batch=batch, table=False).best(board, depth=2)
    assert len(calls) == 7 and set(calls) == {7}  # one call per root move, all 7 children at once
    assert result.nodes == 7


class FakeClock:
    """``time.perf_counter`` for tests: every read advances it by one second."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_the_deadline_stops_iterative_deepening(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.from_moves("4453")
    first = Search(board.geo, threat_evaluation(board.geo)).best(board, depth=1)
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    search = Search(board.geo, threat_evaluation(board.geo), check_every=1)  # a clock read per node
    result = search.best(board, deadline=40.0)
    assert 1 <= result.depth < 10
    assert result.nodes <= first.nodes + 40  # no node after the deadline's read
    late = search.best(board, deadline=0.0)  # already passed: depth 1 still completes
    assert (late.depth, late.column) == (1, first.column)


def test_bad_calls() -> None:
    search = Search(Board().geo, lambda p, m, n: 0)
    with pytest.raises(ValueError):
        search.best(Board())  # neither depth nor deadline
    with pytest.raises(ValueError):
        search.best(Board(), depth=0)
    with pytest.raises(ValueError):
        search.best(Board(5, 7, 4), depth=2)  # another geometry
    with pytest.raises(ValueError):
        search.best(Board.from_moves("1212121"), depth=2)  # the game is over
    with pytest.raises(ValueError):
        search.values(Board(), 0)
