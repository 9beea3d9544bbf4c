"""What a page sends, read and checked: a board, a position, a time a move, a side.

Each reader takes the text of a query parameter or a JSON field and returns a checked value, or raises
:class:`BadInput` whose message is one sentence, which the server answers with HTTP 400. Positions are
Pons' notation, as ``connectx solve`` and the reports write them: the moves as 1-based column digits
(``4453``), so a board page has at most 9 columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agents.engine.board import Board, BoardError, Geometry, InvalidBoardError, geometry
from agents.kit.clock import DEFAULT_ACT_TIMEOUT
from agents.registry import SpecError
from web.specs import Specs

__all__ = [
    "MAX_ACT_TIMEOUT",
    "BadInput",
    "act_timeout",
    "board_of",
    "integer",
    "moves",
    "position",
    "real",
    "side",
]

MAX_ACT_TIMEOUT = 600.0
"""The longest time a move a page may ask for, in seconds."""

LIMITS = {"rows": (2, 12), "columns": (2, 9), "inarow": (2, 12)}
"""The boards a page may ask for: (fewest, most) of each dimension; 9 columns at most, so that a
position is one digit a move."""


class BadInput(ValueError):
    """A value a page sent that cannot be used; the message is one sentence."""


def integer(values: Mapping[str, Any], name: str, default: int) -> int:
    """The whole number ``values[name]`` (a query's text or JSON's number), ``default`` when absent or
    empty."""
    raw = values.get(name)
    if raw is None or raw == "":
        return default
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and len(raw) <= 20 and raw.strip().lstrip("+-").isdecimal():
        return int(raw)
    raise BadInput(f"{name} must be a whole number, got {str(raw)[:40]!r}")


def real(values: Mapping[str, Any], name: str, default: float) -> float:
    """The finite number ``values[name]`` (a query's text or JSON's number), ``default`` when absent
    or empty."""
    raw = values.get(name)
    if raw is None or raw == "":
        return default
    try:
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise ValueError
        value = float(raw)
    except (ValueError, OverflowError):
        raise BadInput(f"{name} must be a number, got {str(raw)[:40]!r}") from None
    if not math.isfinite(value):
        raise BadInput(f"{name} must be a finite number, got {str(raw)[:40]!r}")
    return value


def board_of(values: Mapping[str, Any]) -> Geometry:
    """The board of ``rows``, ``columns`` and ``inarow`` (default 6, 7, 4), within :data:`LIMITS`."""
    sizes = {"rows": 6, "columns": 7, "inarow": 4}
    for name, default in sizes.items():
        value = integer(values, name, default)
        low, high = LIMITS[name]
        if not low <= value <= high:
            raise BadInput(f"{name} must be from {low} to {high}, got {value}")
        sizes[name] = value
    try:
        return geometry(sizes["rows"], sizes["columns"], sizes["inarow"])
    except InvalidBoardError as error:
        raise BadInput(str(error)) from None


def moves(text: Any, geo: Geometry, name: str = "pos") -> tuple[int, ...]:
    """The moves (0-based columns) of the position ``text`` (Pons' notation) on ``geo``; the game may
    be over, but no move may follow its end."""
    if text is None:
        return ()
    if not isinstance(text, str) or len(text) > geo.size:
        raise BadInput(f"{name} must be at most {geo.size} column digits, got {str(text)[:60]!r}")
    try:
        return Board.from_moves(text, rows=geo.rows, columns=geo.columns, inarow=geo.inarow).moves
    except BoardError as error:
        raise BadInput(f"{name} {text!r} is not a position on this board: {error}") from None


def position(values: Mapping[str, Any], name: str = "pos") -> Board:
    """The board of ``values``' position ``name`` on its board (:func:`board_of`, :func:`moves`)."""
    geo = board_of(values)
    return Board.from_moves(
        moves(values.get(name), geo, name), rows=geo.rows, columns=geo.columns, inarow=geo.inarow
    )


def act_timeout(values: Mapping[str, Any], name: str = "time") -> float:
    """The seconds a move of an agent may take (Kaggle's ``actTimeout``; default 2), positive and
    at most :data:`MAX_ACT_TIMEOUT`."""
    value = real(values, name, DEFAULT_ACT_TIMEOUT)
    if not 0 < value <= MAX_ACT_TIMEOUT:
        raise BadInput(f"{name} must be more than 0 and at most {MAX_ACT_TIMEOUT:g} seconds, got {value:g}")
    return value


def side(values: Mapping[str, Any], name: str, specs: Specs, default: str, *, named: bool = True) -> str:
    """The side ``values[name]``: ``human`` or a checked agent spec (:meth:`Specs.check`). The
    message names ``name`` first unless ``named`` is False (the value alone was asked)."""
    text = values.get(name, default)
    prefix = f"{name}: " if named else ""
    if not isinstance(text, str) or len(text) > 1000:
        raise BadInput(f"{prefix}a side is human or an agent spec")
    try:
        return specs.check(text or default)
    except SpecError as error:
        raise BadInput(f"{prefix}{error}") from None
