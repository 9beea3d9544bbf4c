"""The one board engine: a ConnectX position as two bitboards on Python ints.

Layout (Pascal Pons' convention, http://blog.gamesolver.org/solving-connect-four/06-bitboard/),
generalised to any ``rows`` x ``columns``: bits run column by column, bottom to top, with one spare
bit above every column that is always 0 (it stops lines wrapping into the next column). For 6x7::

    .  .  .  .  .  .  .      <- spare bit of each column (6, 13, 20, ...)
    5 12 19 26 33 40 47      <- top row       (Kaggle row 0)
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42      <- bottom row    (Kaggle row 5)

Kaggle's ``obs.board`` is a flat row-major list with row 0 at the **top**; cell ``r * columns + c``
is bit ``c * (rows + 1) + (rows - 1 - r)``. That is the only mapping in the project
(:meth:`Board.from_kaggle`, :meth:`Board.to_kaggle`).

A position is stored as

* ``position`` -- the stones of the **side to move**,
* ``mask`` -- all stones,
* ``ply`` -- the number of stones played (mark 1 moves first, so the side to move has mark
  ``1 + ply % 2``).

``position + mask`` is a unique key of the position (Pons). Columns are 0-based everywhere except in
move strings in Pons' notation (``"4453"``: 1-based digits), which :meth:`Board.from_notation` reads
and :meth:`Board.notation_of` writes (:meth:`Board.notation` for a board's moves), and nothing else.
Scores and results are always from the point of view of the side to move.

The configuration's bit masks (:class:`Geometry`, :func:`geometry`) are built in
:mod:`agents.engine.geometry`, the errors (:class:`BoardError` and its kinds) declared in
:mod:`agents.engine.errors`; this module exports them with the board, and is where to import them from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agents.engine.errors import (
    BoardError,
    ColumnFullError,
    GameOverError,
    IllegalMoveError,
    InvalidBoardError,
    NotAColumnError,
)
from agents.engine.geometry import Geometry, geometry
from agents.engine.lines import has_line, non_losing, wins_function

__all__ = [
    "Board", "BoardError", "ColumnFullError", "GameOverError", "Geometry", "IllegalMoveError",
    "InvalidBoardError", "NotAColumnError", "Outcome", "geometry",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game played out on the board: ``winner`` is the mark (1 or 2) that made a line,
    None for a draw (a full board without a line). Forfeits -- illegal moves, timeouts, errors -- are
    the referee's business, not the board's."""

    winner: int | None

    @property
    def result(self) -> float:
        """Score of mark 1: 1.0 win, 0.5 draw, 0.0 loss."""
        return 0.5 if self.winner is None else 1.0 if self.winner == 1 else 0.0

    def reward(self, mark: int) -> int:
        """Kaggle's final reward of ``mark``: 1 for the winner, -1 for the loser, 0 each in a draw
        (kaggle_environments/envs/connectx/connectx.py)."""
        if self.winner is None:
            return 0
        return 1 if self.winner == mark else -1


