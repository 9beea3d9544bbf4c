"""Exploration for the learners' training games: epsilon-greedy play around any player."""

from __future__ import annotations

import time

import numpy as np

from agents.engine.board import Board
from agents.kit.clock import Clock
from agents.kit.player import Player
from agents.kit.record import MoveRecord

__all__ = ["EpsilonGreedy"]


class EpsilonGreedy:
    """A :class:`~agents.kit.player.Player` that plays a uniformly random legal column with probability
    ``epsilon`` and ``player``'s move otherwise, drawing from ``rng``. ``explored`` records, for
    every move it made in order, whether it was random (Sutton & Barto, *Reinforcement Learning*,
    2nd ed. 2018, sec. 2.2 and 1.5: a learner may skip the updates of exploratory moves)."""

    def __init__(self, player: Player, epsilon: float, rng: np.random.Generator) -> None:
        self.player = player
        self.epsilon = epsilon
        self.rng = rng
        self.explored: list[bool] = []

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        explore = bool(self.rng.random() < self.epsilon)
        self.explored.append(explore)
        if explore:
            legal = board.legal_moves()
            return MoveRecord.since(start, board, "explore", legal[int(self.rng.integers(len(legal)))])
        return self.player.play(board, clock)
