"""One-ply search over afterstates, the way the learned evaluations (``lms``, ``value_net``) play.

The *afterstate* of a move is the position it leads to, with the opponent to move. A learned
evaluation values a position for its side to move, so the mover's worth of a move is the negated
value of its afterstate -- except when the move ends the game, which is worth its result: 1 for a
win, 0 for a draw (a full board). The move played is the one worth the most to the mover, ties going
to the column nearest the centre (:attr:`agents.engine.board.Geometry.centre_order`). This is the 1-ply
search of Mitchell's checkers learner (*Machine Learning*, 1997, ch. 1) and of afterstate value
functions (Sutton & Barto, *Reinforcement Learning*, 2nd ed. 2018, sec. 6.8).

When an evaluation cannot be used on a board (weights of raw-board inputs trained on another board),
:class:`OnePly` falls back to the course's one-step lookahead (:func:`agents.one_step.score_moves`,
ties to the centre) and records ``stage: "fallback"``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.engine.board import Board, Geometry
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.one_step import score_moves

__all__ = [
    "Afterstates",
    "PositionValues",
    "OnePly",
    "afterstates",
    "best_column",
    "move_values",
    "one_step_values",
]

PositionValues = Callable[[Sequence[int], Sequence[int], Geometry], np.ndarray]
"""``evaluate(positions, masks, geo)``: values in [-1, 1], shape ``(len(positions),)``, of the
positions given as bitboards (:mod:`agents.engine.board`), each for its side to move."""


@dataclass(frozen=True, slots=True)
class Afterstates:
    """The legal moves of a position in centre-first order: ``columns``; ``results``, the mover's
    result when the move ends the game (1.0 win, 0.0 draw) or None; ``positions``/``masks``, the
    bitboards after each move (``positions`` holds the stones of the opponent, now to move)."""

    columns: tuple[int, ...]
    results: tuple[float | None, ...]
    positions: tuple[int, ...]
    masks: tuple[int, ...]


def afterstates(board: Board) -> Afterstates:
    """The :class:`Afterstates` of ``board`` (game not over)."""
    columns, results, positions, masks = [], [], [], []
    full = board.ply + 1 == board.geo.size
    theirs = board.position ^ board.mask
    for column in board.geo.centre_order:
        if not board.can_play(column):
            continue
        columns.append(column)
        results.append(1.0 if board.is_winning_move(column) else 0.0 if full else None)
        positions.append(theirs)
        masks.append(board.mask | board.move_cell(column))
    return Afterstates(tuple(columns), tuple(results), tuple(positions), tuple(masks))


def move_values(board: Board, evaluate: PositionValues) -> dict[int, float]:
    """``{column: worth to the mover}`` of every legal move of ``board`` (game not over), centre
    first: the result of a move that ends the game, else minus ``evaluate`` of its afterstate (all
    afterstates in one call)."""
    after = afterstates(board)
    open_moves = [i for i, result in enumerate(after.results) if result is None]
    values = [result or 0.0 for result in after.results]
    if open_moves:
        estimates = evaluate(
            [after.positions[i] for i in open_moves], [after.masks[i] for i in open_moves], board.geo
        )
        for i, estimate in zip(open_moves, estimates, strict=True):
            values[i] = -float(estimate)
    return dict(zip(after.columns, values, strict=True))


def one_step_values(board: Board) -> dict[int, float]:
    """The fallback's ``{column: one-step score}`` (:func:`agents.one_step.score_moves`), centre first."""
    scores = score_moves(board)
    return {c: float(scores[c]) for c in board.geo.centre_order if c in scores}


def best_column(values: dict[int, float]) -> int:
    """The first column (in the dict's order) of the highest value."""
    return max(values, key=values.__getitem__)


class OnePly:
    """The one-ply :class:`~agents.kit.player.Player`: ``evaluator(geo)`` returns the :data:`PositionValues`
    to use on boards ``geo``, or None when it has none for that board (then the one-step fallback
    plays). Its move's record has the ``stage`` (``one_ply`` or ``fallback``) and the ``value``, the
    chosen move's worth to the mover. Raises ``ValueError`` when asked to play a finished game."""

    def __init__(self, evaluator: Callable[[Geometry], PositionValues | None]) -> None:
        self.evaluator = evaluator

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        if board.is_game_over():
            raise ValueError("the game is already over")
        evaluate = self.evaluator(board.geo)
        if evaluate is None:
            values = one_step_values(board)
            stage = "fallback"
        else:
            values = move_values(board, evaluate)
            stage = "one_ply"
        column = best_column(values)
        return MoveRecord.since(start, board, stage, column, value=values[column])
