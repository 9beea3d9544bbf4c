"""Reward schemes of the environments: what a learner gets for a win, a loss, a draw, a move and a forfeit."""

from __future__ import annotations

import math
from dataclasses import dataclass

from agents.engine.board import Geometry

__all__ = ["SCHEMES", "Rewards", "rewards"]


@dataclass(frozen=True, slots=True)
class Rewards:
    """The rewards of one side, by how its turn ended.

    ``win``, ``loss``, ``draw``: the game ended on the board; ``step``: it goes on (given for every
    turn that does not end the game); ``invalid``: this side forfeited by playing a full column (the
    episode ends, as Kaggle's referee ends the game). A forfeit of the *other* side (an invalid move,
    a time-out, an error) is a win for this side, ``win``.
    """

    win: float = 1.0
    loss: float = -1.0
    draw: float = 0.0
    step: float = 0.0
    invalid: float = -1.0

    def __post_init__(self) -> None:
        for name in ("win", "loss", "draw", "step", "invalid"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"reward {name} must be a finite number, got {value!r}")

    @property
    def range(self) -> tuple[float, float]:
        """The lowest and highest reward of one turn."""
        values = (self.win, self.loss, self.draw, self.step, self.invalid)
        return float(min(values)), float(max(values))


SCHEMES = ("kaggle", "course")
"""The named schemes :func:`rewards` knows."""


def rewards(scheme: str | Rewards, geo: Geometry) -> Rewards:
    """The :class:`Rewards` of ``scheme`` on the board ``geo``: a :class:`Rewards` as given, or a name:

    * ``"kaggle"``: Kaggle's final rewards, +1 a win, -1 a loss, 0 a draw, nothing a move, and a
      forfeit a loss (-1), as the tournament counts it;
    * ``"course"``: the rewards of Kaggle Learn's ConnectX course ("Deep Reinforcement Learning",
      its ``ConnectFourGym.change_reward``): +1 a win, ``1 / (rows * columns)`` (1/42) for every
      turn the game goes on, -10 for an invalid move, and -1 for any other end, a draw included
      (the course maps every final reward but a win to -1).

    Raises ``ValueError`` for another name.
    """
    if isinstance(scheme, Rewards):
        return scheme
    if scheme == "kaggle":
        return Rewards()
    if scheme == "course":
        return Rewards(win=1.0, loss=-1.0, draw=-1.0, step=1.0 / geo.size, invalid=-10.0)
    raise ValueError(f"unknown reward scheme {scheme!r}: one of {', '.join(SCHEMES)}, or a Rewards")
