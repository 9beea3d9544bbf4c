"""Hand-made board features and a board encoding for the learned evaluations, on any board.

Two views of a position, both from the point of view of the **side to move** (the owner of
``Board.position``; see :mod:`agents.engine.board` for the bit layout):

* :func:`features` -- a short vector of counts that means the same thing on every board, so one set
  of weights plays any ConnectX configuration (the board features of Mitchell's checkers learner,
  *Machine Learning*, 1997, ch. 1, on our board);
* :func:`planes` -- the raw board, one 0/1 input per cell and side, for networks of one board size.

A *window* is a run of ``inarow`` cells in a row, a column or a diagonal (:mod:`agents.heuristic`).
An *open k* of a side is a window with ``k`` of its stones and the rest empty; a *threat* is an empty
cell that would complete a line, *playable* when a stone dropped in its column lands on it.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from agents.engine.board import Geometry
from agents.engine.lines import winning_cells
from agents.heuristic import window_starts

__all__ = ["FEATURES", "features", "planes"]

FEATURES = (
    "open_low_mine",
    "open_low_theirs",
    "open_high_mine",
    "open_high_theirs",
    "centre_mine",
    "centre_theirs",
    "threats_mine",
    "threats_theirs",
    "playable_mine",
    "playable_theirs",
)
"""Names of :func:`features`' entries, in order. *low* is an open ``inarow - 2`` (Connect Four's
twos), *high* an open ``inarow - 1`` (threes); *centre* counts stones weighted by closeness to the
centre column (1 in the centre, falling linearly to 0 beyond the outer columns)."""


@cache
def _windows(geo: Geometry) -> tuple[int, ...]:
    """Bit masks of every window of ``geo``."""
    out = []
    for shift, starts in window_starts(geo.rows, geo.columns, geo.inarow):
        while starts:
            low = starts & -starts
            starts ^= low
            cells = 0
            for i in range(geo.inarow):
                cells |= low << (i * shift)
            out.append(cells)
    return tuple(out)


@cache
def _centre_weights(geo: Geometry) -> tuple[tuple[int, float], ...]:
    """``(column mask, weight)`` per column: 1 in the centre, linearly less outwards."""
    middle = (geo.columns - 1) / 2
    return tuple((geo.column_masks[c], 1.0 - abs(c - middle) / (middle + 1)) for c in range(geo.columns))


def features(position: int, mask: int, geo: Geometry) -> np.ndarray:
    """The :data:`FEATURES` of a position: float64 array of shape ``(len(FEATURES),)``.

    ``position`` is the bitboard of the side to move, ``mask`` of all stones (:mod:`agents.engine.board`).
    Counts are raw (not scaled); ``inarow <= 2`` boards count open ``inarow - 2`` windows as empty
    windows.
    """
    mine, theirs = position, position ^ mask
    empty = geo.board & ~mask
    low, high = max(0, geo.inarow - 2), geo.inarow - 1
    counts = [0, 0, 0, 0]
    for window in _windows(geo):
        if window & mine and not window & theirs:
            stones = (window & mine).bit_count()
            counts[0] += stones == low
            counts[2] += stones == high
        elif window & theirs and not window & mine:
            stones = (window & theirs).bit_count()
            counts[1] += stones == low
            counts[3] += stones == high
        elif low == 0 and not window & mask:
            counts[0] += 1
            counts[1] += 1
    centre = [0.0, 0.0]
    for column, weight in _centre_weights(geo):
        centre[0] += weight * (mine & column).bit_count()
        centre[1] += weight * (theirs & column).bit_count()
    playable = (mask + geo.bottom) & geo.board
    my_threats = winning_cells(mine, geo) & empty
    their_threats = winning_cells(theirs, geo) & empty
    return np.array(
        [
            *counts,
            *centre,
            my_threats.bit_count(),
            their_threats.bit_count(),
            (my_threats & playable).bit_count(),
            (their_threats & playable).bit_count(),
        ],
        dtype=np.float64,
    )


def planes(position: int, mask: int, geo: Geometry) -> np.ndarray:
    """The board as float32 of shape ``(2 * rows * columns,)``: first the side to move's stones,
    then the other side's, each row-major with row 0 on top (Kaggle's ``obs.board`` order), 1.0
    where a stone stands."""
    out = np.zeros((2, geo.rows, geo.columns), np.float32)
    theirs = position ^ mask
    for c in range(geo.columns):
        for r in range(geo.rows):
            bit = 1 << (c * geo.height + geo.rows - 1 - r)
            if position & bit:
                out[0, r, c] = 1.0
            elif theirs & bit:
                out[1, r, c] = 1.0
    return out.reshape(-1)
