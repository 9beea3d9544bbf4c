"""Positions for the solver: a position still to be played (:func:`parse_position`) and the solver's
move order (:func:`move_order`). Scores: :mod:`agents.engine.solver`."""

from __future__ import annotations

from collections.abc import Iterable

from agents.engine.board import Board, GameOverError, Geometry
from agents.engine.lines import has_line, wins_function

__all__ = ["move_order", "parse_position"]


def move_order(position: int, mask: int, geo: Geometry) -> list[int]:
    """Playable columns in the solver's order: most winning cells created first, ties centre first
    (Pons part 10). ``position``/``mask`` as in :mod:`agents.engine.board`."""
    wins = wins_function(geo)
    empty = geo.board ^ mask
    scored = []
    for rank, c in enumerate(geo.centre_order):
        if not mask & geo.top_cells[c]:
            move = (mask + geo.bottom_cells[c]) & geo.column_masks[c]
            scored.append((-(wins(position | move) & empty & ~move).bit_count(), rank, c))
    scored.sort()
    return [c for _, _, c in scored]


def parse_position(moves: str | Iterable[int], geo: Geometry) -> Board:
    """The board after ``moves`` on ``geo``, Pons' notation (:meth:`Board.from_notation
    <agents.engine.board.Board.from_notation>`) or 0-based columns; the game must still be on.

    Raises :class:`agents.engine.board.NotAColumnError` (bad digit),
    :class:`agents.engine.board.ColumnFullError`, :class:`agents.engine.board.GameOverError` (a move
    after a line, or the position is already won or the board full), all subclasses of ``ValueError``.
    """
    board = Board.from_moves(moves, rows=geo.rows, columns=geo.columns, inarow=geo.inarow)
    if board.ply and has_line(board.opponent, geo):
        raise GameOverError("the position is already won")
    if board.is_full():
        raise GameOverError("the board is full")
    return board
