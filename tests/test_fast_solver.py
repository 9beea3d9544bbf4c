"""The numba twin (agents.engine.solver.fast) agrees with agents.engine.solver on Pons' test positions; the
offline jobs' solver choice (training.solvers)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from agents.engine.solver import SearchAborted, Solver, parse_position
from training.solvers import weak_solver

pytest.importorskip("numba")
from agents.engine.solver.fast import FastSolver  # noqa: E402

DATA = Path(__file__).parent / "data" / "pons"


def _cases(name: str, count: int) -> list[tuple[str, int]]:
    lines = (DATA / name).read_text().splitlines()[:count]
    return [(m, int(s)) for m, s in (line.split() for line in lines)]


@pytest.mark.parametrize("name", ["Test_L3_R1.head", "Test_L2_R1.head", "Test_L1_R1.head"])
def test_scores_equal_the_pure_python_solvers_and_pons(name: str) -> None:
    fast = FastSolver(table_bits=16)
    solver = Solver(fast=False)
    for moves, score in _cases(name, 5):
        solver.reset()
        pos = parse_position(moves, solver.geo)
        assert fast.solve_bits(pos.position, pos.mask, pos.ply) == solver.solve(moves).score == score, moves
        weak = (score > 0) - (score < 0)
        assert fast.solve_bits(pos.position, pos.mask, pos.ply, weak=True) == weak
        assert fast.at_least(pos.position, pos.mask, pos.ply, score)
        assert not fast.at_least(pos.position, pos.mask, pos.ply, score + 1)
        assert fast.nodes > 0


def test_a_node_limit_aborts_the_search() -> None:
    moves, _ = _cases("Test_L1_R1.head", 1)[0]
    fast = FastSolver(table_bits=16)
    pos = parse_position(moves, fast.geo)
    with pytest.raises(SearchAborted):
        fast.solve_bits(pos.position, pos.mask, pos.ply, max_nodes=10)


def test_the_compiled_search_stops_at_its_deadline_by_the_clock_not_by_a_node_budget() -> None:
    """The kernel reads the clock itself: a deadline 10 ms away stops a search that needs 2.9 M nodes
    (about 0.3 s on an idle core) long before its end, however fast or slow this machine is; with
    no deadline the same search ends with the right score: the abort stored no partial result."""
    fast = FastSolver(table_bits=21)
    board = parse_position("7167153251247", fast.geo)  # a win at ply 13: 2.9 M nodes from a cold table
    with pytest.raises(SearchAborted):
        fast.solve_bits(board.position, board.mask, board.ply, deadline=time.perf_counter() + 0.01)
    assert 0 < fast.nodes < 2_000_000
    assert fast.solve_bits(board.position, board.mask, board.ply, deadline=math.inf) == 1


def test_unsupported_geometries_are_refused() -> None:
    with pytest.raises(ValueError, match="inarow == 4"):
        FastSolver(6, 7, 5)
    with pytest.raises(ValueError, match="64"):
        FastSolver(8, 8, 4)


def test_offline_jobs_take_the_twin_when_numba_imports() -> None:
    assert isinstance(weak_solver(12), FastSolver)
    assert isinstance(weak_solver(12, prefer_fast=False), Solver)


def test_the_solver_hands_the_positions_past_the_databases_to_the_numba_kernel() -> None:
    solver, pure = Solver(), Solver(fast=False)
    for moves, score in _cases("Test_L2_R1.head", 5):
        assert solver.solve(moves).score == pure.solve(moves).score == score, moves
        assert solver.nodes > 0
    board = parse_position("7114165755333", solver.geo)  # ply 13: past the databases, about 1 M nodes
    with pytest.raises(SearchAborted):  # a deadline that has passed allows the kernel no node
        solver.solve_bits(board.position, board.mask, board.ply, weak=True, deadline=time.perf_counter())
    assert solver.solve_bits(board.position, board.mask, board.ply, weak=True) == 1


def test_a_process_that_forks_hosts_holds_the_kernel_compiled_before_its_first_host() -> None:
    """A sandboxed host cannot write numba's cache, so it would compile the kernel inside its game:
    ``fork_host`` has the forking process compile it first, and hosts inherit the machine code. A
    fresh interpreter, since this one may have compiled it already."""
    import subprocess
    import sys

    script = (
        "import os, signal\n"
        "from agents.engine.solver import fast\n"
        "from tournament.sandbox.host import fork_host\n"
        "before = len(fast._solve.signatures)\n"
        "pid, conn = fork_host()\n"
        "os.kill(pid, signal.SIGKILL)\n"
        "os.waitpid(pid, 0)\n"
        "print(before, len(fast._solve.signatures))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["0", "1"], out.stderr
