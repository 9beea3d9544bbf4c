"""Judge every move of stored games against perfect play: :func:`judge` gives the
:class:`~reports.stats.analysis.JudgedMove` values of ``RUN/moves.csv``.

Each position a game passed through is solved column by column by
:class:`reports.exact.ExactScores` (Pons' scores, the side to move's point of view: the solver over
the solved opening databases). A position is solved once: the scores of its columns are kept under
a key shared with its mirror image, handed in as ``known`` (the cache of :mod:`reports.stats.solved`)
and handed back for the cache to keep.

Only the standard board can be judged (:func:`unavailable` says why a run cannot be).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from agents.engine.board import Board
from reports import exact
from reports.exact import BOARD, ExactScores, Scores
from reports.stats.analysis import JudgedMove, Verdict, mover
from tournament.record import GameRecord

__all__ = ["Judged", "judge", "unavailable"]


@dataclass(frozen=True, slots=True)
class Judged:
    """What :func:`judge` found: the judged ``moves`` (game, then ply order), the positions it
    ``solved`` (key -> scores, for the cache) and ``cached``, how many moves were played from a
    position of ``known`` (each position counted at each of its moves)."""

    moves: list[JudgedMove]
    solved: dict[int, Scores]
    cached: int


def unavailable(records: Sequence[GameRecord]) -> str | None:
    """Why the games of ``records`` cannot be judged, as a sentence (:func:`reports.exact.unavailable`
    of a board they were played on); None when they can."""
    boards = sorted({(r.task.rows, r.task.columns, r.task.inarow) for r in records}) or [BOARD]
    return next((why for board in boards if (why := exact.unavailable(*board)) is not None), None)


def judge(
    records: Sequence[GameRecord],
    *,
    known: Mapping[int, Scores] | None = None,
    workers: int = 1,
    progress: Callable[[int], object] | None = None,
) -> Judged:
    """Judge every stored move of ``records`` (6x7, 4 in a row: see :func:`unavailable`).

    ``known`` holds positions solved before (key -> scores, as :attr:`Judged.solved`); ``workers``
    processes share the games (each loads the databases, about 40 MB); ``progress`` is called with
    the number of games done each time one is. Raises ValueError for a game on another board.
    """
    games = [(r.game_id, r.first, r.second, len(r.opening), r.moves) for r in records]
    for record in records:
        if (record.task.rows, record.task.columns, record.task.inarow) != BOARD:
            raise ValueError(f"game {record.game_id} is not on the 6x7 board with 4 in a row")
    known = dict(known or {})
    moves: list[JudgedMove] = []
    solved: dict[int, Scores] = {}
    cached = 0
    if workers <= 1 or len(games) < 2:
        _start(known)
        results: Iterable[tuple[list[JudgedMove], dict[int, Scores], int]] = map(_judge_game, games)
        pool = None
    else:
        context = multiprocessing.get_context("spawn")  # no inherited threads or numba state
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start, initargs=(known,))
        results = pool.map(_judge_game, games, chunksize=1)
    try:
        for done, (game_moves, game_solved, game_cached) in enumerate(results, 1):
            moves += game_moves
            solved |= game_solved
            cached += game_cached
            if progress is not None:
                progress(done)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return Judged(moves, solved, cached)


_exact = ExactScores()
_stored: frozenset[int] = frozenset()
"""The keys handed in as known, whose hits :attr:`Judged.cached` counts."""


def _start(known: Mapping[int, Scores]) -> None:
    """Set up this process to judge games: the known positions, and the stored keys among them."""
    global _exact, _stored
    _exact = ExactScores(known)
    _stored = frozenset(known)


Game = tuple[int, str, str, int, tuple[int, ...]]
"""A game as a worker receives it: id, first and second entrant, opening length, moves (0-based)."""


def _judge_game(game: Game) -> tuple[list[JudgedMove], dict[int, Scores], int]:
    """The judged moves of one game, the positions solved for it, and how many were known."""
    game_id, first, second, opening, moves = game
    board = Board(*BOARD)
    judged = []
    solved: dict[int, Scores] = {}
    cached = 0
    for index, column in enumerate(moves):
        analysed = _exact.of(board)
        scores = analysed.scores
        if analysed.cached:
            cached += analysed.key in _stored
        else:
            solved[analysed.key] = analysed.kept
        best = max(score for score in scores if score is not None)
        played = scores[column]
        assert played is not None, f"game {game_id}: move {index + 1} into a full column"
        agent = mover(index, opening, first, second)
        judged.append(
            JudgedMove(
                game=game_id,
                ply=index + 1,
                agent=agent,
                position=board.notation(),
                column=column + 1,
                value_before=best,
                value_after=played,
                best_columns=tuple(c + 1 for c, score in enumerate(scores) if score == best),
                verdict=Verdict.of(best, played),
            )
        )
        board.push(column)
    return judged, solved, cached
