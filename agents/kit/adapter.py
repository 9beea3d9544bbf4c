"""The thin edge between Kaggle's ``(obs, config)`` and the typed core.

Kaggle passes ``obs`` and ``config`` as ``Struct`` objects (dicts with attribute access); users
calling an agent by hand often pass plain dicts. Both are read here and nowhere else.

* ``obs.board``: flat row-major list, row 0 on top (see :mod:`agents.engine.board`); ``obs.mark``: 1 or 2;
  ``obs.remainingOverageTime``: seconds left in the overage bank (Kaggle starts it at 60).
* ``config.rows``, ``config.columns``, ``config.inarow``; ``config.actTimeout``: seconds per move
  before the bank is drawn on (Kaggle's default 2).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping
from typing import Any

from agents.engine.board import Board
from agents.kit.clock import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, Clock
from agents.kit.player import Player
from agents.kit.record import MoveRecord

Agent = Callable[[Any, Any], int]
"""Kaggle's agent signature: ``agent(obs, config) -> column`` (a Python ``int``)."""

_REQUIRED = object()


def field(struct: Any, name: str, default: Any = _REQUIRED) -> Any:
    """``struct.name`` or ``struct[name]``; ``default`` (which may be None) when absent, ``KeyError``
    when absent and no default is given."""
    if isinstance(struct, Mapping):
        if name in struct:
            return struct[name]
    elif hasattr(struct, name):
        return getattr(struct, name)
    if default is _REQUIRED:
        raise KeyError(f"missing {name!r}")
    return default


def board_from_obs(obs: Any, config: Any) -> Board:
    """The :class:`~agents.engine.board.Board` of an observation, with ``obs.mark`` to move.

    Raises :class:`~agents.engine.board.InvalidBoardError` (a ``ValueError``) for an impossible board or
    configuration, ``KeyError`` when a field is missing. ``obs`` is never modified.
    """
    return Board.from_kaggle(
        list(field(obs, "board")),
        int(field(obs, "mark")),
        rows=int(field(config, "rows")),
        columns=int(field(config, "columns")),
        inarow=int(field(config, "inarow")),
    )


def clock_from_obs(obs: Any, config: Any) -> Clock:
    """The :class:`~agents.kit.clock.Clock` of an observation: ``config.actTimeout`` and
    ``obs.remainingOverageTime`` (Kaggle's 2 s and 60 s when absent)."""
    return Clock(
        act_timeout=float(field(config, "actTimeout", DEFAULT_ACT_TIMEOUT)),
        overage=float(field(obs, "remainingOverageTime", DEFAULT_OVERAGE)),
    )


class _Struct(dict):
    """A dict with attribute access, like kaggle-environments' ``Struct``: agents read both
    ``obs.board`` and ``obs["board"]``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def observation(board: Board, clock: Clock) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(obs, config)`` as Kaggle passes them to the agent of ``board.mark`` in this position.

    ``obs`` has ``board``, ``mark``, ``step`` (the ply) and ``remainingOverageTime``; ``config`` has
    ``rows``, ``columns``, ``inarow``, ``actTimeout`` and ``timeout`` (Kaggle's obsolete integer copy of
    ``actTimeout``: its whole seconds, at least 1, as :func:`tournament.game.configuration` gives it).
    Both allow attribute and key access.
    """
    geo = board.geo
    obs = _Struct(
        board=board.to_kaggle(), mark=board.mark, step=board.ply, remainingOverageTime=clock.overage
    )
    config = _Struct(
        rows=geo.rows,
        columns=geo.columns,
        inarow=geo.inarow,
        actTimeout=clock.act_timeout,
        timeout=max(1, int(clock.act_timeout)),
    )
    return obs, config


class _AgentPlayer:
    """A Kaggle agent seen as a :class:`~agents.kit.player.Player`."""

    __slots__ = ("agent",)

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        return MoveRecord.since(start, board, "agent", self.agent(*observation(board, clock)))


def as_player(agent: Agent) -> Player:
    """The :class:`~agents.kit.player.Player` that asks ``agent(obs, config)`` for each move (stage
    ``agent``; its answer is the record's column as given, so :func:`agents.kit.player.play_game`
    refuses a column that is not a legal ``int``)."""
    return _AgentPlayer(agent)


def kaggle_agent(player: Player) -> Agent:
    """The Kaggle agent ``agent(obs, config) -> int`` that asks ``player`` for each move.

    Raises :class:`~agents.engine.board.InvalidBoardError` for an impossible observation and ``KeyError`` for
    a missing field, as :func:`board_from_obs` does. Kaggle's agent returns the column alone, so the
    agent's ``last_move`` attribute keeps the rest of the record of its last move (what ``play``
    returned: a :class:`~agents.kit.record.MoveRecord`), for tools that hold only the agent.
    """

    def agent(obs: Any, config: Any) -> int:
        record = player.play(board_from_obs(obs, config), clock_from_obs(obs, config))
        agent.last_move = record  # type: ignore[attr-defined]
        return int(record.column)

    return agent


def agent_factory(player: Callable[..., Player]) -> Callable[..., Agent]:
    """The ``make_agent`` of an agent whose player class declares its parameters: ``make_agent(**params)``
    is :func:`kaggle_agent` of ``player(**params)``, and its signature is the class's, the one place the
    parameters and their defaults are written (:mod:`agents.registry` reads them there). Raises what
    the class raises: ``TypeError`` for an unknown parameter, ``ValueError`` for a bad value."""

    def make_agent(**params: Any) -> Agent:
        return kaggle_agent(player(**params))

    make_agent.__signature__ = inspect.signature(player, eval_str=True)  # type: ignore[attr-defined]
    make_agent.__doc__ = f"The Kaggle agent of a :class:`{player.__name__}` player (its parameters)."
    return make_agent
