"""The one training-game loop every learner shares: a game between two players, as a trajectory.

It plays through :func:`agents.kit.player.play_game` (the project's one in-process game loop) with no
time limit, and records the position after every move, so that a learner can turn the game into
targets (Monte-Carlo returns, TD errors, transitions) without replaying it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agents.engine.board import Board, Geometry
from agents.kit.clock import Clock
from agents.kit.player import Player, play_game

__all__ = ["Trajectory", "play"]

UNTIMED = Clock(act_timeout=1e9, overage=0.0)
"""Training games are not timed."""


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A finished training game.

    ``moves``: the 0-based columns after the opening; ``positions``/``masks``: the bitboards
    (:mod:`agents.engine.board`) after each of those moves, ``positions[i]`` being the stones of the side to
    move *after* move ``i`` (the opponent of its mover); ``plies``: the ply after each move;
    ``winner``: the mark that won (1 or 2), or 0 for a draw; ``first_ply``: the opening's length.
    """

    moves: tuple[int, ...]
    positions: tuple[int, ...]
    masks: tuple[int, ...]
    plies: tuple[int, ...]
    winner: int
    first_ply: int

    def result_for(self, mark: int) -> float:
        """The final result for ``mark``: +1 win, -1 loss, 0 draw."""
        return 0.0 if self.winner == 0 else (1.0 if self.winner == mark else -1.0)

    def mover(self, i: int) -> int:
        """The mark (1 or 2) that played move ``i``."""
        return 1 + (self.plies[i] - 1) % 2


def play(players: Sequence[Player], geo: Geometry, opening: Sequence[int] = ()) -> Trajectory:
    """Play ``players[0]`` (mark 1) against ``players[1]`` (mark 2) on the board ``geo`` from the
    ``opening`` (0-based columns; ``ValueError`` if illegal or finished) and return the
    :class:`Trajectory`. A player may be the same object twice (self-play)."""
    board = Board(geo.rows, geo.columns, geo.inarow)
    for column in opening:
        board.push(column)
    positions: list[int] = []
    masks: list[int] = []
    plies: list[int] = []

    def record(after: Board, seconds: float) -> None:
        positions.append(after.position)
        masks.append(after.mask)
        plies.append(after.ply)

    result = play_game(players, board, clock=UNTIMED, on_move=record)
    return Trajectory(
        moves=tuple(result.moves[len(opening) :]),
        positions=tuple(positions),
        masks=tuple(masks),
        plies=tuple(plies),
        winner=result.outcome.winner or 0,
        first_ply=len(opening),
    )
