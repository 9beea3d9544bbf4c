"""The perfect-play score of every column of a position, for the board page: :class:`Scores`.

The scores are the exact-value layer's: :meth:`agents.engine.solver.Solver.analyse_bits` with the
solved opening databases, the solver move analysis uses (:mod:`reports.stats.judging`). Positions of
up to 12 stones are read from, or searched down to, the databases; later ones are solved to the end
by the numba kernel. Only the board the databases hold has them (:data:`reports.stats.judging.BOARD`):
elsewhere the early positions take minutes, so :func:`unavailable` says why there are none.

A position is solved once: its columns' scores are kept under the key it shares with its mirror image
(:func:`reports.stats.judging.canonical`), as ``connectx analyze`` keeps them. One solver serves
every request, one at a time (its transposition tables are not shared between threads).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from agents.engine.board import Board
from agents.engine.solver import Solver
from agents.engine.solver.databases import load_database
from reports.stats.judging import BOARD, canonical

__all__ = ["Analysed", "Scores", "unavailable"]


def unavailable(rows: int, columns: int, inarow: int) -> str | None:
    """Why a board of ``rows`` x ``columns``, ``inarow`` in a row, gets no scores, as a sentence; None
    when it gets them."""
    if (rows, columns, inarow) != BOARD:
        return (
            "perfect-play scores are not available on this board: they need the standard 6x7 board with "
            f"4 in a row, whose solved opening databases they read ({rows}x{columns}, {inarow} in a row here)"
        )
    if load_database() is None:
        return (
            "perfect-play scores are not available: the solved opening databases are not installed "
            "(pip install bitbully-databases)"
        )
    return None


@dataclass(frozen=True, slots=True)
class Analysed:
    """The scores of a position: ``scores``, each column's Pons score for the side to move after
    playing it (None for a full column; see :mod:`agents.engine.solver`), the ``seconds`` this
    request took (waiting for another's included), and whether the position was solved before
    (``cached``)."""

    scores: tuple[int | None, ...]
    seconds: float
    cached: bool


class Scores:
    """Column scores of 6x7 positions, solved once each and kept (at most ``keep`` positions, the
    least recently asked dropped first)."""

    def __init__(self, keep: int = 200_000) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._solver: Solver | None = None
        self._known: OrderedDict[int, tuple[int | None, ...]] = OrderedDict()

    def prepare(self) -> None:
        """Make the solver now, reading the databases (about 40 MB), so that no page waits for it."""
        with self._lock:
            if self._solver is None and unavailable(*BOARD) is None:
                self._solver = Solver(*BOARD)

    def warm(self) -> None:
        """Solve the empty board, the slowest position to ask (a second or more), so that no page
        waits for it."""
        if unavailable(*BOARD) is None:
            self.of(Board(*BOARD))

    def of(self, board: Board) -> Analysed:
        """The scores of ``board``, a 6x7 position with the game still on.

        Raises ValueError for another board (see :func:`unavailable`) or a game that is over.
        """
        reason = unavailable(board.geo.rows, board.geo.columns, board.geo.inarow)
        if reason is not None:
            raise ValueError(reason)
        if board.is_game_over():
            raise ValueError("the game is over: no column has a score")
        key, mirrored = canonical(board)
        began = time.perf_counter()
        with self._lock:
            known = self._known.get(key)
            cached = known is not None
            if known is not None:
                self._known.move_to_end(key)
            else:
                if self._solver is None:
                    self._solver = Solver(*BOARD)
                scores = tuple(self._solver.analyse_bits(board.position, board.mask, board.ply))
                known = self._known[key] = scores[::-1] if mirrored else scores
                if len(self._known) > self.keep:
                    self._known.popitem(last=False)
        seconds = time.perf_counter() - began
        return Analysed(known[::-1] if mirrored else known, seconds, cached)
