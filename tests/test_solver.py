"""The solver against Pons' test positions, its API and its command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.engine.board import ColumnFullError, GameOverError, NotAColumnError
from agents.engine.lines import wins_function
from agents.engine.solver import SearchAborted, Solver, analyse, parse_position, solve

DATA = Path(__file__).parent / "data" / "pons"


def _cases(name: str) -> list[tuple[str, int]]:
    return [(m, int(s)) for m, s in (line.split() for line in (DATA / name).read_text().splitlines())]


@pytest.mark.parametrize("name", ["Test_L3_R1.head", "Test_L2_R1.head", "Test_L1_R1.head"])
def test_scores_match_pons(name: str) -> None:
    solver = Solver(fast=False)
    for moves, score in _cases(name):
        solver.reset()
        assert solver.solve(moves).score == score, moves


def test_weak_solve_gives_the_sign() -> None:
    solver = Solver(fast=False)
    for moves, score in _cases("Test_L2_R1.head"):
        assert solver.solve(moves, weak=True).score == (score > 0) - (score < 0)


def test_node_counts_are_reported_and_small_on_easy_positions() -> None:
    total = 0
    cases = _cases("Test_L3_R1.head")
    for moves, _ in cases:
        total += solve(moves).nodes
    assert 0 < total / len(cases) < 200


def test_win_at_once_scores_by_stones_played() -> None:
    # X has the bottom cells of columns 1-3 and wins at once in column 4 with its 6th stone: 22 - 6.
    assert solve("1111112233").score == 16
    assert solve("1111112233", weak=True).score == 1


def test_analyse_per_column_marks_full_columns() -> None:
    moves = "2252576253462244111563365343671351441"
    board_full = [c for c in range(7) if moves.count(str(c + 1)) == 6]
    scores = analyse(moves)
    assert [c for c in range(7) if scores[c] is None] == board_full
    assert solve(moves).score == max(s for s in scores if s is not None)


def test_analyse_agrees_with_solve_on_children() -> None:
    moves, score = _cases("Test_L3_R1.head")[0]
    scores = analyse(moves)
    assert max(s for s in scores if s is not None) == score


@pytest.mark.parametrize(
    ("moves", "error"),
    [
        ("4480", NotAColumnError),
        ("48", NotAColumnError),
        ("1111111", ColumnFullError),
        ("1212121", GameOverError),
        ("12121213", GameOverError),
    ],
)
def test_invalid_positions_are_refused(moves: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        solve(moves)


def test_other_geometries() -> None:
    # 4x4 with three in a row: the first player wins; 1x1: a draw after one move; 2x2 inarow 3: draw.
    assert solve("", rows=4, columns=4, inarow=3).score > 0
    assert solve("", rows=1, columns=1, inarow=2).score == 0
    assert solve("", rows=2, columns=2, inarow=3).score == 0
    assert solve("", rows=3, columns=3, inarow=1).score == (9 + 1) // 2
    # 5x4 connect-four versus brute force over the children.
    solver = Solver(4, 5, 4)
    scores = solver.analyse("323")
    assert solver.solve("323").score == max(s for s in scores if s is not None)


def test_abort_on_node_limit() -> None:
    solver = Solver()
    board_moves = "4453"

    board = parse_position(board_moves, solver.geo)
    with pytest.raises(SearchAborted):
        solver.solve_bits(board.position, board.mask, board.ply, max_nodes=5000)


def test_at_least_is_a_null_window_test() -> None:
    solver = Solver()
    for moves, score in _cases("Test_L2_R1.head")[:6]:
        board = parse_position(moves, solver.geo)
        for value in (score - 1, score, score + 1, 0, 1):
            assert solver.at_least(board.position, board.mask, board.ply, value) == (score >= value)


def test_the_kernels_inlined_winning_cells_agree_with_the_board_rules() -> None:
    solver = Solver(fast=False)  # the pure-Python kernel, whose memo this test reads
    for moves, _ in _cases("Test_L2_R1.head")[:10]:  # middle-game positions, solved in milliseconds
        solver.solve(moves)
    wins = wins_function(solver.geo)
    cache = solver._wins_cache
    assert len(cache) > 100
    # The kernel leaves bits outside the board in place (it masks with the empty cells when it reads them).
    assert all(cells & solver.geo.board == wins(stones) for stones, cells in cache.items())
