"""The weak solver of offline jobs: the numba twin when numba imports, else the pure-Python solver."""

from __future__ import annotations

from typing import Protocol

from agents.engine.solver import Solver

__all__ = ["WeakSolver", "weak_solver"]


class WeakSolver(Protocol):
    """What offline jobs ask of a solver (both :class:`agents.engine.solver.Solver` and
    :class:`agents.engine.solver.fast.FastSolver` have it): scores in Pons' convention from the side
    to move of a position given as bitboards (:mod:`agents.engine.board`), game on."""

    nodes: int

    def solve_bits(self, position: int, mask: int, ply: int, *, weak: bool = False) -> int: ...

    def at_least(self, position: int, mask: int, ply: int, value: int) -> bool: ...


def weak_solver(table_bits: int = 24, *, prefer_fast: bool = True) -> WeakSolver:
    """A solver with ``solve_bits(position, mask, ply, weak=...)``, ``at_least(position, mask, ply,
    value)`` and ``nodes``: :class:`agents.engine.solver.fast.FastSolver` with ``2**table_bits`` table slots
    (8 bytes each) when ``prefer_fast`` and numba imports, else :class:`agents.engine.solver.Solver` (about
    30x slower, its table unbounded)."""
    if prefer_fast:
        try:
            from agents.engine.solver.fast import FastSolver
        except ImportError:
            pass
        else:
            return FastSolver(table_bits=table_bits)
    return Solver()
