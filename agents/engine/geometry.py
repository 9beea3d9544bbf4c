"""A ConnectX configuration's bit masks: :class:`Geometry`, built once a configuration by :func:`geometry`.

Bits run column by column, bottom to top, ``rows + 1`` bits a column: the spare bit above each column
is always 0 and stops lines wrapping into the next column (the layout :mod:`agents.engine.board`
draws). :mod:`agents.engine.board` exports both names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from agents.engine.errors import InvalidBoardError

__all__ = ["Geometry", "geometry"]


@dataclass(frozen=True, slots=True)
class Geometry:
    """Constant bit masks of a ``rows`` x ``columns`` board with ``inarow`` to connect.

    Built once per configuration by :func:`geometry`. ``height = rows + 1`` bits per column.
    """

    rows: int
    columns: int
    inarow: int
    height: int
    bottom: int  #: the bottom cell of every column
    board: int  #: every playable cell
    column_masks: tuple[int, ...]  #: every cell of column ``c``
    top_cells: tuple[int, ...]  #: the top playable cell of column ``c``
    bottom_cells: tuple[int, ...]  #: the bottom cell of column ``c``
    directions: tuple[int, ...]  #: bit shifts of the four line directions: |, -, /, \\
    centre_order: tuple[int, ...]  #: columns from the centre outwards, left before right

    @property
    def size(self) -> int:
        """Number of cells, ``rows * columns``."""
        return self.rows * self.columns

    @property
    def winnable(self) -> bool:
        """Whether a line of ``inarow`` cells fits on the board at all (across or up; a diagonal is
        never longer than the shorter side). When not, every game is a draw."""
        return self.inarow <= max(self.rows, self.columns)


@lru_cache(maxsize=None, typed=True)  # typed: 6.0 must not hit the cache entry of 6
def geometry(rows: int, columns: int, inarow: int) -> Geometry:
    """Return the (cached) :class:`Geometry` of a configuration.

    Raises :class:`InvalidBoardError` unless ``rows``, ``columns`` and ``inarow`` are integers
    ≥ 1 (Kaggle's schema minimum). ``inarow`` may exceed both dimensions: then nobody can win.
    """
    for name, value in (("rows", rows), ("columns", columns), ("inarow", inarow)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidBoardError(f"{name} must be an integer >= 1, got {value!r}")
    height = rows + 1
    column_masks = tuple(((1 << rows) - 1) << (c * height) for c in range(columns))
    bottom_cells = tuple(1 << (c * height) for c in range(columns))
    top_cells = tuple(1 << (c * height + rows - 1) for c in range(columns))
    centre = (columns - 1) / 2
    centre_order = tuple(sorted(range(columns), key=lambda c: (abs(c - centre), c)))
    return Geometry(
        rows=rows,
        columns=columns,
        inarow=inarow,
        height=height,
        bottom=sum(bottom_cells),
        board=sum(column_masks),
        column_masks=column_masks,
        top_cells=top_cells,
        bottom_cells=bottom_cells,
        directions=(1, height, height + 1, height - 1),
        centre_order=centre_order,
    )
