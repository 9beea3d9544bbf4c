"""The parts of an episode's JSON, each read and checked on its own: its ``configuration``, its
``info`` and each of its ``steps`` (:mod:`tournament.episodes` says what an episode holds).

Every reader raises :class:`EpisodeError` saying in one line what is wrong; none checks the game
itself, which :mod:`tournament.episodes.replay` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agents.engine.board import BoardError, geometry
from tournament.record import Status

__all__ = ["LOCAL_KEYS", "TURN", "AgentState", "EpisodeError", "Step", "configuration", "info", "steps"]

LOCAL_KEYS = 1 << 62
"""Keys of episodes without ``info.EpisodeId`` are ``LOCAL_KEYS`` and up; Kaggle's episode ids, below
it, are keys of their own."""

TURN = (Status.ACTIVE, Status.INACTIVE)
"""The statuses (mark 1, mark 2) of a step with mark 1 to move; mark 2 to move has them reversed."""


class EpisodeError(ValueError):
    """An episode that cannot be imported; the message says why in one line (the caller names the
    file)."""


@dataclass(frozen=True, slots=True)
class AgentState:
    """One agent's state in a step: Kaggle's ``status`` (as the JSON has it: a :class:`Status` of a
    well-formed episode), the ``action`` it sent (as decoded from JSON; 0, Kaggle's default, for the
    agent that did not move), its ``reward`` (None after a forfeit) and the seconds ``remaining`` in
    its overage bank (``remainingOverageTime``; None when the episode does not say)."""

    status: str
    action: object
    reward: float | None
    remaining: float | None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an episode: the states of agent 0 (mark 1) and agent 1 (mark 2), and the board
    (agent 0's observation: flat, row 0 on top; 0 empty, else the mark of the stone)."""

    agents: tuple[AgentState, AgentState]
    board: list[int]

    @property
    def statuses(self) -> tuple[str, str]:
        """The two agents' statuses (mark 1, mark 2)."""
        return (self.agents[0].status, self.agents[1].status)

    @property
    def rewards(self) -> tuple[float | None, float | None]:
        """The two agents' rewards (mark 1, mark 2)."""
        return (self.agents[0].reward, self.agents[1].reward)


def configuration(configuration: object) -> tuple[int, int, int, float]:
    """``(rows, columns, inarow, actTimeout)`` of an episode's configuration: a board
    :func:`~agents.engine.board.geometry` accepts (whole floats read as integers) and a positive
    number of seconds, ``actTimeout`` or, in older releases, ``timeout`` (2 when neither is there)."""
    if not isinstance(configuration, dict):
        raise EpisodeError('it has no "configuration" object')
    values = []
    for name in ("rows", "columns", "inarow"):
        value = configuration.get(name)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        values.append(value)
    try:
        geo = geometry(*values)
    except BoardError as error:
        raise EpisodeError(f"configuration: {error}") from None
    act_timeout = configuration.get("actTimeout", configuration.get("timeout", 2))
    if isinstance(act_timeout, bool) or not isinstance(act_timeout, int | float):
        raise EpisodeError(f"configuration: actTimeout {act_timeout!r} is not a number of seconds")
    if not (math.isfinite(act_timeout) and act_timeout > 0):
        raise EpisodeError(f"configuration: actTimeout {act_timeout!r} is not a positive number of seconds")
    return geo.rows, geo.columns, geo.inarow, float(act_timeout)


def info(info: object) -> tuple[tuple[str, str] | None, int | None]:
    """``(TeamNames, EpisodeId)`` of an episode's ``info``, each None when absent: two names (their
    runs of white space made one space) and an episode number below :data:`LOCAL_KEYS` (a decimal
    string reads as its number)."""
    if info is None:
        return None, None
    if not isinstance(info, dict):
        raise EpisodeError('its "info" is not an object')
    given = info.get("TeamNames")
    names = None
    if given is not None:
        if not (isinstance(given, list) and len(given) == 2 and all(isinstance(n, str) for n in given)):
            raise EpisodeError(f"info.TeamNames {given!r} is not two names")
        first, second = (" ".join(name.split()) for name in given)
        if not (first and second):
            raise EpisodeError(f"info.TeamNames {given!r} has an empty name")
        names = (first, second)
    episode_id = info.get("EpisodeId")
    if episode_id is not None:
        if isinstance(episode_id, str) and episode_id.isdecimal():
            episode_id = int(episode_id)
        if (
            isinstance(episode_id, bool)
            or not isinstance(episode_id, int)
            or not 0 <= episode_id < LOCAL_KEYS
        ):
            raise EpisodeError(f"info.EpisodeId {info['EpisodeId']!r} is not an episode number")
    return names, episode_id


def steps(steps: object, cells: int) -> list[Step]:
    """The steps of an episode (its ``steps``), at least two (the empty board and a move), each read
    by :func:`step` on a board of ``cells`` cells."""
    if not isinstance(steps, list) or len(steps) < 2:
        count = len(steps) if isinstance(steps, list) else 0
        raise EpisodeError(f"has {count} step{'' if count == 1 else 's'}: no move was played (cut short?)")
    return [step(data, index, cells) for index, data in enumerate(steps)]


def step(step: object, index: int, cells: int) -> Step:
    """Step ``index`` of an episode: two agents' states, each with an observation and a status, a
    numeric reward (0 when absent) and the mark of its place; agent 0's ``board`` of ``cells`` cells
    of 0, 1 or 2; at most one agent ``ACTIVE``, the other then ``INACTIVE``."""
    if not (isinstance(step, list) and len(step) == 2 and all(isinstance(agent, dict) for agent in step)):
        raise EpisodeError(f"step {index} is not the states of two agents")
    states = []
    for agent, state in enumerate(step):
        observation = state.get("observation")
        status, reward = state.get("status"), state.get("reward", 0)
        if not isinstance(observation, dict) or not isinstance(status, str):
            raise EpisodeError(f"step {index}: agent {agent} has no observation or status")
        if reward is not None and (isinstance(reward, bool) or not isinstance(reward, int | float)):
            raise EpisodeError(f"step {index}: agent {agent}'s reward {reward!r} is not a number")
        mark = observation.get("mark", agent + 1)
        if mark != agent + 1:
            raise EpisodeError(f"step {index}: agent {agent} plays mark {mark!r}, not {agent + 1}")
        remaining = observation.get("remainingOverageTime")
        remaining = remaining if isinstance(remaining, int | float) else None
        states.append(AgentState(status, state.get("action"), reward, remaining))
    board = step[0]["observation"].get("board")
    if not (isinstance(board, list) and len(board) == cells and all(v in (0, 1, 2) for v in board)):
        raise EpisodeError(f"step {index}: the board is not {cells} cells of 0, 1 or 2")
    if any(isinstance(v, bool) for v in board):
        raise EpisodeError(f"step {index}: the board is not {cells} cells of 0, 1 or 2")
    read = Step((states[0], states[1]), board)
    statuses = read.statuses
    if Status.ACTIVE in statuses and statuses not in (TURN, TURN[::-1]):
        raise EpisodeError(f"step {index}: statuses {statuses[0]}, {statuses[1]}: not one agent to move")
    return read
