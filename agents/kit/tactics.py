"""The moves every player makes without thinking: :func:`tactical_move`."""

from __future__ import annotations

from agents.engine.board import Board

__all__ = ["tactical_move"]


def tactical_move(board: Board) -> tuple[str, int] | None:
    """``(stage, column)`` when the position needs no search, else None. In this order:

    * ``only``: the one legal column;
    * ``draw``: the first legal column on a board where no line fits (every game is a draw there,
      :attr:`Geometry.winnable <agents.engine.board.Geometry.winnable>`);
    * ``win``: the first column that wins at once (:meth:`Board.winning_moves
      <agents.engine.board.Board.winning_moves>`);
    * ``block``: the only column after which the opponent cannot win at once (:meth:`Board.non_losing_moves
      <agents.engine.board.Board.non_losing_moves>`): the block of the opponent's one threat, or the
      one column whose next cell is not under a threat of the opponent.

    ``board`` is left as it was. Raises ``ValueError`` when the game is over.
    """
    if board.is_game_over():
        raise ValueError("the game is already over")
    legal = board.legal_moves()
    if len(legal) == 1:
        return "only", legal[0]
    if not board.geo.winnable:
        return "draw", legal[0]
    wins = board.winning_moves()
    if wins:
        return "win", board.columns(wins)[0]
    safe = board.columns(board.non_losing_moves())
    if len(safe) == 1:
        return "block", safe[0]
    return None
