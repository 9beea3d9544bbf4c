"""Perfect moves under a deadline: :func:`choose` (a move that keeps the position's value, then the
best score if time allows) and :func:`refine` (the best score alone), from a :class:`Solver`'s
null-window searches. :meth:`Solver.choose <agents.engine.solver.Solver.choose>` and
:meth:`Solver.refine <agents.engine.solver.Solver.refine>` call them. Scores: :mod:`agents.engine.solver`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.engine.solver.kernel import SearchAborted
from agents.engine.solver.position import move_order

if TYPE_CHECKING:
    from agents.engine.solver.core import Solver

__all__ = ["choose", "refine"]


def choose(
    solver: Solver,
    position: int,
    mask: int,
    ply: int,
    *,
    deadline: float = float("inf"),
    refine_deadline: float | None = None,
) -> tuple[int | None, dict[int, int]]:
    """Perfect choice of a move under a deadline: ``(column or None, proven weak values of columns)``.

    ``position``/``mask`` as in :mod:`agents.engine.board`, game on, no move winning at once;
    deadlines in ``time.perf_counter()`` seconds. Pass 1 looks, in :func:`move_order`, for a child
    whose score is below 0 (a win for the side to move), one null-window search each; pass 2 for
    a child at most 0 (a draw). Children failing pass 2 are proven lost (value -1). The column
    found keeps the position's value (perfect play in the weak sense). A position of the solver's
    database (:attr:`Solver.database`) has a known value, and only the pass for that value runs.

    Then, until ``refine_deadline`` (default ``deadline``), the choice is refined to the best
    score (:func:`refine`): the fastest win, or in a lost position the slowest loss. When the
    refinement runs out of time a win or draw keeps the column of the passes, and a lost position
    returns ``None``. The column is also ``None`` when ``deadline`` came first: the caller's
    heuristic then chooses among the columns not proven lost. ``solver.nodes`` counts the nodes of
    the whole choice.
    """
    order = move_order(position, mask, solver.geo)
    last_cell = ply + 1 == solver.geo.size  # every move draws
    values: dict[int, int] = dict.fromkeys(order, 0) if last_cell else {}
    database = solver.database
    known = database.score(position, mask) if database and ply == database.ply else None
    searched = solver.searched
    try:
        found = _keeping_value(solver, position, mask, ply, order, known, values, deadline)
    except SearchAborted:
        solver.nodes = solver.searched - searched
        return None, values
    if known is not None and known < 0:
        values.update((column, -1) for column in order)
    best = None
    if found is None or values[found] != 0:  # every draw is as good
        best = refine(solver, position, mask, ply, deadline=refine_deadline or deadline)
    solver.nodes = solver.searched - searched
    return (found if best is None else best), values


def _keeping_value(
    solver: Solver,
    position: int,
    mask: int,
    ply: int,
    order: list[int],
    known: int | None,
    values: dict[int, int],
    deadline: float,
) -> int | None:
    """Passes 1 and 2 of :func:`choose`: the first column of ``order`` that wins, else the first that
    draws, else None. Each child proven goes into ``values`` (1 win, 0 draw, -1 loss); a column
    already there is not searched again. ``known``: the database's score of the position, or None.
    Raises :class:`SearchAborted` past ``deadline``."""
    geo = solver.geo
    other = position ^ mask

    def child(column: int) -> int:
        return mask | ((mask + geo.bottom_cells[column]) & geo.column_masks[column])

    if known is None or known > 0:  # pass 1: a win?
        for column in order:
            if column in values:
                continue
            if not solver.at_least(other, child(column), ply + 1, 0, deadline=deadline):
                values[column] = 1
                return column
    if known is None or known == 0:  # pass 2: a draw?
        for column in order:
            if column not in values:
                drawn = not solver.at_least(other, child(column), ply + 1, 1, deadline=deadline)
                values[column] = 0 if drawn else -1
            if values[column] == 0:
                return column
    return None


def refine(
    solver: Solver, position: int, mask: int, ply: int, *, deadline: float = float("inf")
) -> int | None:
    """The column of the best score: the fastest win, the slowest loss. ``None`` when the deadline
    comes first or exact scores are not available (:meth:`Solver.exact_from`). Bitboards as in
    :mod:`agents.engine.board`, game on, no move winning at once.

    One bisection gives the position's score ``s``; then, in :func:`move_order`, the first child
    whose score is at most ``-s`` (so exactly ``-s``) is the move: a null-window search each,
    mostly answered by the transposition table that the bisection filled.
    """
    if not solver.exact_from(ply):
        return None
    geo = solver.geo
    other = position ^ mask
    try:
        score = solver.solve_bits(position, mask, ply, deadline=deadline)
        for column in move_order(position, mask, geo):
            child = mask | ((mask + geo.bottom_cells[column]) & geo.column_masks[column])
            if ply + 1 == geo.size:
                return column  # the last cell: a draw
            if not solver.at_least(other, child, ply + 1, -score + 1, deadline=deadline):
                return column
    except SearchAborted:
        return None
    return None
