"""The bitboard engine against brute force on Kaggle's flat boards, on many configurations."""

from __future__ import annotations

import random

import pytest

from agents.engine.board import (
    Board,
    ColumnFullError,
    GameOverError,
    InvalidBoardError,
    NotAColumnError,
    Outcome,
    geometry,
)
from tests.boards import random_board

CONFIGS = [(6, 7, 4), (1, 1, 1), (3, 3, 3), (10, 10, 5), (5, 4, 1), (4, 6, 2), (2, 9, 7), (7, 3, 4)]


def brute_winner(cells: list[int], rows: int, columns: int, k: int) -> set[int]:
    """Marks with ``k`` in a row on Kaggle's flat board (row 0 on top)."""
    marks = set()
    for r in range(rows):
        for c in range(columns):
            mark = cells[r * columns + c]
            if not mark:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                rr, cc = r + (k - 1) * dr, c + (k - 1) * dc
                if (
                    0 <= rr < rows
                    and 0 <= cc < columns
                    and all(cells[(r + i * dr) * columns + c + i * dc] == mark for i in range(k))
                ):
                    marks.add(mark)
    return marks


def test_kaggle_mapping_row_zero_is_the_top():
    board = Board.from_moves("44")  # X then O in column 4 (index 3)
    cells = board.to_kaggle()
    assert cells[5 * 7 + 3] == 1 and cells[4 * 7 + 3] == 2
    assert sum(1 for v in cells if v) == 2
    assert board.mark == 1 and board.ply == 2


@pytest.mark.parametrize("rows,columns,k", CONFIGS)
def test_random_games_agree_with_brute_force(rows, columns, k):
    rng = random.Random(rows * 100 + columns * 10 + k)
    for _ in range(150):
        board = random_board(rng, rows, columns, k)
        cells = board.to_kaggle()
        winners = brute_winner(cells, rows, columns, k)
        assert (board.winner() is not None) == bool(winners)
        if winners:
            assert winners == {board.winner()}
        again = Board.from_kaggle(cells, board.mark, rows=rows, columns=columns, inarow=k)
        assert (again.position, again.mask, again.ply) == (board.position, board.mask, board.ply)
        if board.is_game_over():
            continue
        for column in board.legal_moves():
            child = cells.copy()
            row = max(r for r in range(rows) if child[r * columns + column] == 0)
            child[row * columns + column] = board.mark
            wins = board.mark in brute_winner(child, rows, columns, k)
            assert board.is_winning_move(column) == wins
            assert bool(board.winning_moves() & board.move_cell(column)) == wins


def test_push_pop_restores_the_position():
    rng = random.Random(3)
    board = Board()
    keys = [board.key()]
    while not board.is_game_over():
        board.push(rng.choice(board.legal_moves()))
        keys.append(board.key())
    while board.ply:
        keys.pop()
        board.pop()
        assert board.key() == keys[-1]
    with pytest.raises(IndexError):
        board.pop()


def test_illegal_moves_raise_named_errors():
    board = Board.from_moves("444444")
    with pytest.raises(ColumnFullError):
        board.push(3)
    with pytest.raises(NotAColumnError):
        board.push(7)
    with pytest.raises(NotAColumnError):
        board.push(-1)
    with pytest.raises(NotAColumnError):
        Board.from_moves("48")
    won = Board.from_moves("1212121")
    assert won.winner() == 1
    with pytest.raises(GameOverError):
        won.push(4)
    assert all(issubclass(e, ValueError) for e in (ColumnFullError, NotAColumnError, GameOverError))


@pytest.mark.parametrize(
    "cells,mark,message",
    [
        ([0] * 41, 1, "41 cells"),
        ([3] + [0] * 41, 1, "holds 3"),
        ([1] + [0] * 41, 2, "floats"),
        ([0] * 41 + [2], 1, "do not fit"),
        ([0] * 41 + [1], 1, "do not fit"),
        ([0] * 42, 3, "mark must be"),
    ],
)
def test_from_kaggle_rejects_impossible_boards(cells, mark, message):
    with pytest.raises(InvalidBoardError, match=message):
        Board.from_kaggle(cells, mark, rows=6, columns=7, inarow=4)


@pytest.mark.parametrize("bad", [(0, 7, 4), (6, 0, 4), (6, 7, 0), (6.0, 7, 4), (True, 7, 4)])
def test_geometry_rejects_bad_configurations(bad):
    with pytest.raises(InvalidBoardError):
        geometry(*bad)


def test_inarow_one_wins_with_any_move_and_too_long_lines_never_win():
    assert Board(3, 3, 1).is_winning_move(1)
    board = Board(2, 2, 3)
    for column in (0, 1, 0, 1):
        board.push(column)
    assert board.is_full() and board.winner() is None


@pytest.mark.parametrize("rows,columns,k", CONFIGS)
def test_threats_and_non_losing_moves_agree_with_brute_force(rows, columns, k):
    rng = random.Random(rows * 1000 + columns * 10 + k)
    for _ in range(100):
        board = random_board(rng, rows, columns, k)
        if board.is_game_over():
            continue
        threats = 0  # empty cells where the opponent would complete a line, found by trying each one
        for cell in range(board.geo.size):
            r, c = divmod(cell, columns)
            bit = 1 << (c * board.geo.height + rows - 1 - r)
            if not board.mask & bit:
                cells = board.to_kaggle()
                cells[cell] = 3 - board.mark
                if (3 - board.mark) in brute_winner(cells, rows, columns, k):
                    threats |= bit
        assert board.threats() == threats
        safe = 0
        for column in board.legal_moves():
            child = board.copy()
            child.play(column)
            if child.is_full() or not child.winning_moves():
                safe |= board.move_cell(column)
        assert board.non_losing_moves() == safe
        assert board.columns(safe) == [c for c in board.legal_moves() if safe & board.move_cell(c)]


def test_wins_function_agrees_with_the_general_formula_on_empty_cells():
    from agents.engine.lines import _general, wins_function

    for rows, columns in ((6, 7), (4, 5), (9, 9), (5, 12)):
        geo = geometry(rows, columns, 4)
        rng = random.Random(rows * columns)
        for _ in range(200):
            board = random_board(rng, rows, columns, 4)
            for stones in (board.position, board.opponent):
                assert wins_function(geo)(stones) & ~board.mask == _general(stones, geo) & ~board.mask


def test_outcome_names_the_winner_or_the_draw():
    assert Board.from_moves("4455").outcome() is None
    won = Board.from_moves("4455667")
    assert won.outcome() == Outcome(1)
    assert (won.outcome().result, won.outcome().reward(1), won.outcome().reward(2)) == (1.0, 1, -1)
    lost = Board.from_moves("14455667")
    assert lost.outcome() == Outcome(2) and lost.outcome().result == 0.0
    draw = Board.from_moves([0, 1, 2], rows=1, columns=3, inarow=2)
    assert draw.outcome() == Outcome(None)
    assert (draw.outcome().result, draw.outcome().reward(1)) == (0.5, 0)
