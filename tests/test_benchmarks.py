"""The mistake test shared by the strength benchmarks agrees with a full analysis by the solver."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.board import Board
from agents.solver import Solver
from benchmarks.mistakes import is_mistake, outcome_sign, rate_interval

PONS = Path(__file__).parent / "data" / "pons"


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1"])
def test_is_mistake_matches_the_solver_analysis(name: str) -> None:
    fast = pytest.importorskip("training.fast_solver")
    checker = fast.FastSolver(table_bits=16)
    solver = Solver()
    seen = set()
    for line in (PONS / f"{name}.head").read_text().splitlines()[:6]:
        moves, score = line.split()
        board = Board.from_moves(moves)
        scores = solver.analyse(moves, weak=True)
        best = outcome_sign(int(score))
        assert best == max(s for s in scores if s is not None)
        for column, value in enumerate(scores):
            if value is None:
                continue
            expected = value < best
            seen.add(expected)
            assert is_mistake(checker, board, column, best, max_nodes=10**8) is expected, (moves, column)
    assert seen == {True, False}  # both kinds of move occur


def test_is_mistake_reports_an_exhausted_node_limit() -> None:
    fast = pytest.importorskip("training.fast_solver")
    board = Board.from_moves("4")
    assert is_mistake(fast.FastSolver(table_bits=16), board, 3, 0, max_nodes=10) is None
    assert is_mistake(fast.FastSolver(table_bits=16), board, 3, -1, max_nodes=10) is False  # lost: no mistake


def test_rate_interval_is_the_exact_binomial_interval() -> None:
    low, high = rate_interval(0, 30)
    assert low == 0.0 and high == pytest.approx(100 * (1 - 0.025 ** (1 / 30)), rel=1e-6)
    low, high = rate_interval(84, 1000)
    assert 6.7 < low < 8.4 < high < 10.4
    assert rate_interval(0, 0) == (0.0, 100.0)
