"""The board engine's errors: every one a :class:`BoardError`, itself a ``ValueError``.

:class:`InvalidBoardError` is a board or configuration that no ConnectX game can produce; an
:class:`IllegalMoveError` is a move the position forbids, of three kinds: not a column
(:class:`NotAColumnError`), a full column (:class:`ColumnFullError`), a move after the game was won
(:class:`GameOverError`). :mod:`agents.engine.board` exports them all.
"""

from __future__ import annotations

__all__ = [
    "BoardError", "ColumnFullError", "GameOverError", "IllegalMoveError", "InvalidBoardError",
    "NotAColumnError",
]  # fmt: skip


class BoardError(ValueError):
    """Base class of every error raised by the board engine."""


class InvalidBoardError(BoardError):
    """A board or configuration that no ConnectX game can produce."""


class IllegalMoveError(BoardError):
    """A move that may not be played in this position."""


class NotAColumnError(IllegalMoveError):
    """The move is not a column index of this board."""


class ColumnFullError(IllegalMoveError):
    """The column has no empty cell left."""


class GameOverError(IllegalMoveError):
    """The game has already been won, so no further move may be played."""
