"""The window heuristic of Kaggle's "Intro to Game AI" course, on bitboards.

The course scores a board from one player's point of view by counting *windows*: every run of
``inarow`` cells in a row, a column or either diagonal (each counted once). A window is

* a *line* of a player when all its cells hold that player's stones, and
* an *open* window of a player when ``inarow - 1`` cells hold that player's stones and the last
  cell is empty (the course's "threes" for ``inarow = 4``).

The score is ``line·L + open·O − opp_open·P − opp_line·Q`` with integer weights (the course's
floats 1e6, 1, 1e2, 1e4 are whole numbers, so integer arithmetic gives identical values). Source:
https://www.kaggle.com/code/alexisbcook/one-step-lookahead and
https://www.kaggle.com/code/alexisbcook/n-step-lookahead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from agents.engine.board import Geometry, geometry


@dataclass(frozen=True, slots=True)
class Weights:
    """Integer weights of the window heuristic (see the module docstring)."""

    line: int
    open: int
    opp_open: int
    opp_line: int


ONE_STEP = Weights(line=1_000_000, open=1, opp_open=100, opp_line=0)
"""The one-step lookahead course heuristic (it has no term for the opponent's lines)."""

MINIMAX = Weights(line=1_000_000, open=1, opp_open=100, opp_line=10_000)
"""The N-step lookahead course heuristic."""


@cache
def window_starts(rows: int, columns: int, inarow: int) -> tuple[tuple[int, int], ...]:
    """``(shift, starts)`` per direction: ``starts`` has bit x set when the window
    ``x, x + shift, ..., x + (inarow - 1)·shift`` lies wholly on the board."""
    geo = geometry(rows, columns, inarow)
    out = []
    for shift in geo.directions:
        starts = geo.board
        for i in range(1, inarow):
            starts &= geo.board >> (i * shift)
        out.append((shift, starts))
    return tuple(out)


def count_windows(stones: int, empty: int, geo: Geometry) -> tuple[int, int]:
    """``(lines, open)``: windows filled by ``stones``, and windows with ``inarow - 1`` of
    ``stones`` plus one cell of ``empty`` (bit masks in the :mod:`agents.engine.board` layout)."""
    k = geo.inarow
    lines = opens = 0
    for shift, starts in window_starts(geo.rows, geo.columns, k):
        # own[i] / free[i]: bit x set when cell x + i*shift holds a stone / is empty.
        own = [stones >> (i * shift) for i in range(k)]
        prefix = [starts]
        for i in range(k):
            prefix.append(prefix[-1] & own[i])
        lines += prefix[k].bit_count()
        suffix = starts
        for j in range(k - 1, -1, -1):
            opens += (prefix[j] & suffix & (empty >> (j * shift))).bit_count()
            suffix &= own[j]
    return lines, opens


def evaluate(mine: int, theirs: int, geo: Geometry, weights: Weights) -> int:
    """The course heuristic of the board ``mine`` / ``theirs`` for the owner of ``mine``."""
    empty = geo.board & ~(mine | theirs)
    my_lines, my_open = count_windows(mine, empty, geo)
    their_lines, their_open = count_windows(theirs, empty, geo)
    return (
        weights.line * my_lines
        + weights.open * my_open
        - weights.opp_open * their_open
        - weights.opp_line * their_lines
    )
