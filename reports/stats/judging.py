"""Judge every move of stored games against perfect play: :func:`judge` gives the
:class:`~reports.stats.analysis.JudgedMove` values of ``RUN/moves.csv``.

Each position a game passed through is solved column by column with
:class:`agents.engine.solver.Solver` (Pons' scores, the side to move's point of view): positions of
up to 12 stones are read from, or searched down to, the solved opening databases of
bitbully-databases (https://pypi.org/project/bitbully-databases/, MIT); later ones are solved to
the end by the numba kernel. A position is solved once: the scores of its columns are kept under a
key shared with its mirror image, handed in as ``known`` (the cache of :mod:`reports.stats.solved`)
and handed back for the cache to keep.

Only the standard board can be judged: the databases hold 6x7 with 4 in a row, and without them
the positions near the opening take minutes each (:func:`unavailable` says why a run cannot be).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from agents.engine.board import Board, Geometry
from agents.engine.solver import Solver
from agents.engine.solver.databases import load_database
from reports.stats.analysis import OPENING, JudgedMove, Verdict
from reports.stats.solved import Scores
from tournament.record import GameRecord

__all__ = ["BOARD", "Judged", "canonical", "judge", "unavailable"]

BOARD = (6, 7, 4)
"""The board (rows, columns, in a row) move analysis judges: the one the databases hold."""


@dataclass(frozen=True, slots=True)
class Judged:
    """What :func:`judge` found: the judged ``moves`` (game, then ply order), the positions it
    ``solved`` (key -> scores, for the cache) and ``cached``, how many moves were played from a
    position of ``known`` (each position counted at each of its moves)."""

    moves: list[JudgedMove]
    solved: dict[int, Scores]
    cached: int


def unavailable(records: Sequence[GameRecord]) -> str | None:
    """Why the games of ``records`` cannot be judged, as a sentence; None when they can."""
    boards = sorted({(r.task.rows, r.task.columns, r.task.inarow) for r in records})
    if boards and boards != [BOARD]:
        shown = ", ".join(f"{rows}x{columns} with {inarow} in a row" for rows, columns, inarow in boards)
        return (
            "move analysis is not available for these games: it needs the standard 6x7 board with "
            f"4 in a row, whose solved databases it reads, and they were played on {shown}"
        )
    if load_database() is None:
        return (
            "move analysis is not available: the solved opening databases are not installed "
            "(pip install bitbully-databases)"
        )
    return None


def canonical(board: Board) -> tuple[int, bool]:
    """The cache key of ``board``'s position, shared with its mirror image: ``(key, mirrored)``, where
    ``mirrored`` says that the key is the mirror image's (whose column scores are then reversed)."""
    geo = board.geo
    key = board.key()
    mirror = _mirror(board.position, geo) + _mirror(board.mask, geo)
    return (mirror, True) if mirror < key else (key, False)


def _mirror(bits: int, geo: Geometry) -> int:
    """The bitboard ``bits`` reflected left to right (columns of ``rows + 1`` bits, column 0 lowest)."""
    height = geo.rows + 1
    column = (1 << height) - 1
    out = 0
    for c in range(geo.columns):
        out |= ((bits >> (c * height)) & column) << ((geo.columns - 1 - c) * height)
    return out


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


_solver: Solver | None = None
_known: dict[int, Scores] = {}
_stored: frozenset[int] = frozenset()
"""The keys handed in as known, whose hits :attr:`Judged.cached` counts."""


def _start(known: Mapping[int, Scores]) -> None:
    """Set up this process to judge games: a solver with the databases, and the known positions."""
    global _solver, _known, _stored
    if _solver is None:
        _solver = Solver(*BOARD)
    _known = dict(known)
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
        key, mirrored = canonical(board)
        stored = _known.get(key)
        if stored is None:
            assert _solver is not None
            scores: Scores = tuple(_solver.analyse_bits(board.position, board.mask, board.ply))
            _known[key] = solved[key] = scores[::-1] if mirrored else scores
        else:
            cached += key in _stored
            scores = stored[::-1] if mirrored else stored
        best = max(score for score in scores if score is not None)
        played = scores[column]
        assert played is not None, f"game {game_id}: move {index + 1} into a full column"
        agent = OPENING if index < opening else (first, second)[index % 2]
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
