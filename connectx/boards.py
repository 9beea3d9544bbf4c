"""A Connect-Four position that draws itself, and its perfect-play solution: :class:`Board`,
:func:`solve`, :class:`Solved`.

A position is given as Pons' notation, the columns played from 1, mark 1 (Red) first: ``"4453"``, as
``connectx solve`` and ``connectx serve``'s address take it (on a board of more than 9 columns, the
columns separated by blanks: ``"10 3 12"``). The rules are :mod:`agents.engine.board`'s, the one
engine of the project; the scores are Pons' (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/),
from the side to move, searched by :mod:`agents.engine.solver` down to the solved opening databases,
and said in :mod:`reports.exact`'s words, as ``connectx solve`` and the board page say them.

In a notebook, ``Board("4453")`` draws itself as plain HTML holding an SVG picture
(:mod:`connectx.board_html`: no script, nothing fetched, so it shows in JupyterLab, VS Code, Colab
and a saved notebook); ``Board("4453", scores=True)`` adds each column's perfect-play score under it
and the position's value in words. In a terminal, its ``repr`` is the text board ``connectx play``
draws (row 0, Kaggle's first row, on top). ``Board().play("negamax")`` is a board to play on
(:mod:`connectx.playing`).

>>> board = Board("4453")
>>> board.ply, board.mark, board.kaggle[38]
(4, 1, 1)
>>> print(board)
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . O . . .
. . O X X . .
1 2 3 4 5 6 7
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.engine.board import Board as EngineBoard
from agents.engine.board import BoardError, geometry
from agents.engine.solver import Solver, parse_position
from connectx import board_html
from connectx.drawing import draw
from reports.exact import column_words, meaning, summary, unavailable

if TYPE_CHECKING:
    from connectx.entrants import Agent
    from connectx.playing import BoardWidget

__all__ = ["Board", "Solved", "solve"]


@dataclass(frozen=True, slots=True)
class Solved:
    """The perfect-play solution of a position (:func:`solve`).

    ``position`` (Pons' notation) after ``ply`` moves on a board of ``cells`` cells; ``score``, its
    Pons score from the side to move (0 a draw; ``+N`` it wins with its ``(cells + 2) // 2 - N``-th
    stone, 22 - N on 6x7; ``-N`` it loses, the opponent winning with that stone); ``scores``, each
    column's score, the mover's after playing it, left to right (None for a full column), or None
    when not analysed; ``weak``: the scores are only 1 / 0 / -1 (win, draw, loss); ``nodes`` the
    search visited and the ``seconds`` it took.
    """

    position: str
    ply: int
    cells: int
    score: int
    scores: tuple[int | None, ...] | None
    weak: bool
    nodes: int
    seconds: float

    @property
    def best(self) -> tuple[int, ...]:
        """The best columns, numbered from 1 (empty when not analysed)."""
        if self.scores is None:
            return ()
        return tuple(c + 1 for c, score in enumerate(self.scores) if score == self.score)

    @property
    def words(self) -> str:
        """The score in words (:func:`reports.exact.meaning`): ``Red (mark 1) to move loses: Yellow
        wins with its 20th stone``."""
        return meaning(self.score, self.ply, self.cells, weak=self.weak)

    @property
    def summary(self) -> str | None:
        """The value with the best columns in a sentence (:func:`reports.exact.summary`): ``Red loses
        whatever it plays; columns 6 or 7 hold out longest (Yellow wins with its 20th stone).``;
        None when not analysed."""
        if self.scores is None:
            return None
        return summary(self.scores, self.ply, self.cells, weak=self.weak)

    @property
    def columns(self) -> tuple[tuple[str, str] | None, ...]:
        """Each column's score in words, ``(short, long)`` as the board page's chip and its tooltip
        say it (:func:`reports.exact.column_words`; None for a full column); empty when not analysed
        or ``weak``."""
        if self.scores is None or self.weak:
            return ()
        return tuple(None if s is None else column_words(s, self.ply, self.cells) for s in self.scores)


def solve(
    position: str = "",
    *,
    rows: int = 6,
    columns: int = 7,
    inarow: int = 4,
    weak: bool = False,
    analyse: bool = True,
) -> Solved:
    """Solve ``position`` (Pons' notation, ``"4453"``) on the board ``rows`` x ``columns`` with
    ``inarow`` in a row: its score, with ``analyse`` each column's too (7 searches instead of one),
    ``weak`` only win / draw / loss. ``connectx solve`` prints it (``-a``: analysed).

    On 6x7 a position takes at most seconds (the search stops at the databases' 12-stone
    positions); on another board, positions with few stones can take minutes.

    Raises ValueError (an :class:`agents.engine.board.BoardError`), one sentence naming the move, for
    a position that is not one of this board or one already won or full: ``invalid position '4449':
    move 4 '9' is not a column digit 1-7``.

    >>> solved = solve("4453")
    >>> solved.score, solved.best, solved.words
    (-2, (3, 6, 7), 'Red (mark 1) to move loses: Yellow wins with its 20th stone')
    >>> solved.scores
    (-5, -5, -2, -3, -4, -2, -2)
    """
    board = _parse(position, rows, columns, inarow, over=False)
    began = time.perf_counter()
    solver = Solver(rows, columns, inarow)  # a fresh one, shared with no other call or thread (cheap:
    scores: tuple[int | None, ...] | None = None  # the databases are read once a process)
    if analyse:
        scores = tuple(solver.analyse(board.moves, weak=weak))
        score = max(s for s in scores if s is not None)
    else:
        score = solver.solve(board.moves, weak=weak).score
    nodes = solver.nodes
    seconds = time.perf_counter() - began
    return Solved(board.notation(), board.ply, board.geo.size, score, scores, weak, nodes, seconds)


def _parse(position: str, rows: int, columns: int, inarow: int, *, over: bool) -> EngineBoard:
    """The board after ``position``; ``over``: the game may be over. Raises the engine's error, its
    message naming the position."""
    try:
        if over:
            return EngineBoard.from_notation(position, rows=rows, columns=columns, inarow=inarow)
        return parse_position(position, geometry(rows, columns, inarow))
    except BoardError as error:
        raise type(error)(f"invalid position {position!r}: {error}") from None


class Board:
    """A position that draws itself (module docstring).

    ``Board(position="", *, rows=6, columns=7, inarow=4, scores=False)``: the board after the moves
    ``position`` (Pons' notation). The game may be over (a won or full board draws its end).
    ``scores``: draw each column's perfect-play score under it (the standard 6x7 board only).

    Raises ValueError (an :class:`agents.engine.board.BoardError`), one sentence naming the move,
    for a position that is not one of this board: ``invalid position '44444444': move 7: column 4 is
    full``; ValueError when ``scores`` is asked on another board than 6x7 with 4 in a row.

    >>> Board("4453").solve().best
    (3, 6, 7)
    """

    def __init__(
        self, position: str = "", *, rows: int = 6, columns: int = 7, inarow: int = 4, scores: bool = False
    ) -> None:
        if not isinstance(position, str):
            raise TypeError(
                f"a position is a str of column digits, like '4453', not {type(position).__name__}"
            )
        self._board = _parse(position.strip(), rows, columns, inarow, over=True)
        self.position = self._board.notation()
        self.show_scores = scores
        if scores:
            self._check_scores()

    # --- what it is ---------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        return self._board.geo.rows

    @property
    def columns(self) -> int:
        return self._board.geo.columns

    @property
    def inarow(self) -> int:
        return self._board.geo.inarow

    @property
    def ply(self) -> int:
        """Moves played."""
        return self._board.ply

    @property
    def mark(self) -> int:
        """The mark to move (1 Red, 2 Yellow), as Kaggle's ``obs.mark``."""
        return self._board.mark

    @property
    def kaggle(self) -> list[int]:
        """Kaggle's ``obs.board``: ``rows * columns`` cells, row-major, row 0 the **top** row; 0 an
        empty cell, else the mark of its stone."""
        return self._board.to_kaggle()

    @property
    def winner(self) -> int | None:
        """The mark that made a line, else None."""
        return self._board.winner()

    def is_game_over(self) -> bool:
        """True when a line is made or the board is full."""
        return self._board.is_game_over()

    def legal_moves(self) -> list[int]:
        """The columns that may be played, numbered from 1 (none when the game is over)."""
        return [] if self.is_game_over() else [c + 1 for c in self._board.legal_moves()]

    def engine(self) -> EngineBoard:
        """A copy of the position as the engine's board (:class:`agents.engine.board.Board`: 0-based
        columns, bitboards, push/pop)."""
        return self._board.copy()

    # --- perfect play -----------------------------------------------------------------------

    def scored(self) -> Board:
        """This position, drawn with its scores (``Board(position, scores=True)``)."""
        return Board(self.position, rows=self.rows, columns=self.columns, inarow=self.inarow, scores=True)

    def solve(self, *, weak: bool = False) -> Solved:
        """Every column's perfect-play score and its words (:func:`solve`, analysed). Raises
        ValueError when the game is over."""
        return solve(self.position, rows=self.rows, columns=self.columns, inarow=self.inarow, weak=weak)

    def scores(self) -> Solved:
        """The scores drawn under the columns: :meth:`solve` on the standard board. Raises
        ValueError on another board (they would take minutes: call :meth:`solve` for them) or when
        the game is over.

        >>> Board("4453").scores().scores
        (-5, -5, -2, -3, -4, -2, -2)
        """
        self._check_scores()
        return self.solve()

    def _check_scores(self) -> None:
        reason = unavailable(self.rows, self.columns, self.inarow)
        if reason is not None:
            raise ValueError(reason)

    # --- play -------------------------------------------------------------------------------

    def play(
        self, agent: Agent, *, first: bool = True, time: float = 2.0, scores: bool = True
    ) -> BoardWidget:
        """A board to play on against ``agent`` in a notebook, from this position: a Jupyter widget
        (:class:`connectx.playing.BoardWidget`, which says the rest). ``first``: you play Red (mark
        1, who moves first), else Yellow; ``time``: the agent's ``actTimeout`` in seconds, with
        Kaggle's 60 s overage bank; ``scores``: the perfect-play scores shown (a toggle).

        ``agent`` is a spec (``"negamax"``, ``"minimax:depth=4"``, a Kaggle built-in), a file, or a
        callable ``agent(obs, config)`` from a notebook cell (:func:`connectx.entrants.entrant_spec`:
        sent by value); it plays sandboxed, as in a tournament, never in the kernel. Raises
        ValueError for an agent that cannot be played or sent (one sentence), or a game already
        over.

        >>> widget = Board().play("negamax")  # doctest: +SKIP
        """
        from connectx.playing import BoardWidget

        return BoardWidget(self, agent, person=1 if first else 2, act_timeout=time, scores=scores)

    # --- drawing ----------------------------------------------------------------------------

    def _solved(self) -> Solved | None:
        """The scores to draw, or None."""
        return self.scores() if self.show_scores and not self.is_game_over() else None

    def _repr_html_(self) -> str:
        """The board as self-contained HTML (:func:`connectx.board_html.board_html`)."""
        return board_html.board_html(self._board, self._solved())

    def __str__(self) -> str:
        """The text board (``connectx play``'s, uncoloured): top row first, then the column numbers."""
        return draw(self._board, colour=False)

    def __repr__(self) -> str:
        """The call that makes it, then the text board (and the scores, when drawn)."""
        options = (
            ""
            if (self.rows, self.columns, self.inarow) == (6, 7, 4)
            else (f", rows={self.rows}, columns={self.columns}, inarow={self.inarow}")
        )
        head = f"Board({self.position!r}{options}{', scores=True' if self.show_scores else ''})"
        return "\n".join([head, str(self), *board_html.text_scores(self._board, self._solved())])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.position, self.rows, self.columns, self.inarow) == (
            other.position, other.rows, other.columns, other.inarow,
        )  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.position, self.rows, self.columns, self.inarow))
