"""What the environments show: the board as channel-first planes, the legal columns, a text and a picture.

Both environments (:mod:`training.envs.single`, :mod:`training.envs.aec`) observe a position from one
mark's side: :func:`planes` is ``(2, rows, columns)`` float32, plane 0 that mark's stones and plane 1
the other mark's, row 0 on top as in Kaggle's ``obs.board`` (:func:`agents.features.planes`, the
encoding the learned agents read, reshaped). A policy trained on it therefore plays the same inputs in
either environment and in the ``ppo`` agent (:mod:`agents.ppo`). PettingZoo's ``connect_four_v3``
stacks the same two planes channel-last, ``(6, 7, 2)`` int8.
"""

from __future__ import annotations

import numpy as np

from agents.engine.board import Board
from agents.features import planes as flat_planes

__all__ = ["CELL", "action_mask", "ansi", "planes", "rgb"]

CELL = 40
"""Pixels of one cell's side in :func:`rgb`."""

_BLUE = (32, 78, 186)
_EMPTY = (238, 238, 238)
_MARKS = {1: (220, 50, 47), 2: (245, 200, 40)}
"""The picture's colours (RGB): the frame, an empty hole, mark 1 red and mark 2 yellow, as Kaggle's
replay shows ConnectX."""


def planes(board: Board, mark: int) -> np.ndarray:
    """``board`` from ``mark``'s side, float32 of shape ``(2, rows, columns)``: plane 0 holds 1.0 where
    ``mark`` has a stone, plane 1 where the other mark has one; row 0 is the top row."""
    geo = board.geo
    mine = board.position if board.mark == mark else board.position ^ board.mask
    return flat_planes(mine, board.mask, geo).reshape(2, geo.rows, geo.columns)


def action_mask(board: Board) -> np.ndarray:
    """int8 of shape ``(columns,)``: 1 for each column that may be played, all 0 once the game is over."""
    mask = np.zeros(board.geo.columns, np.int8)
    if not board.is_game_over():
        mask[board.legal_moves()] = 1
    return mask


def ansi(board: Board) -> str:
    """The board as text: the column numbers (1-based, as ``connectx play`` counts them) over rows of
    ``X`` (mark 1), ``O`` (mark 2) and ``.``, and who is to move or how the game ended."""
    columns = board.geo.columns
    header = " ".join(str((c + 1) % 10) for c in range(columns))
    outcome = board.outcome()
    if outcome is None:
        status = f"{'XO'[board.mark - 1]} ({board.mark}) to move"
    elif outcome.winner is None:
        status = "draw"
    else:
        status = f"{'XO'[outcome.winner - 1]} ({outcome.winner}) wins"
    return f"{header}\n{board}\n{status}\n"


def rgb(board: Board) -> np.ndarray:
    """The board as a picture, uint8 of shape ``(rows * CELL, columns * CELL, 3)``: a blue frame with a
    round hole per cell, red for mark 1, yellow for mark 2 (row 0 on top)."""
    geo = board.geo
    cells = np.asarray(board.to_kaggle(), np.int8).reshape(geo.rows, geo.columns)
    centre = (CELL - 1) / 2
    y, x = np.mgrid[0:CELL, 0:CELL]
    hole = (y - centre) ** 2 + (x - centre) ** 2 <= (0.4 * CELL) ** 2
    image = np.empty((geo.rows * CELL, geo.columns * CELL, 3), np.uint8)
    image[:] = _BLUE
    for r in range(geo.rows):
        for c in range(geo.columns):
            tile = image[r * CELL : (r + 1) * CELL, c * CELL : (c + 1) * CELL]
            tile[hole] = _MARKS.get(int(cells[r, c]), _EMPTY)
    return image
