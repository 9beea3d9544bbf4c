"""The board as ``connectx play`` shows it: rows of stones, top row first, over 1-based column numbers.

Mark 1 is ``X`` and mark 2 ``O``, an empty cell ``.``; on a terminal the stones are also coloured
(ANSI SGR codes: bold red and bold yellow), unless ``NO_COLOR`` is set (https://no-color.org) or
``TERM`` is ``dumb``. Columns are numbered from 1, as the person types them; every cell is as wide as
the largest number, so boards of ten or more columns stay aligned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from agents.engine.board import Board

__all__ = ["draw", "stone", "wants_colour"]

LETTERS = {0: ".", 1: "X", 2: "O"}
"""What a cell of Kaggle's board (0 empty, else the mark) shows."""
_COLOURS = {1: "\x1b[1;31m", 2: "\x1b[1;33m"}
"""ANSI SGR of each mark's stones: bold red, bold yellow."""
_RESET = "\x1b[0m"


def wants_colour(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """True when ``stream`` is a terminal, ``NO_COLOR`` is unset or empty and ``TERM`` is not ``dumb``."""
    return stream.isatty() and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


def stone(mark: int, *, colour: bool) -> str:
    """The letter of ``mark`` (0 empty, 1 or 2), in its colour when ``colour``."""
    letter = LETTERS[mark]
    return f"{_COLOURS[mark]}{letter}{_RESET}" if colour and mark else letter


def draw(board: Board, *, colour: bool) -> str:
    """``board`` as text: ``rows`` lines of cells, then the column numbers; no trailing newline.

    >>> print(draw(Board.from_moves("4453", rows=3, columns=5, inarow=3), colour=False))
    . . . . .
    . . . O .
    . . O X X
    1 2 3 4 5
    """
    geo = board.geo
    width = len(str(geo.columns))
    cells = board.to_kaggle()
    lines = []
    for r in range(geo.rows):
        row = cells[r * geo.columns : (r + 1) * geo.columns]
        lines.append(" ".join(" " * (width - 1) + stone(mark, colour=colour) for mark in row))
    lines.append(" ".join(f"{c + 1:>{width}}" for c in range(geo.columns)))
    return "\n".join(lines)
