"""The game record: what playing one game returns, and all that storage and ratings read.

A record is plain frozen data, never changed once built. It holds the
:class:`~tournament.schedule.GameTask` it played (who, on which board, from which opening) and what
happened. The first entrant (``task.first``) plays mark 1 and moves first. Every game that ends is
recorded by one constructor, :meth:`GameRecord.ended`, from its moves and, for a forfeit, its
:class:`Forfeit`: the referee's games (:mod:`tournament.game`), a game whose process died or stalled
(:mod:`tournament.runner`), a game at the terminal (:mod:`connectx.play`) and a game imported from
Kaggle (:mod:`tournament.episodes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from agents.engine.board import Board
from tournament.schedule import GameTask


class Termination(StrEnum):
    """How a game ended.

    ``WIN`` and ``DRAW`` are played out. The others are forfeits by the agent named in
    :attr:`GameRecord.offender`, scored as a loss for it and a win for its opponent, although
    kaggle-environments itself gives the opponent reward 0 (``kaggle_environments/core.py``,
    ``Environment.step``, sets the offender's status and reward None and ends the episode; the
    opponent keeps the reward 0 that ``kaggle_environments/envs/connectx/connectx.py`` gives while
    no one has won):

    * ``INVALID`` -- an action that is not a legal column as a Python ``int`` (a ``str``, a float,
      a numpy integer, out of range, a full column); kaggle status ``INVALID``. A float is INVALID
      even when whole, such as ``3.0``, which Kaggle's own referee crashes on
      (:func:`tournament.rules.rule_on`).
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
        return self in FORFEITS


FORFEITS = (Termination.INVALID, Termination.TIMEOUT, Termination.ERROR)
"""The kinds of forfeit, in the order reports list them."""


class Status(StrEnum):
    """An agent's status in kaggle-environments (``kaggle_environments/core.py``; its values are
    Kaggle's strings, stored as they are): ``ACTIVE`` to move, ``INACTIVE`` waiting for the other's
    move, ``DONE`` once the game is over without its fault, or the forfeit it made
    (:data:`FORFEIT_STATUSES`). Its ``repr`` is the string's, so statuses print as Kaggle's do."""

    ACTIVE = "ACTIVE"
    INACTIVE = "INACTIVE"
    DONE = "DONE"
    INVALID = "INVALID"
    TIMEOUT = "TIMEOUT"
    ERROR = "ERROR"

    def __repr__(self) -> str:
        return repr(self.value)


FORFEIT_STATUSES = {
    Status.INVALID: Termination.INVALID,
    Status.TIMEOUT: Termination.TIMEOUT,
    Status.ERROR: Termination.ERROR,
}
"""The statuses Kaggle gives a forfeiting agent, with the kind of forfeit each says by its name
(``kaggle_environments/core.py``, ``Environment.step``). A plain ``str`` status looks up as its
:class:`Status` does. An episode of an older release may say ``INVALID`` for a ``TIMEOUT``
(:class:`Termination`)."""


class GameFailed(RuntimeError):
    """A game the referee failed on for a reason no agent caused: it has no record and is not stored,
    so a later run plays it again. The runner yields one instead of a record (not raised)."""


