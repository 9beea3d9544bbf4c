"""How long the file's moves took in a check, against Kaggle's ``actTimeout`` and overage bank.

Times are Kaggle's own measurements: seconds, ``perf_counter`` around each agent call
(``env.logs[step][agent]["duration"]``), loading the file included in its first call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.kit.adapter import DEFAULT_OVERAGE

if TYPE_CHECKING:
    from submissions.report import GameResult


NEAR_LIMIT = 0.2
"""A move within this fraction of ``actTimeout`` (≥ 80 % of it) is flagged."""


@dataclass(frozen=True, slots=True)
class MoveTimes:
    """The file's moves over all games of a check (seconds). ``first_move``: its first move in the
    first game (the file loaded in a fresh process; None without moves); ``first_moves``: the slowest
    first move of any game; ``slowest`` and where it was (``slowest_where``); ``moves`` counted,
    ``near_limit`` of them at ≥ 80 % of ``actTimeout``, ``over_limit`` beyond it; ``overage``: the
    most seconds beyond ``actTimeout`` one agent of the file drew from its bank in one game."""

    first_move: float | None = None
    first_moves: float | None = None
    slowest: float | None = None
    slowest_where: str = ""
    moves: int = 0
    near_limit: int = 0
    over_limit: int = 0
    overage: float = 0.0


def overdrawn(times: Sequence[float], act_timeout: float) -> float:
    """Seconds of ``times`` (one agent's moves in one game) beyond ``act_timeout``: what the moves
    drew from the overage bank."""
    return sum(max(0.0, t - act_timeout) for t in times)


def move_times(games: Sequence[GameResult], act_timeout: float) -> MoveTimes:
    """The :class:`MoveTimes` of the file's moves in ``games`` (in the order played)."""
    first_move = first_moves = slowest = None
    slowest_where, near, over, moves, overage = "", 0, 0, 0, 0.0
    for game in games:
        for index in game.ours:
            times = game.durations[index]
            if not times:
                continue
            overage = max(overage, overdrawn(times, act_timeout))
            over += sum(t > act_timeout for t in times)
            if first_move is None:
                first_move = times[0]
            first_moves = max(first_moves or 0.0, times[0])
            for move, seconds in enumerate(times, start=1):
                moves += 1
                near += seconds >= (1 - NEAR_LIMIT) * act_timeout
                if slowest is None or seconds > slowest:
                    slowest, slowest_where = seconds, f"{game.label}, mark {index + 1}, move {move}"
    return MoveTimes(first_move, first_moves, slowest, slowest_where, moves, near, over, overage)


def warnings(times: MoveTimes, act_timeout: float) -> list[str]:
    """Lines on moves near or over ``act_timeout`` (not failures: the bank may be planned on)."""
    out = []
    if times.near_limit:
        out.append(
            f"{times.near_limit} of {times.moves} moves took at least {100 * (1 - NEAR_LIMIT):.0f} % of "
            f"actTimeout {act_timeout:g} s: little margin on a busy machine"
        )
    if times.over_limit:
        out.append(
            f"{times.over_limit} moves took longer than actTimeout {act_timeout:g} s, drawing up to "
            f"{times.overage:.1f} s of the {DEFAULT_OVERAGE:.0f} s overage bank in one game"
            + (": over half of it" if times.overage > DEFAULT_OVERAGE / 2 else "")
        )
    return out
