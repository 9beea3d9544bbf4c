"""The frame every kit player shares: :class:`Strategy`.

A strategy's ``play`` times the move, pauses the garbage collector (a collection inside a search would
stall the clock; :func:`agents.kit.budget.collector_paused`) and keeps how the move was chosen as
``last_move`` (:class:`agents.kit.record.MoveRecord`). What the strategy decides is its own
:meth:`Strategy._choose`: the kit's stages (:mod:`agents.kit.tactics`, :mod:`agents.kit.solved`)
and then its own search.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from agents.engine.board import Board
from agents.kit.budget import collector_paused
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord

__all__ = ["Strategy"]


class Strategy(ABC):
    """A :class:`~agents.kit.player.Player` made of :meth:`_choose`; ``last_move`` is None before its
    first move."""

    last_move: MoveRecord | None = None

    def play(self, board: Board, clock: Clock) -> int:
        """The column to play (garbage collector off meanwhile); the board is left as it was. Raises
        ``ValueError`` when the game is over."""
        start = time.perf_counter()
        with collector_paused():
            self.last_move = self._choose(board, clock, start)
        return self.last_move.column

    @abstractmethod
    def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
        """How the move on ``board`` is chosen, ``start`` the move's ``time.perf_counter()``."""
