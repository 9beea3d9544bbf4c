"""Lines of ``inarow`` stones on bitboards: the rule that decides a ConnectX game.

Every function takes a bitboard in the :mod:`agents.engine.board` layout (bits column by column, bottom to
top, one spare bit above each column) and a :class:`~agents.engine.board.Geometry`. Line directions are
bit shifts: 1 (vertical), ``height`` (horizontal), ``height + 1`` and ``height - 1`` (the two
diagonals); the spare bit stops a line from wrapping into the next column.

:func:`has_line` says whether a player has won; :func:`winning_cells` gives the cells that would
complete a line, the basis of every tactic (immediate wins, forced blocks, moves that lose at once).
:func:`wins_function` returns the fastest such function for a geometry: for four in a row, Pascal
Pons' shift formula (http://blog.gamesolver.org/solving-connect-four/09-anticipate-losing-moves/),
generalised to any column height; otherwise the general doubling form. Search loops bind it once
and call it millions of times.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.engine.geometry import Geometry

__all__ = ["WINS_FUNCTIONS_KEPT", "has_line", "non_losing", "winning_cells", "wins_function"]

WINS_FUNCTIONS_KEPT = 16
"""Board configurations whose :func:`wins_function` is kept, the most recently built. A tournament or
a Kaggle game plays one configuration, the tests a dozen; an entry is one closure (about 1 KB), and
one evicted is rebuilt in about 2 µs."""


def has_line(stones: int, geo: Geometry) -> bool:
    """True when ``stones`` holds ``geo.inarow`` aligned cells in any direction."""
    k = geo.inarow
    for shift in geo.directions:
        run = stones
        length = 1
        # Doubling: after the loop, bit x of ``run`` means x .. x + (length-1)*shift are all set.
        while length < k and run:
            step = min(length, k - length)
            run &= run >> (step * shift)
            length += step
        if run:
            return True
    return False


def winning_cells(stones: int, geo: Geometry) -> int:
    """Cells (bit mask, possibly occupied or floating) that would complete a line of ``stones``.

    A cell x is winning when ``inarow - 1`` stones already line up with it, ``a`` on one side and
    ``b`` on the other with ``a + b = inarow - 1``. The result is restricted to ``geo.board``;
    callers intersect it with the empty or playable cells they care about.
    """
    return wins_function(geo)(stones)


def non_losing(possible: int, threats: int) -> int:
    """Of the playable cells ``possible``, those the side to move can play without losing at once to
    the opponent's winning cells ``threats`` (both bitboards); 0 when every move loses.

    Pons' ``possibleNonLosingMoves`` (http://blog.gamesolver.org/solving-connect-four/09-
    anticipate-losing-moves/): a single playable threat must be blocked, two or more lose, and no
    move may go directly under a threat.

    Not cached: a few integer operations cost as much as a cache lookup (a bounded cache made the
    heuristic search slower), and a cache keyed by positions grows with every game played.
    """
    forced = possible & threats
    if forced:
        if forced & (forced - 1):
            return 0
        possible = forced
    return possible & ~(threats >> 1)


def wins_function(geo: Geometry) -> Callable[[int], int]:
    """The fastest ``stones -> winning cells`` function for ``geo`` (same result as
    :func:`winning_cells`), built once per board configuration (:data:`WINS_FUNCTIONS_KEPT` kept)."""
    key = (geo.rows, geo.columns, geo.inarow)  # three ints hash in a fifth of a Geometry's time
    function = _kept.get(key)
    if function is None:
        function = _four_in_a_row(geo) if geo.inarow == 4 else partial(_general, geo=geo)
        if len(_kept) >= WINS_FUNCTIONS_KEPT:
            del _kept[next(iter(_kept))]  # the one built first
        _kept[key] = function
    return function


_kept: dict[tuple[int, int, int], Callable[[int], int]] = {}
"""The wins functions built, by ``(rows, columns, inarow)``, oldest first."""


def _general(stones: int, geo: Geometry) -> int:
    k = geo.inarow
    if k == 1:
        return geo.board
    result = 0
    for shift in geo.directions:
        # below[a]: cells whose a nearest neighbours in the negative direction are all stones.
        below = [geo.board]
        above = [geo.board]
        for a in range(1, k):
            below.append(below[-1] & (stones << (a * shift)))
            above.append(above[-1] & (stones >> (a * shift)))
        for a in range(k):
            result |= below[a] & above[k - 1 - a]
    return result & geo.board


def _four_in_a_row(geo: Geometry) -> Callable[[int], int]:
    """Pons' formula: per direction, a cell wins when three stones line up beside it on one side, or
    two on one side and one on the other; vertical lines can only be completed from above."""
    board = geo.board
    h2 = geo.height  # horizontal
    h1, h3 = h2 - 1, h2 + 1  # the two diagonals
    d1, d2, d3 = 2 * h1, 2 * h2, 2 * h3
    t1, t2, t3 = 3 * h1, 3 * h2, 3 * h3

    def wins4(p: int) -> int:
        r = (p << 1) & (p << 2) & (p << 3)
        a = (p << h2) & (p << d2)
        b = (p >> h2) & (p >> d2)
        r |= (a & ((p << t2) | (p >> h2))) | (b & ((p << h2) | (p >> t2)))
        a = (p << h1) & (p << d1)
        b = (p >> h1) & (p >> d1)
        r |= (a & ((p << t1) | (p >> h1))) | (b & ((p << h1) | (p >> t1)))
        a = (p << h3) & (p << d3)
        b = (p >> h3) & (p >> d3)
        r |= (a & ((p << t3) | (p >> h3))) | (b & ((p << h3) | (p >> t3)))
        return r & board

    return wins4
