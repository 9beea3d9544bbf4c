"""The frame every kit player shares: :class:`Strategy`.

A strategy's ``play`` times the move, pauses the garbage collector (a collection inside a search would
stall the clock; :func:`agents.kit.budget.collector_paused`), does once, at the first move, what the
strategy must before searching (:meth:`Strategy._prepare`: compiling the solver), charging it to the
bank (:func:`agents.kit.budget.charged`), and returns the move with how it was
chosen (:class:`agents.kit.record.MoveRecord`). What the strategy decides is its own
:meth:`Strategy._choose`: the kit's stages (:mod:`agents.kit.tactics`, :mod:`agents.kit.solved`)
and then its own search.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from agents.engine.board import Board
from agents.kit.budget import charged, collector_paused
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord

__all__ = ["Strategy"]


class Strategy(ABC):
    """A :class:`~agents.kit.player.Player` made of :meth:`_choose`."""

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        """The move to play and how it was chosen (garbage collector off meanwhile); the board is
        left as it was. Raises ``ValueError`` when the game is over. The move's record and budget
        start after :meth:`_prepare`, whose seconds are taken from the clock's bank."""
        start = time.perf_counter()
        with collector_paused():
            spent = self._prepare()
            if spent > 0.0:
                clock, start = charged(clock, spent), time.perf_counter()
            return self._choose(board, clock, start)

    def _prepare(self) -> float:
        """Work done before a move's search, once: the seconds it took (0.0 here: nothing to do)."""
        return 0.0

    @abstractmethod
    def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
        """How the move on ``board`` is chosen, ``start`` the move's ``time.perf_counter()``."""
