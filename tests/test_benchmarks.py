"""The mistake test shared by the strength benchmarks agrees with a full analysis by the solver."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.engine.board import Board
from agents.engine.solver import Solver
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


def test_verdicts_replay_finds_the_start_value_and_the_one_mistake() -> None:
    from benchmarks.verdicts import Mistake, replay
    from tournament.record import GameRecord, Termination
    from tournament.schedule import GameTask

    opening = "23163416124767223154467471272416755633"  # Pons L3_R1: drawn; column 5 loses
    solver = Solver()
    board = Board.from_moves(opening)
    board.play(4)  # mark 1's mistake
    while not board.is_game_over():  # then both sides play perfectly
        scores = solver.analyse(board.moves, weak=True)
        board.play(max((c for c, s in enumerate(scores) if s is not None), key=lambda c: scores[c]))
    task = GameTask(0, 0, "a", "b", 6, 7, 4, 2.0, None, 1, tuple(int(c) - 1 for c in opening))
    winner = board.winner()
    record = GameRecord(
        task=task,
        moves=board.moves,
        move_times=(),
        result={1: 1.0, 2: 0.0, None: 0.5}[winner],
        termination=Termination.DRAW if winner is None else Termination.WIN,
    )
    assert winner == 2
    assert replay(record, Solver()) == (0, [Mistake(ply=38, column=4, mark=1, before=0, after=-1)])
