"""Perfect-play scores in one place: the values of a position's columns (:class:`ExactScores`, which
solves each position once and keeps it), why a board has none (:func:`unavailable`), and the words
that say what a score means (:func:`meaning`, :func:`column_words`, :func:`summary`).

The values are Pons' scores (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/), from
the side to move: 0 a draw; ``+N`` it wins with its ``(cells + 2) // 2 - N``-th stone (22 - N on 6x7:
the sooner, the higher); ``-N`` it loses, the opponent winning with that stone. A column's score is
the mover's after playing it (:meth:`agents.engine.solver.Solver.analyse_bits`). On the standard
board (:data:`BOARD`) positions of up to 12 stones are read from, or searched down to, the solved
opening databases of bitbully-databases (https://pypi.org/project/bitbully-databases/, MIT); later
ones are solved to the end by the numba kernel. Elsewhere the positions near the opening take
minutes each, so only the standard board gets scores.

A position is solved once: its columns' scores are kept under the key it shares with its mirror
image (:func:`agents.engine.book.canonical`). Move analysis (:mod:`reports.stats.judging`) hands in
the positions kept in ``solved.db`` (:mod:`reports.stats.solved`); the board page's server keeps one
:class:`ExactScores` for every page. ``connectx solve`` and the board page say a score in the same
words; the players are named as the boards show them (:data:`NAMES`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agents.engine.board import Board
from agents.engine.book import canonical
from agents.engine.solver import Solver
from agents.engine.solver.databases import load_database

__all__ = [
    "BOARD",
    "NAMES",
    "Analysed",
    "ExactScores",
    "Scores",
    "column_words",
    "meaning",
    "ordinal",
    "summary",
    "unavailable",
    "words",
]

BOARD = (6, 7, 4)
"""The board (rows, columns, in a row) that has perfect-play scores: the one the databases hold."""

Scores = tuple[int | None, ...]
"""The score of each column of a position, left to right (None: the column is full)."""

NAMES = {1: "Red", 2: "Yellow"}
"""Each mark's name, as the boards show it (the browser's red and yellow stones, ``connectx
play``'s red X and yellow O)."""


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
    """The scores of a position: ``scores``, each column's (:data:`Scores`, the position's left to
    right); ``key``, the key it shares with its mirror image, and ``mirrored``, whether the key is the
    mirror image's; whether it was solved before (``cached``); and the ``seconds`` the request took
    (waiting for another's included)."""

    scores: Scores
    key: int
    mirrored: bool
    cached: bool
    seconds: float

    @property
    def kept(self) -> Scores:
        """The scores as kept under :attr:`key` (reversed when the key is the mirror image's)."""
        return self.scores[::-1] if self.mirrored else self.scores


class ExactScores:
    """Column scores of 6x7 positions, solved once each and kept: ``known`` (key -> scores, as
    :attr:`Analysed.kept`) to begin with, at most ``keep`` positions (None: all), the least recently
    asked dropped first. One solver serves every request, one at a time (its transposition tables
    are not shared between threads)."""

    def __init__(self, known: Mapping[int, Scores] | None = None, *, keep: int | None = None) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._solver: Solver | None = None
        self._known: OrderedDict[int, Scores] = OrderedDict(known or {})

    def prepare(self) -> None:
        """Make the solver now, reading the databases (about 40 MB), so that no request waits for it."""
        with self._lock:
            if self._solver is None and unavailable(*BOARD) is None:
                self._solver = Solver(*BOARD)

    def warm(self) -> None:
        """Solve the empty board, the slowest position to ask (a second or more), so that no request
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
        key, mirrored = canonical(board.position, board.mask, board.geo)
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
                if self.keep is not None and len(self._known) > self.keep:
                    self._known.popitem(last=False)
        seconds = time.perf_counter() - began
        return Analysed(known[::-1] if mirrored else known, key, mirrored, cached, seconds)


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _sides(ply: int) -> tuple[int, int]:
    """The marks of the side to move after ``ply`` moves and of the other side."""
    return (1, 2) if ply % 2 == 0 else (2, 1)


def _stone(score: int, cells: int) -> int:
    """Which of the winner's stones wins, for a nonzero ``score`` on a board of ``cells`` cells."""
    return (cells + 2) // 2 - abs(score)


