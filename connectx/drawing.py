"""The board as ``connectx play`` shows it: rows of stones, top row first, over 1-based column numbers.

Mark 1 is ``X`` and mark 2 ``O``, an empty cell ``.``; on a terminal the stones are also coloured
(ANSI SGR codes: bold red and bold yellow), unless ``NO_COLOR`` is set (https://no-color.org) or
``TERM`` is ``dumb``. Columns are numbered from 1, as the person types them; every cell is as wide as
the largest number, so boards of ten or more columns stay aligned.

A won board marks the winning line (the four, or more: :func:`winning_stones`): in colour its stones
are shown in reverse video; in plain text they stay capitals and every other stone turns lowercase
(``x``, ``o``), so the line reads at a glance without changing the layout.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from agents.engine.board import Board

__all__ = ["draw", "stone", "wants_colour", "winning_stones"]

LETTERS = {0: ".", 1: "X", 2: "O"}
"""What a cell of Kaggle's board (0 empty, else the mark) shows."""
_COLOURS = {1: "\x1b[1;31m", 2: "\x1b[1;33m"}
"""ANSI SGR of each mark's stones: bold red, bold yellow."""
_WINNING = {1: "\x1b[1;7;31m", 2: "\x1b[1;7;33m"}
"""ANSI SGR of the stones of a winning line: the mark's colour in reverse video."""
_RESET = "\x1b[0m"


def wants_colour(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """True when ``stream`` is a terminal, ``NO_COLOR`` is unset or empty and ``TERM`` is not ``dumb``."""
    return stream.isatty() and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


def stone(mark: int, *, colour: bool) -> str:
    """The letter of ``mark`` (0 empty, 1 or 2), in its colour when ``colour``."""
    letter = LETTERS[mark]
    return f"{_COLOURS[mark]}{letter}{_RESET}" if colour and mark else letter


def winning_stones(board: Board) -> int:
    """Bit mask (the layout of :mod:`agents.engine.board`) of the stones that make a line of
    ``inarow`` on ``board``: the winning four, or more when the last stone completed two lines or a
    longer one; 0 when nobody has won.

    Lines run along the board's four directions (``geo.directions``, bit shifts), as
    :func:`agents.engine.lines.has_line` finds them; the spare bit above each column keeps a line
    from wrapping into the next one.

    >>> board = Board.from_moves("4455667")  # mark 1 completes the bottom row, columns 4-7
    >>> board.columns(winning_stones(board))
    [3, 4, 5, 6]
    """
    if board.winner() is None:
        return 0
    stones, geo = board.opponent, board.geo  # the side that just moved, the only one with a line
    line = 0
    for shift in geo.directions:
        starts = stones  # the cells from which inarow stones run in this direction
        for step in range(1, geo.inarow):
            starts &= stones >> (step * shift)
        for step in range(geo.inarow):
            line |= starts << (step * shift)
    return line


def draw(board: Board, *, colour: bool) -> str:
    """``board`` as text: ``rows`` lines of cells, then the column numbers; no trailing newline. A won
    board marks its winning line (module docstring).

    >>> print(draw(Board.from_moves("4453", rows=3, columns=5, inarow=3), colour=False))
    . . . . .
    . . . O .
    . . O X X
    1 2 3 4 5
    >>> print(draw(Board.from_moves("1122443", rows=3, columns=4, inarow=3), colour=False))
    . . . .
    o o . o
    X X X X
    1 2 3 4
    """
    geo = board.geo
    width = len(str(geo.columns))
    cells = board.to_kaggle()
    line = winning_stones(board)
    lines = []
    for r in range(geo.rows):
        row = []
        for c, mark in enumerate(cells[r * geo.columns : (r + 1) * geo.columns]):
            text = stone(mark, colour=colour)
            if line and mark:
                bit = 1 << (c * geo.height + geo.rows - 1 - r)  # Kaggle's cell r, c (board.py's layout)
                if line & bit:
                    text = f"{_WINNING[mark]}{LETTERS[mark]}{_RESET}" if colour else LETTERS[mark]
                elif not colour:
                    text = LETTERS[mark].lower()
            row.append(" " * (width - 1) + text)
        lines.append(" ".join(row))
    lines.append(" ".join(f"{c + 1:>{width}}" for c in range(geo.columns)))
    return "\n".join(lines)
