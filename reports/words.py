"""Numbers in words, the one way every report and message writes them.

>>> plural(1, "game"), plural(2, "game"), plural(0, "agent")
('1 game', '2 games', '0 agents')
>>> plural(1, "match", "matches"), plural(3, "match", "matches")
('1 match', '3 matches')
>>> signed(123.4), signed(-45.6), signed(0.0), signed(-0.3), signed(0.4)
('+123', '-46', '0', '0', '0')
"""

from __future__ import annotations

import math

__all__ = ["plural", "signed"]


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``count`` and ``noun``, in the plural (``plural_form``, default ``noun + "s"``) unless
    ``count`` is 1."""
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"


def signed(value: float) -> str:
    """``value`` (Elo, a difference) to the nearest whole number with its sign, ``+123`` or ``-45``;
    one that rounds to zero is ``0``, neither above nor below (never ``+0`` or ``-0``). Infinite and
    nan values are Python's (``+inf``, ``nan``): callers say those in words."""
    if not math.isfinite(value):
        return f"{value:+}"
    rounded = round(value)
    return f"{rounded:+d}" if rounded else "0"