@dataclass(frozen=True, slots=True)
class Forfeit:
    """How a game ended by a forfeit: the mark that forfeited (``offender``, 1 or 2), the kind
    (``termination``, one of :data:`FORFEITS`) and what happened (``detail``: one line, or an
    agent's traceback). :func:`tournament.rules.rule_on` rules one on an agent's call.

    ``status`` is the offender's final status on Kaggle: by default (None) the termination's name
    (``INVALID``, ``TIMEOUT``, ``ERROR``), as kaggle-environments sets it; an episode imported from
    an older release may say ``INVALID`` for a ``TIMEOUT`` (:class:`Termination`). Kaggle ends the
    game at once, the offender with reward None and the opponent ``DONE`` with the reward 0 it had
    while no one had won (``kaggle_environments/core.py``, ``Environment.step``).
    """

    offender: int
    termination: Termination
    detail: str = ""
    status: Status | None = None

    def __post_init__(self) -> None:
        if self.offender not in (1, 2) or not Termination(self.termination).is_forfeit:
            raise ValueError(f"a forfeit is a mark 1 or 2 and one of {FORFEITS}, got {self!r}")

    @property
    def statuses(self) -> tuple[Status, Status]:
        """Kaggle's final statuses (mark 1, mark 2)."""
        offender = self.status or Status(self.termination.name)
        return (offender, Status.DONE) if self.offender == 1 else (Status.DONE, offender)

    @property
    def rewards(self) -> tuple[int | None, int | None]:
        """Kaggle's final rewards (mark 1, mark 2): None for the offender, 0 for its opponent."""
        return (None, 0) if self.offender == 1 else (0, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord:
    """One finished game: its task and what happened (built by keyword only, or by :meth:`ended`).

    Attributes:
        task: the game as scheduled: ids, entrants, board, time control, seed and opening (the one
            source of these; :attr:`game_id`, :attr:`pair_id`, :attr:`first`, :attr:`second` and
            :attr:`opening` read them from it).
        moves: legal columns played, 0-based, in order, the opening included.
        move_times: seconds each agent call took, one entry per call (the last may be the
            offending call of a forfeit, so it can be one longer than ``moves``).
        result: score of ``first``: 1.0 win, 0.5 draw, 0.0 loss (forfeits included).
        termination: how the game ended.
        offender: 1 or 2, the mark that forfeited; None unless ``termination.is_forfeit``.
        statuses: kaggle-environments' final statuses (first, second), e.g. ``(DONE, DONE)``.
        rewards: kaggle-environments' final rewards (first, second); None for a forfeiting agent.
        detail: a human-readable note on a forfeit (kaggle's message or the exception), else "".
        duration: wall-clock seconds of the whole game, loading the agents included.
        started_at: ISO 8601 UTC time the game started.
    """

    task: GameTask
    moves: tuple[int, ...]
    move_times: tuple[float, ...]
    result: float
    termination: Termination
    offender: int | None = None
    statuses: tuple[Status, Status] = (Status.DONE, Status.DONE)
    rewards: tuple[float | None, float | None] = (0, 0)
    detail: str = ""
    duration: float = 0.0
    started_at: str = ""

    @classmethod
    def ended(
        cls,
        task: GameTask,
        moves: Sequence[int],
        move_times: Sequence[float] = (),
        forfeit: Forfeit | None = None,
        *,
        duration: float = 0.0,
        started_at: str = "",
    ) -> GameRecord:
        """The record of ``task`` ended after ``moves`` (0-based columns, the opening first): by
        ``forfeit``, a loss of its offender (:class:`Forfeit` gives the statuses and rewards), else
        played out on the board ``moves`` make, whose line or full board gives the result, and
        Kaggle's statuses ``DONE`` and rewards 1 and -1 (0 each in a draw;
        :meth:`agents.engine.board.Outcome.reward`). ``move_times``, ``duration`` and
        ``started_at`` are as :class:`GameRecord` says.

        Raises ValueError when ``moves`` are not a legal game on the task's board, or end no game
        without ``forfeit``, or do not begin with the opening.
        """
        if forfeit is not None:
            return cls(
                task=task, moves=tuple(moves), move_times=tuple(move_times),
                result=0.0 if forfeit.offender == 1 else 1.0, termination=forfeit.termination,
                offender=forfeit.offender, statuses=forfeit.statuses, rewards=forfeit.rewards,
                detail=forfeit.detail, duration=duration, started_at=started_at,
            )  # fmt: skip
        board = Board.from_moves(moves, rows=task.rows, columns=task.columns, inarow=task.inarow)
        outcome = board.outcome()
        if outcome is None:
            raise ValueError(
                f"game {task.game_id} is not over after {len(moves)} moves, and no one forfeited"
            )
        termination = Termination.DRAW if outcome.winner is None else Termination.WIN
        rewards = (outcome.reward(1), outcome.reward(2))
        return cls(
            task=task, moves=tuple(moves), move_times=tuple(move_times), result=outcome.result,
            termination=termination, rewards=rewards, duration=duration, started_at=started_at,
        )  # fmt: skip

    def __post_init__(self) -> None:
        if self.result not in (0.0, 0.5, 1.0):
            raise ValueError(f"result must be 0, 0.5 or 1, got {self.result!r}")
        if (self.offender is not None) != Termination(self.termination).is_forfeit:
            raise ValueError("offender is set exactly for forfeits")
        if self.moves[: len(self.opening)] != self.opening:
            raise ValueError("moves must begin with the opening")

    @property
    def game_id(self) -> int:
        """Index of the game in its tournament's schedule (0-based)."""
        return self.task.game_id

    @property
    def pair_id(self) -> int:
        """The game pair (same opening, colours swapped) this game belongs to."""
        return self.task.pair_id

    @property
    def first(self) -> str:
        """Entrant spec that played mark 1 (moved first)."""
        return self.task.first

    @property
    def second(self) -> str:
        """Entrant spec that played mark 2."""
        return self.task.second

    @property
    def opening(self) -> tuple[int, ...]:
        """The columns the referee played before the agents (the first ``len(opening)`` of ``moves``)."""
        return self.task.opening

    def board(self, plies: int | None = None) -> Board:
        """The position after the game's first ``plies`` moves (default: all of them), those moves its
        history (:meth:`Board.notation <agents.engine.board.Board.notation>` writes them)."""
        task = self.task
        return Board.from_moves(self.moves[:plies], rows=task.rows, columns=task.columns, inarow=task.inarow)

    def notation(self, plies: int | None = None) -> str:
        """The game's first ``plies`` moves (default: all of them) in Pons' notation, written without
        replaying them (:meth:`Board.notation_of <agents.engine.board.Board.notation_of>`)."""
        return Board.notation_of(self.moves[:plies], self.task.columns)

    def score_of(self, name: str) -> float:
        """Score (1, 0.5, 0) of entrant ``name``; raises ValueError if it did not play."""
        if name == self.first:
            return self.result
        if name == self.second:
            return 1.0 - self.result
        raise ValueError(f"{name!r} did not play game {self.game_id}")


Finished = GameRecord | GameFailed
"""A game played to its end: its record, or a :class:`GameFailed` when the referee failed on it (what
:func:`tournament.runner.run_games` and :func:`tournament.cluster.run_games_ray` yield)."""
