"""Players and the one game loop that plays them outside Kaggle's referee.

A :class:`Player` chooses a column for a :class:`~agents.engine.board.Board` under a
:class:`~agents.kit.clock.Clock`. Kaggle's ``agent(obs, config)`` is an adapter at the edge:
:func:`agents.kit.adapter.as_player` turns an agent into a player, :func:`agents.kit.adapter.kaggle_agent` a
player into an agent. :func:`play_game` is the one loop in which players meet in-process -- for
benchmarks, training data, learners and terminal play. Tournaments do not use it: they play every game
through kaggle-environments, which enforces the time limits and scores misbehaviour.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.engine.board import Board, Outcome
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord

__all__ = ["GameResult", "Player", "play_game"]

KAGGLE_CLOCK = Clock()
"""Kaggle's limits: 2 s a move and a 60 s overage bank."""


class Player(Protocol):
    """Anything with ``play(board, clock) -> MoveRecord``.

    ``board`` is the position with the player's mark to move (``board.mark``); the player may push and
    pop moves on it but must leave it as it found it. ``clock`` gives ``act_timeout`` (seconds a move
    may take) and ``overage`` (seconds left in the player's bank). The result is the move, its
    0-based ``column``, with how it was chosen (:class:`~agents.kit.record.MoveRecord`).
    """

    def play(self, board: Board, clock: Clock) -> MoveRecord: ...


@dataclass(frozen=True, slots=True)
class GameResult:
    """A game played by :func:`play_game`: ``moves`` (0-based columns, the opening included when the
    board it started from knows its moves, see :attr:`Board.moves <agents.engine.board.Board.moves>`),
    ``seconds`` each player's move took (one entry per move after the opening) and ``outcome``."""

    moves: tuple[int, ...]
    seconds: tuple[float, ...]
    outcome: Outcome

    @property
    def result(self) -> float:
        """Score of the player of mark 1: 1.0 win, 0.5 draw, 0.0 loss."""
        return self.outcome.result


def play_game(
    players: Sequence[Player],
    board: Board | None = None,
    *,
    clock: Clock = KAGGLE_CLOCK,
    on_move: Callable[[Board, float], None] | None = None,
) -> GameResult:
    """Play ``players[0]`` (mark 1) against ``players[1]`` (mark 2) from ``board`` to the end.

    ``board`` (default: the empty 6x7 board, four in a row) is the opening, left untouched; the game
    goes on from a copy, with the side to move given by its ply. Each move is timed and charged to
    its player's bank as Kaggle does: the part beyond ``clock.act_timeout`` is taken from
    ``clock.overage`` (never below 0); nothing is enforced -- a slow player is not stopped.
    ``on_move(board, seconds)`` is called after every move with the position it made.

    Raises :class:`~agents.engine.board.IllegalMoveError` (a ``ValueError``) when a player returns a move that
    is not a legal column, and ``ValueError`` when ``players`` is not two players or the opening is
    already over.
    """
    if len(players) != 2:
        raise ValueError(f"a game takes two players, got {len(players)}")
    game = Board() if board is None else board.copy()
    if game.is_game_over():
        raise ValueError("the game is already over")
    banks = [clock.overage, clock.overage]
    seconds: list[float] = []
    while (outcome := game.outcome()) is None:
        side = game.ply % 2
        view = game.copy()
        began = time.perf_counter()
        column = players[side].play(view, Clock(clock.act_timeout, banks[side])).column
        spent = time.perf_counter() - began
        banks[side] = max(0.0, banks[side] - max(0.0, spent - clock.act_timeout))
        game.push(column)
        seconds.append(spent)
        if on_move is not None:
            on_move(game, spent)
    return GameResult(moves=game.moves, seconds=tuple(seconds), outcome=outcome)
