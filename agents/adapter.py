"""The thin edge between Kaggle's ``(obs, config)`` and the typed core.

Kaggle passes ``obs`` and ``config`` as ``Struct`` objects (dicts with attribute access); users
calling an agent by hand often pass plain dicts. Both are read here and nowhere else.

* ``obs.board``: flat row-major list, row 0 on top (see :mod:`agents.board`); ``obs.mark``: 1 or 2;
  ``obs.remainingOverageTime``: seconds left in the overage bank (Kaggle starts it at 60).
* ``config.rows``, ``config.columns``, ``config.inarow``; ``config.actTimeout``: seconds per move
  before the bank is drawn on (Kaggle's default 2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agents.board import Board

Agent = Callable[[Any, Any], int]
"""Kaggle's agent signature: ``agent(obs, config) -> column`` (a Python ``int``)."""

DEFAULT_ACT_TIMEOUT = 2.0
DEFAULT_OVERAGE = 60.0


def field(struct: Any, name: str, default: Any = None) -> Any:
    """``struct.name`` or ``struct[name]``; ``default`` when absent (``KeyError`` if no default)."""
    if isinstance(struct, Mapping):
        if name in struct:
            return struct[name]
    elif hasattr(struct, name):
        return getattr(struct, name)
    if default is None:
        raise KeyError(f"missing {name!r}")
    return default


def board_from_obs(obs: Any, config: Any) -> Board:
    """The :class:`~agents.board.Board` of an observation, with ``obs.mark`` to move.

    Raises :class:`~agents.board.InvalidBoardError` (a ``ValueError``) for an impossible board or
    configuration, ``KeyError`` when a field is missing. ``obs`` is never modified.
    """
    return Board.from_kaggle(
        list(field(obs, "board")),
        int(field(obs, "mark")),
        rows=int(field(config, "rows")),
        columns=int(field(config, "columns")),
        inarow=int(field(config, "inarow")),
    )


@dataclass(frozen=True, slots=True)
class Clock:
    """Time a move may use, in seconds: ``act_timeout`` free, then ``overage`` from the bank."""

    act_timeout: float
    overage: float

    @classmethod
    def from_kaggle(cls, obs: Any, config: Any) -> Clock:
        """Read ``config.actTimeout`` and ``obs.remainingOverageTime`` (defaults 2 s and 60 s)."""
        return cls(
            act_timeout=float(field(config, "actTimeout", DEFAULT_ACT_TIMEOUT)),
            overage=float(field(obs, "remainingOverageTime", DEFAULT_OVERAGE)),
        )
