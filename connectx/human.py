"""The person at the terminal as a :class:`~agents.kit.player.Player`, for ``connectx play``.

:class:`HumanPlayer` asks for a column (1-based, as the board is numbered) until the answer is a
legal move, saying in one line what was wrong with each other answer. Two answers leave the game
instead of moving, as exceptions out of :func:`agents.kit.player.play_game`: ``u`` (:class:`Undo`: take
back the person's last move and the agent's reply; the caller replays the game from the moves that
stand) and ``q`` or the end of input, Ctrl-D (:class:`Quit`). Ctrl-C is Python's
``KeyboardInterrupt``, left to the caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from agents.engine.board import Board
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord

__all__ = ["HumanPlayer", "Quit", "Undo", "column_of"]


class Undo(Exception):  # noqa: N818 - a request, not an error
    """The person asked to take back their last move and the agent's reply to it."""


class Quit(Exception):  # noqa: N818 - a request, not an error
    """The person asked to stop (``q``, or the end of input)."""


def column_of(answer: str, board: Board) -> int:
    """The 0-based column the person means by ``answer`` (a 1-based column number) on ``board``.

    Raises :class:`Undo` for ``u`` / ``undo`` when the person has a move on the board (``board.ply``
    of at least 2: theirs and the reply), :class:`Quit` for ``q`` / ``quit``, and ``ValueError`` with
    the one-line reason for anything else that is not a legal move: not a number, no such column, a
    full column, nothing to undo.

    >>> column_of(" 4 ", Board())
    3
    """
    text = answer.strip().lower()
    columns = board.geo.columns
    if text in ("q", "quit"):
        raise Quit
    if text in ("u", "undo"):
        if board.ply < 2:
            raise ValueError("nothing to undo yet")
        raise Undo
    if not text.isdecimal():
        raise ValueError(f"{answer.strip()!r} is not a column: type 1-{columns}, u to undo, q to quit")
    column = int(text) - 1
    if not 0 <= column < columns:
        raise ValueError(f"there is no column {text}: type 1-{columns}")
    if not board.can_play(column):
        raise ValueError(f"column {text} is full: choose another")
    return column


class HumanPlayer:
    """A :class:`~agents.kit.player.Player` whose moves are typed: ``ask(prompt) -> answer`` reads one
    (``input`` by default; its ``EOFError`` is :class:`Quit`) and ``say(line)`` shows why an answer
    was refused (``print``). ``name`` (e.g. ``"X"``, possibly coloured) goes into the prompt. The
    clock is ignored: a person is not timed."""

    def __init__(
        self, name: str, ask: Callable[[str], str] = input, say: Callable[[str], None] = print
    ) -> None:
        self.name, self.ask, self.say = name, ask, say

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        prompt = f"your move ({self.name}): column 1-{board.geo.columns}, u undo, q quit: "
        while True:
            try:
                answer = self.ask(prompt)
            except EOFError:
                self.say("")
                raise Quit from None
            try:
                return MoveRecord.since(start, board, "person", column_of(answer, board))
            except ValueError as reason:
                self.say(str(reason))