def meaning(score: int, ply: int, cells: int, *, weak: bool = False) -> str:
    """``score`` (Pons' convention, side to move) in words, for a position after ``ply`` moves on a
    board of ``cells`` cells: who is to move (:data:`NAMES`, and the mark), who wins and with which of
    its stones; ``weak``: only who wins (a score of 1, 0 or -1).

    >>> meaning(-2, 4, 42)
    'Red (mark 1) to move loses: Yellow wins with its 20th stone'
    """
    mover, other = _sides(ply)
    side = f"{NAMES[mover]} (mark {mover})"
    if score == 0:
        return f"{side} to move: a draw with best play"
    if weak:
        return f"{side} to move {'wins' if score > 0 else 'loses'}"
    stone = ordinal(_stone(score, cells))
    if score > 0:
        return f"{side} to move wins with its {stone} stone"
    return f"{side} to move loses: {NAMES[other]} wins with its {stone} stone"


def column_words(score: int, ply: int, cells: int) -> tuple[str, str]:
    """The score of playing a column, for the side to move after ``ply`` moves on a board of ``cells``
    cells, in words: ``(short, long)``, as the board page's chip shows it and its tooltip says it.

    >>> column_words(3, 0, 42)
    ('wins with its 19th stone', 'Red wins with its 19th stone (19 moves from now, this one included)')
    >>> column_words(-2, 3, 42)
    ('loses in 18', 'Yellow loses: Red wins with its 20th stone, its 18th move from now')
    """
    mover, other = _sides(ply)
    if score == 0:
        return "draw", f"{NAMES[mover]} draws with best play"
    stone = _stone(score, cells)
    if score > 0:
        moves = stone - ply // 2
        short = f"wins with its {ordinal(stone)} stone"
        return short, f"{NAMES[mover]} {short} ({moves} moves from now, this one included)"
    away = stone - (ply + 1) // 2
    wins = f"{NAMES[other]} wins with its {ordinal(stone)} stone, its {ordinal(away)} move from now"
    return f"loses in {away}", f"{NAMES[mover]} loses: {wins}"


def summary(scores: Sequence[int | None], ply: int, cells: int, *, weak: bool = False) -> str:
    """The value of a position after ``ply`` moves on a board of ``cells`` cells, from its columns'
    ``scores`` (None for a full column), in a sentence: who wins or draws, with which column(s);
    ``weak``: scores of 1, 0 or -1, only who wins.

    >>> summary([-2, -1, 0, 1, 0, -1, -2], 0, 42)
    'Red wins with its 21st stone, playing column 4.'
    >>> summary([-4, -4, -3, -5, -4, -2, -2], 4, 42)
    'Red loses whatever it plays; columns 6 or 7 hold out longest (Yellow wins with its 20th stone).'
    """
    mover, other = _sides(ply)
    best = max(score for score in scores if score is not None)
    columns = [str(column + 1) for column, score in enumerate(scores) if score == best]
    which = (
        f"columns {', '.join(columns[:-1])} or {columns[-1]}" if len(columns) > 1 else f"column {columns[0]}"
    )
    if best == 0:
        return f"{NAMES[mover]} draws, playing {which}."
    if weak:
        return (
            f"{NAMES[mover]} wins, playing {which}."
            if best > 0
            else f"{NAMES[mover]} loses whatever it plays."
        )
    stone = ordinal(_stone(best, cells))
    if best > 0:
        return f"{NAMES[mover]} wins with its {stone} stone, playing {which}."
    hold = "hold" if len(columns) > 1 else "holds"
    return (
        f"{NAMES[mover]} loses whatever it plays; {which} {hold} out longest "
        f"({NAMES[other]} wins with its {stone} stone)."
    )


def words(scores: Sequence[int | None], ply: int, cells: int) -> dict[str, object]:
    """The words of a position's column ``scores`` as the board page shows them (JSON-ready):
    ``columns``, each column's ``{"short", "long"}`` (:func:`column_words`; None for a full column),
    and ``summary`` (:func:`summary`)."""
    said = [None if score is None else column_words(score, ply, cells) for score in scores]
    columns = [None if pair is None else {"short": pair[0], "long": pair[1]} for pair in said]
    return {"columns": columns, "summary": summary(scores, ply, cells)}
