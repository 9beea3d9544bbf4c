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
(:mod:`connectx.solving`), which writes ``moves score`` lines like Pons' ``c4solver``.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Iterable

from agents.engine.solver.core import FAST_TABLE_BITS, Solution, Solver
from agents.engine.solver.kernel import SearchAborted
from agents.engine.solver.position import move_order, parse_position

__all__ = [
    "FAST_TABLE_BITS",
    "SAYS",
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


@functools.cache
def warm_up() -> bool:
    """Have the solver's numba kernel (:mod:`agents.engine.solver.fast`) compiled in this process now,
    so that no search compiles it later and processes forked from this one never do. Once a process:
    later calls return the first answer at once.

    numba compiles on the first call of a signature, or loads the machine code from its cache, which
    it reads only from a folder it can write to (the package's ``__pycache__``, else a user-wide
    folder). A sandboxed agent host can write to neither, so a host that made the first call itself
    compiled the kernel inside its game, for seconds. Called in the process that forks the hosts of
    agents that search with it (:func:`agents.registry.uses_solver`: the runner before its game
    processes, :class:`tournament.sandbox.AgentProcess` before a host of its own), it makes the one
    call that the solver's searches use (the types of
    :meth:`~agents.engine.solver.fast.FastSolver.solve_window`) on a small board; forked children
    inherit the compiled code.

    True when the compiled kernel is ready. False where numba does not import (a single-file
    submission on a machine without it) or compiling fails: :class:`Solver` then searches with the
    pure-Python kernel, and this is said once, on stderr, in a line starting with :data:`SAYS`. A
    kernel compiled in memory (a single-file submission: :data:`agents.engine.solver.fast.CACHE` is
    off) is said there too, with the seconds it took; the package, which loads it from numba's
    cache, says nothing (``connectx check`` reads these lines from Kaggle's logs of the file)."""
    began, cpu = time.perf_counter(), time.process_time()
    try:
        from agents.engine.solver import fast
    except ImportError as error:
        return _say(False, f"numba does not import ({type(error).__name__}: {error})")
    try:
        fast.FastSolver(4, 4, 4, table_bits=4).solve_bits(0, 0, 0)
    except Exception as error:  # noqa: BLE001 - any failure of the compiler: the pure-Python kernel plays on
        return _say(False, f"compiling it failed ({type(error).__name__}: {error})")
    if not fast.CACHE:
        version = getattr(sys.modules.get("numba"), "__version__", "?")
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        _say(True, f"compiled in {seconds:.2f} s ({cpu:.2f} s of CPU) with numba {version}")
    return True


SAYS = "connectx solver:"
"""How :func:`warm_up`'s line on stderr starts."""


def _say(compiled: bool, what: str) -> bool:
    search = "searching compiled" if compiled else "searching in pure Python, no compiled kernel"
    print(f"{SAYS} {search}: {what}", file=sys.stderr, flush=True)
    return compiled


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
