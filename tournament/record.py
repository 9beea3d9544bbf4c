"""The game record: what playing one game returns, and all that storage and ratings read.

A record is plain frozen data, built by :mod:`tournament.game` after a game and never changed. The
first entrant (``first``) plays mark 1 and moves first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Termination(StrEnum):
    """How a game ended.

    ``WIN`` and ``DRAW`` are played out. The others are forfeits by the agent named in
    :attr:`GameRecord.offender`, scored as a loss for it and a win for its opponent, although
    kaggle-environments itself gives the opponent reward 0 (see ``shared/NOTES.md``):

    * ``INVALID`` -- an action that is not a legal column as a Python ``int`` (a ``str``, a float,
      a numpy integer, out of range, a full column); kaggle status ``INVALID``.
    * ``TIMEOUT`` -- a move that overdrew ``actTimeout`` plus the overage bank, or never returned;
      kaggle status ``TIMEOUT`` (or ``INVALID`` once the bank is overdrawn).
    * ``ERROR`` -- the agent raised an exception or could not be loaded; kaggle status ``ERROR``.
    """

    WIN = "win"
    DRAW = "draw"
    INVALID = "invalid"
    TIMEOUT = "timeout"
    ERROR = "error"

    @property
    def is_forfeit(self) -> bool:
        return self not in (Termination.WIN, Termination.DRAW)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game.

    Attributes:
        game_id: index of the game in its tournament's schedule (0-based).
        pair_id: games ``2k`` and ``2k+1`` of a pairing are the same opening with colours swapped;
            both carry ``pair_id = k`` (used for pentanomial statistics).
        first: entrant spec that played mark 1 (moves first).
        second: entrant spec that played mark 2.
        rows, columns, inarow: the ConnectX configuration.
        act_timeout: seconds per move before the overage bank is used (``config.actTimeout``).
        seed: seed of the game's random generators.
        moves: legal columns played, 0-based, in order, the opening included.
        move_times: seconds each agent call took, one entry per call (the last may be the
            offending call of a forfeit, so it can be one longer than ``moves``).
        result: score of ``first``: 1.0 win, 0.5 draw, 0.0 loss (forfeits included).
        termination: how the game ended.
        offender: 1 or 2, the mark that forfeited; None unless ``termination.is_forfeit``.
        statuses: kaggle-environments' final statuses (first, second), e.g. ``("DONE", "DONE")``.
        rewards: kaggle-environments' final rewards (first, second); None for a forfeiting agent.
        detail: a human-readable note on a forfeit (kaggle's message or the exception), else "".
        duration: wall-clock seconds of the whole game, loading the agents included.
        started_at: ISO 8601 UTC time the game started.
        opening: the opening the referee played before the agents moved (0-based columns); these
            are the first ``len(opening)`` entries of ``moves``.
    """

    game_id: int
    pair_id: int
    first: str
    second: str
    rows: int
    columns: int
    inarow: int
    act_timeout: float
    seed: int
    moves: tuple[int, ...]
    move_times: tuple[float, ...]
    result: float
    termination: Termination
    offender: int | None = None
    statuses: tuple[str, str] = ("DONE", "DONE")
    rewards: tuple[float | None, float | None] = (0, 0)
    detail: str = ""
    duration: float = 0.0
    started_at: str = field(default="")
    opening: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.result not in (0.0, 0.5, 1.0):
            raise ValueError(f"result must be 0, 0.5 or 1, got {self.result!r}")
        if (self.offender is not None) != Termination(self.termination).is_forfeit:
            raise ValueError("offender is set exactly for forfeits")
        if self.moves[: len(self.opening)] != self.opening:
            raise ValueError("moves must begin with the opening")

    def score_of(self, name: str) -> float:
        """Score (1, 0.5, 0) of entrant ``name``; raises ValueError if it did not play."""
        if name == self.first:
            return self.result
        if name == self.second:
            return 1.0 - self.result
        raise ValueError(f"{name!r} did not play game {self.game_id}")
