"""A strong Connect-Four solver in pure Python, after Pascal Pons' final solver.

Scores are always from the point of view of the side to move, in Pons' convention
(http://blog.gamesolver.org/solving-connect-four/02-test-protocol/): 0 for a draw; when the side to
move wins, ``(size + 2) // 2 - s`` where ``s`` is the number of stones it will have played when it
wins (22 - s on 6x7); the negative of the winner's score when it loses.

Algorithm (Pons' gamesolver.org parts 4-12): alpha-beta negamax on bitboards (part 6), centre-first
move ordering refined by the number of winning cells a move creates (part 10), pruning of moves that
lose at once (part 9), a transposition table holding upper and lower bounds (parts 7, 11, 12), and
null-window searches driven by bisection of the score range ("iterative deepening", part 8).

The package's modules, in the order of a solve: :mod:`~agents.engine.solver.position` (a position
from Pons' move string, the move order), :mod:`~agents.engine.solver.databases` (the solved openings),
:mod:`~agents.engine.solver.core` (:class:`Solver`: scores by bisection), the search kernel and what
makes it fast in pure Python, :mod:`~agents.engine.solver.kernel`, its numba twin
:mod:`~agents.engine.solver.fast`, and :mod:`~agents.engine.solver.choice` (a perfect move under a
deadline).

Python API: :func:`solve`, :func:`analyse`, :class:`Solver`. The command line is ``connectx solve``
(:mod:`connectx.solve`), which writes ``moves score`` lines like Pons' ``c4solver``.
"""

from __future__ import annotations

from collections.abc import Iterable

from agents.engine.solver.core import FAST_TABLE_BITS, Solution, Solver
from agents.engine.solver.kernel import SearchAborted
from agents.engine.solver.position import move_order, parse_position

__all__ = [
    "FAST_TABLE_BITS",
    "SearchAborted",
    "Solution",
    "Solver",
    "analyse",
    "move_order",
    "parse_position",
    "solve",
    "warm_up",
]


_default_solvers: dict[tuple[int, int, int], Solver] = {}


def _default(rows: int, columns: int, inarow: int) -> Solver:
    key = (rows, columns, inarow)
    if key not in _default_solvers:
        _default_solvers[key] = Solver(rows, columns, inarow)
    return _default_solvers[key]


def warm_up() -> None:
    """Compile the solver's numba kernel in this process now (:func:`agents.engine.solver.fast.warm_up`),
    so that processes forked from it never compile it; nothing where numba does not import (a
    single-file submission searches in pure Python)."""
    try:
        from agents.engine.solver.fast import warm_up as compile_kernel
    except ImportError:
        return
    compile_kernel()


def solve(
    moves: str | Iterable[int], *, weak: bool = False, rows: int = 6, columns: int = 7, inarow: int = 4
) -> Solution:
    """Score and node count of a position (fresh transposition table). See :meth:`Solver.solve`.

    >>> solve("2252576253462244111563365343671351441")
    Solution(score=-1, nodes=4)
    """
    solver = _default(rows, columns, inarow)
    solver.reset()
    return solver.solve(moves, weak=weak)


def analyse(
    moves: str | Iterable[int], *, weak: bool = False, rows: int = 6, columns: int = 7, inarow: int = 4
) -> list[int | None]:
    """Per-column scores of a position (None for a full column). See :meth:`Solver.analyse`.

    >>> analyse("2252576253462244111563365343671351441")
    [None, None, None, None, None, -1, -2]

    Raises the errors of :func:`parse_position`.
    """
    return _default(rows, columns, inarow).analyse(moves, weak=weak)