class Board:
    """A ConnectX position with push/pop, win detection and Kaggle conversion.

    ``Board(rows=6, columns=7, inarow=4)`` is the empty board; see the module docstring for the bit
    layout. The board does not store who has already won: :meth:`push` refuses to play on once a
    line exists (:class:`GameOverError`) and :meth:`winner` reports it.

    >>> board = Board.from_moves("4455667")  # 1-based columns; mark 1 completes a row on the bottom
    >>> board.outcome(), board.ply
    (Outcome(winner=1), 7)
    """

    __slots__ = ("geo", "position", "mask", "ply", "_history")

    def __init__(self, rows: int = 6, columns: int = 7, inarow: int = 4) -> None:
        self.geo = geometry(rows, columns, inarow)
        self.position = 0
        self.mask = 0
        self.ply = 0
        self._history: list[int] = []

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def from_kaggle(cls, board: Sequence[int], mark: int, *, rows: int, columns: int, inarow: int) -> Board:
        """Read Kaggle's ``obs.board`` (flat, row-major, row 0 on top; 0 empty, 1/2 marks).

        ``mark`` is the mark of the side to move (``obs.mark``). Raises :class:`InvalidBoardError`
        when the list has the wrong length or values, a stone floats above an empty cell, or the
        stone counts do not fit ``mark`` to move (mark 1 always moves first). The move history is
        unknown, so :meth:`pop` is unavailable on the result.
        """
        geo = geometry(rows, columns, inarow)
        if len(board) != rows * columns:
            raise InvalidBoardError(f"board has {len(board)} cells, expected {rows}x{columns}")
        if mark not in (1, 2):
            raise InvalidBoardError(f"mark must be 1 or 2, got {mark!r}")
        stones = {1: 0, 2: 0}
        counts = {1: 0, 2: 0}
        for index, value in enumerate(board):
            if value == 0:
                continue
            if value not in (1, 2):
                raise InvalidBoardError(f"cell {index} holds {value!r}; cells hold 0, 1 or 2")
            r, c = divmod(index, columns)
            stones[value] |= 1 << (c * geo.height + rows - 1 - r)
            counts[value] += 1
        mask = stones[1] | stones[2]
        if (mask + geo.bottom) & mask:
            raise InvalidBoardError("a stone floats above an empty cell")
        ply = counts[1] + counts[2]
        if counts[1] - counts[2] not in (0, 1) or 1 + ply % 2 != mark:
            raise InvalidBoardError(
                f"{counts[1]} stones of mark 1 and {counts[2]} of mark 2 do not fit mark {mark} to move"
            )
        self = cls(rows, columns, inarow)
        self.position = stones[mark]
        self.mask = mask
        self.ply = ply
        self._history = []
        return self

    @classmethod
    def from_moves(
        cls, moves: str | Iterable[int], *, rows: int = 6, columns: int = 7, inarow: int = 4
    ) -> Board:
        """Play a sequence of moves from the empty board.

        A string is Pons' notation, read by :meth:`from_notation`; an iterable holds 0-based column
        indices. Raises :class:`NotAColumnError` for a bad digit or column, :class:`ColumnFullError`
        for a full column and :class:`GameOverError` for a move after a line is made.
        """
        if isinstance(moves, str):
            return cls.from_notation(moves, rows=rows, columns=columns, inarow=inarow)
        board = cls(rows, columns, inarow)
        for column in moves:
            board.push(column)
        return board

    @classmethod
    def from_notation(cls, text: str, *, rows: int = 6, columns: int = 7, inarow: int = 4) -> Board:
        """The board after the moves ``text`` in Pons' notation, as :meth:`notation` writes them.

        One 1-based column digit a move, mark 1 first (``"4453"``; "" is the empty board); on a
        board of more than 9 columns, where digits would be ambiguous, the 1-based columns separated
        by spaces (``"10 3 12"``). Raises :class:`NotAColumnError` (``move 2 'x' is not a column
        digit 1-7``), :class:`ColumnFullError` (``move 7: column 4 is full``) and
        :class:`GameOverError` (``move 8 '3' comes after the game was won``), each naming the move
        from 1.

        >>> Board.from_notation("4453").moves
        (3, 3, 4, 2)
        >>> Board.from_notation("10 3", columns=12).notation()
        '10 3'
        """
        board = cls(rows, columns, inarow)
        for i, token in enumerate(text.split() if columns > 9 else text, 1):
            if not token.isdigit() or not 1 <= int(token) <= columns or token.startswith("0"):
                kind = "column" if columns > 9 else "column digit"
                raise NotAColumnError(f"move {i} {token!r} is not a {kind} 1-{columns}")
            try:
                board.push(int(token) - 1)
            except ColumnFullError:
                raise ColumnFullError(f"move {i}: column {token} is full") from None
            except GameOverError:
                raise GameOverError(f"move {i} {token!r} comes after the game was won") from None
        return board

    def copy(self) -> Board:
        """An independent copy (history included)."""
        other = Board.__new__(Board)
        other.geo = self.geo
        other.position = self.position
        other.mask = self.mask
        other.ply = self.ply
        other._history = list(self._history)
        return other

    # --- queries ------------------------------------------------------------------------------

    @property
    def mark(self) -> int:
        """Kaggle mark (1 or 2) of the side to move."""
        return 1 + self.ply % 2

    @property
    def opponent(self) -> int:
        """Bitboard of the stones of the side that just moved."""
        return self.position ^ self.mask

    @property
    def moves(self) -> tuple[int, ...]:
        """The columns played on this object, in order (0-based). A board read with
        :meth:`from_kaggle` starts with none: its history is unknown."""
        return tuple(self._history)

    def key(self) -> int:
        """Unique key of the position (``position + mask``)."""
        return self.position + self.mask

    def can_play(self, column: int) -> bool:
        """True when ``column`` is a column index whose top cell is empty."""
        return 0 <= column < self.geo.columns and not self.mask & self.geo.top_cells[column]

    def legal_moves(self) -> list[int]:
        """Playable columns in increasing order (empty when the board is full)."""
        top = self.geo.top_cells
        return [c for c in range(self.geo.columns) if not self.mask & top[c]]

    def possible(self) -> int:
        """Bit mask of the cells a stone would land on, one per non-full column."""
        return (self.mask + self.geo.bottom) & self.geo.board

    def move_cell(self, column: int) -> int:
        """The bit a stone dropped in ``column`` lands on (assumes the column is not full)."""
        return (self.mask + self.geo.bottom_cells[column]) & self.geo.column_masks[column]

    def is_winning_move(self, column: int) -> bool:
        """True when the side to move completes a line by playing ``column`` (assumed playable)."""
        return has_line(self.position | self.move_cell(column), self.geo)

    def winning_moves(self) -> int:
        """Bit mask of the playable cells that win at once for the side to move."""
        return wins_function(self.geo)(self.position) & self.possible()

    def threats(self) -> int:
        """Bit mask of the empty cells, playable now or later, where the opponent of the side to move
        would complete a line (its *threats*, in Allis' sense)."""
        return wins_function(self.geo)(self.opponent) & ~self.mask & self.geo.board

    def non_losing_moves(self) -> int:
        """Bit mask of the playable cells after which the opponent cannot win at once.

        Pons' ``possibleNonLosingMoves`` (http://blog.gamesolver.org/solving-connect-four/09-
        anticipate-losing-moves/): a single threat on a playable cell must be blocked; two or more
        lose; otherwise every playable cell that is not directly under a threat. 0 when every move
        loses. The side to move's own immediate wins are not considered: check
        :meth:`winning_moves` first.
        """
        return non_losing(self.possible(), self.threats())

    def columns(self, cells: int) -> list[int]:
        """The columns (increasing) holding at least one cell of the bit mask ``cells``."""
        masks = self.geo.column_masks
        return [c for c in range(self.geo.columns) if cells & masks[c]]

    def is_full(self) -> bool:
        """True when no column is playable."""
        return self.ply == self.geo.size

    def winner(self) -> int | None:
        """Mark that has a line on the board, or None (only the last mover can have one)."""
        if self.ply and has_line(self.opponent, self.geo):
            return 1 + (self.ply - 1) % 2
        return None

    def is_game_over(self) -> bool:
        """True when the last move made a line or the board is full."""
        return self.is_full() or self.winner() is not None

    def outcome(self) -> Outcome | None:
        """How the game ended (:class:`Outcome`), or None while it goes on."""
        winner = self.winner()
        if winner is None and not self.is_full():
            return None
        return Outcome(winner)

    # --- moves --------------------------------------------------------------------------------

    def push(self, column: int) -> None:
        """Drop a stone of the side to move into ``column`` (0-based).

        Raises :class:`NotAColumnError`, :class:`ColumnFullError` or :class:`GameOverError`.
        """
        if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < self.geo.columns:
            raise NotAColumnError(f"{column!r} is not a column of a {self.geo.columns}-column board")
        if self.mask & self.geo.top_cells[column]:
            raise ColumnFullError(f"column {column} is full")
        if self.winner() is not None:
            raise GameOverError("the game is already won")
        self.play(column)

    def play(self, column: int) -> None:
        """Fast unchecked :meth:`push` for search code: assumes ``column`` is playable."""
        self._history.append(column)
        self.position ^= self.mask
        self.mask |= self.mask + self.geo.bottom_cells[column]
        self.ply += 1

    def pop(self) -> int:
        """Take back the last move played on this object and return its column.

        Raises :class:`IndexError` when there is no move to take back (boards read with
        :meth:`from_kaggle` start with an empty history).
        """
        column = self._history.pop()
        self.mask ^= 1 << ((self.mask & self.geo.column_masks[column]).bit_length() - 1)
        self.position ^= self.mask
        self.ply -= 1
        return column

    # --- output -------------------------------------------------------------------------------

    def notation(self) -> str:
        """The moves played on this board (:attr:`moves`) in Pons' notation, which
        :meth:`from_notation` reads: 1-based column digits (``"445"``), separated by spaces on a
        board of more than 9 columns; "" for none (a board read with :meth:`from_kaggle` has no
        known moves).

        >>> Board.from_moves([3, 3, 4]).notation()
        '445'
        """
        return self.notation_of(self._history, self.geo.columns)

    @staticmethod
    def notation_of(moves: Iterable[int], columns: int) -> str:
        """``moves`` (0-based columns) on a board of ``columns`` columns in Pons' notation, as
        :meth:`notation` writes a board's moves, without playing them.

        >>> Board.notation_of([3, 3, 4], 7)
        '445'
        """
        return (" " if columns > 9 else "").join(str(column + 1) for column in moves)

    def to_kaggle(self) -> list[int]:
        """Kaggle's flat row-major list (row 0 on top) with marks 1 and 2."""
        geo = self.geo
        mover = self.position
        out = [0] * geo.size
        for r in range(geo.rows):
            for c in range(geo.columns):
                bit = 1 << (c * geo.height + geo.rows - 1 - r)
                if self.mask & bit:
                    out[r * geo.columns + c] = self.mark if mover & bit else 3 - self.mark
        return out

    def __str__(self) -> str:
        """The board as rows of ``X`` (mark 1), ``O`` (mark 2) and ``.``, top row first."""
        text, columns = "".join(".XO"[v] for v in self.to_kaggle()), self.geo.columns
        return "\n".join(" ".join(text[i : i + columns]) for i in range(0, len(text), columns))

    def __repr__(self) -> str:
        geo = self.geo
        return f"<Board {geo.rows}x{geo.columns} inarow={geo.inarow} ply={self.ply} mark={self.mark}>"
