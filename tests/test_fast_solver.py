"""The numba twin (agents.engine.solver.fast) agrees with agents.engine.solver on Pons' test positions; the
offline jobs' solver choice (training.solvers)."""

from __future__ import annotations

import math
import random
import time
from pathlib import Path

import pytest

from agents.engine.board import Board
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


def test_positions_before_the_databases_get_the_pure_python_scores_from_the_compiled_kernel() -> None:
    """The numba kernel searches down to the distance database and probes it compiled: every column's
    score of random positions of 2 to 11 stones, and their signs, equal the pure-Python solver's, and
    the pure-Python kernel took no part (it raises if called)."""
    pytest.importorskip("bitbully_databases")
    compiled, pure = Solver(), Solver(fast=False)
    assert compiled.database is not None and compiled.database.exact

    def refuse(*args: object) -> int:
        raise AssertionError("the pure-Python kernel searched")

    compiled._negamax = refuse
    rng = random.Random(12)
    for plies in [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11]:  # ply 1 alone would cost the pure solver 0.6 s
        board = Board(6, 7, 4)
        while board.ply < plies:  # random moves, the game still on
            column = rng.choice(board.legal_moves())
            if not board.is_winning_move(column):
                board.play(column)
        moves = board.moves
        assert compiled.analyse(moves) == pure.analyse(moves), moves
        assert compiled.solve(moves, weak=True).score == pure.solve(moves, weak=True).score, moves


def test_the_kernel_is_compiled_before_the_hosts_fork_for_agents_that_use_it_and_only_for_them() -> None:
    """A sandboxed host cannot write numba's cache, so it would compile the kernel inside its game:
    the runner compiles it before it forks its game processes, and an ``AgentProcess`` without a
    zygote before it forks its host, when an entrant uses the solver; for others numba is not even
    imported (its 45 MB would be copied into every host). A fresh interpreter, since this one may
    have compiled it already."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from tournament.runner import run_games\n"
        "from tournament.sandbox import AgentProcess\n"
        "from tournament.schedule import GameTask\n"
        "def compiled():\n"
        "    fast = sys.modules.get('agents.engine.solver.fast')\n"
        "    return len(fast._solve.signatures) if fast else 'none'\n"
        "def play(first):\n"
        "    task = GameTask(game_id=0, pair_id=0, first=first, second='kaggle-random', rows=6, columns=7,\n"
        "                    inarow=4, act_timeout=2.0, hang_limit=None, seed=0)\n"
        "    print(type(next(iter(run_games([task], 1)))).__name__, compiled())\n"
        "def host(spec):\n"
        "    AgentProcess(spec, 1, seed=0, global_seed=0).close()\n"
        "    print(compiled())\n"
        "for step in sys.argv[1:]:\n"
        "    (play if step.startswith('run:') else host)(step.partition(':')[2])\n"
    )

    def run(*steps: str) -> list[str]:
        out = subprocess.run(
            [sys.executable, "-c", script, *steps], capture_output=True, text=True, timeout=120, check=True
        )
        return out.stdout.split()

    assert run("run:kaggle-random", "host:random", "run:negamax") == [
        "GameRecord",
        "none",
        "none",
        "GameRecord",
        "1",
    ]
    assert run("host:negamax") == ["1"]
