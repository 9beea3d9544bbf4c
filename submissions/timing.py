"""How long the file's moves took in a check, against Kaggle's ``actTimeout`` and overage bank.

Times are Kaggle's own measurements: seconds, ``perf_counter`` around each agent call
(``env.logs[step][agent]["duration"]``), loading the file included in its first call.

Kaggle's rule, which :func:`bank_used` applies: each agent has its own overage bank of
``remainingOverageTime`` seconds (60 by default) in each game; a move may take ``actTimeout``, and
the time it takes beyond that is drawn from the bank; a move that draws more than is left ends the
agent (Kaggle's ``TIMEOUT``, a forfeit). So in one game an agent is forfeited exactly when the sum of
its moves' times beyond ``actTimeout`` exceeds the bank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.kit.clock import DEFAULT_OVERAGE

if TYPE_CHECKING:
    from submissions.report import CheckedGame


NEAR_LIMIT = 0.2
"""A move within this fraction of ``actTimeout`` (≥ 80 % of it) is flagged."""

BANK_WARNING = 0.5
"""A game in which one agent of the file used more than this fraction of its overage bank is
warned about: a longer game could overdraw it."""


def load_limit(act_timeout: float, bank: float = DEFAULT_OVERAGE) -> float:
    """The most seconds Kaggle lets loading the file take: it loads it inside the first move, and a
    move is forfeited (``TIMEOUT``) when its time beyond ``act_timeout`` exceeds the overage bank
    left, all ``bank`` seconds at the first move (kaggle-environments ``agent.Agent.act``:
    ``duration - actTimeout > remainingOverageTime``; its ``UrlAgent``, which Kaggle's servers use,
    gives up waiting after ``remainingOverageTime + actTimeout + 1`` s). So ``act_timeout + bank``,
    62 s by default, loading and the first call together. ConnectX's ``agentTimeout`` (60 s in
    ``envs/connectx/connectx.json``) is the same bank under its old name: "Obsolete field kept for
    backwards compatibility, please use observation.remainingOverageTime" (kaggle-environments
    1.33.2), read by nothing."""
    return act_timeout + bank


@dataclass(frozen=True, slots=True)
class MoveTimes:
    """The file's moves over all games of a check (seconds). ``first_move``: its first move in the
    first game (the file loaded in a fresh process; None without moves); ``first_moves``: the slowest
    first move of any game; ``slowest`` and where it was (``slowest_where``); ``moves`` counted,
    ``near_limit`` of them at ≥ 80 % of ``actTimeout``, ``over_limit`` beyond it; ``overage``: the
    most seconds one agent of the file drew from its overage bank in one game, and where
    (``overage_where``: the game's label and the mark, "" when no game drew on the bank); ``later``:
    the slowest move but the very first (the games play in one process: only its first move loads
    the file afresh and compiles what it compiles)."""

    first_move: float | None = None
    first_moves: float | None = None
    slowest: float | None = None
    slowest_where: str = ""
    moves: int = 0
    near_limit: int = 0
    over_limit: int = 0
    overage: float = 0.0
    overage_where: str = ""
    later: float | None = None


@dataclass(frozen=True, slots=True)
class AgentTimes:
    """One agent of the file in one game against Kaggle's clock (seconds).

    ``mark``: 1 or 2; ``moves``: its calls (the last may be the one Kaggle forfeited it at);
    ``slowest``: its slowest call (None without calls); ``over_limit``: calls longer than
    ``actTimeout``; ``bank_used``: seconds drawn from the overage bank (:func:`bank_used`);
    ``bank_left``: what was left of the ``bank`` seconds at the end, negative when overdrawn (then
    Kaggle forfeited it: ``overdrawn`` is True).
    """

    mark: int
    moves: int
    slowest: float | None
    over_limit: int
    bank_used: float
    bank_left: float

    @property
    def overdrawn(self) -> bool:
        """The agent drew more than its bank held: Kaggle ends it with ``TIMEOUT``."""
        return self.bank_left < 0


def bank_used(times: Sequence[float], act_timeout: float) -> float:
    """Seconds that ``times`` (one agent's moves in one game, seconds each) drew from the overage
    bank by Kaggle's rule: the sum of each move's time beyond ``act_timeout`` (a quicker move puts
    nothing back). Never negative."""
    return sum(max(0.0, t - act_timeout) for t in times)


def agent_times(
    game: CheckedGame, act_timeout: float, bank: float = DEFAULT_OVERAGE
) -> tuple[AgentTimes, ...]:
    """One :class:`AgentTimes` for each agent of the file in ``game`` (two in self-play), by mark,
    with ``act_timeout`` and a ``bank`` of that many seconds (Kaggle's default 60)."""
    out = []
    for index in sorted(game.ours):
        times = game.durations[index]
        used = bank_used(times, act_timeout)
        out.append(
            AgentTimes(
                mark=index + 1,
                moves=len(times),
                slowest=max(times, default=None),
                over_limit=sum(t > act_timeout for t in times),
                bank_used=used,
                bank_left=bank - used,
            )
        )
    return tuple(out)


def move_times(games: Sequence[CheckedGame], act_timeout: float) -> MoveTimes:
    """The :class:`MoveTimes` of the file's moves in ``games`` (in the order played)."""
    first_move = first_moves = slowest = later = None
    slowest_where, overage_where, near, over, moves, overage = "", "", 0, 0, 0, 0.0
    for game in games:
        for index in game.ours:
            times = game.durations[index]
            if not times:
                continue
            used = bank_used(times, act_timeout)
            if used > overage:
                overage, overage_where = used, f"{game.label}, mark {index + 1}"
            over += sum(t > act_timeout for t in times)
            if first_move is None:
                first_move, rest = times[0], times[1:]
            else:
                rest = times
            later = max(rest, default=later) if later is None else max(later, *rest)
            first_moves = max(first_moves or 0.0, times[0])
            for move, seconds in enumerate(times, start=1):
                moves += 1
                near += seconds >= (1 - NEAR_LIMIT) * act_timeout
                if slowest is None or seconds > slowest:
                    slowest, slowest_where = seconds, f"{game.label}, mark {index + 1}, move {move}"
    return MoveTimes(
        first_move=first_move,
        first_moves=first_moves,
        slowest=slowest,
        slowest_where=slowest_where,
        moves=moves,
        near_limit=near,
        over_limit=over,
        overage=overage,
        overage_where=overage_where,
        later=later,
    )


def warnings(times: MoveTimes, act_timeout: float, bank: float = DEFAULT_OVERAGE) -> list[str]:
    """Lines on moves near or over ``act_timeout`` seconds and on a game that used more than
    :data:`BANK_WARNING` of the ``bank`` (seconds): not failures, Kaggle allows them and an agent
    may plan on the bank; or on one that overdrew it (a failure, which the verdict names: this line
    says it happened, not that it could)."""
    out = []
    if times.near_limit:
        out.append(
            f"{times.near_limit} of {times.moves} moves took at least {100 * (1 - NEAR_LIMIT):.0f} % of "
            f"actTimeout {act_timeout:g} s: little margin on a busy machine"
        )
    if times.over_limit:
        out.append(
            f"{times.over_limit} of {times.moves} moves took longer than actTimeout {act_timeout:g} s: "
            f"allowed, their excess drew on the {bank:g} s overage bank (see the games)"
        )
    if times.overage > bank:
        out.append(
            f"{times.overage_where} drew {times.overage:.2f} s on the {bank:g} s overage bank "
            f"({100 * times.overage / bank:.0f} %): it overdrew it, and Kaggle forfeited the agent"
        )
    elif times.overage > BANK_WARNING * bank:
        out.append(
            f"{times.overage_where} used {times.overage:.2f} s of the {bank:g} s overage bank "
            f"({100 * times.overage / bank:.0f} %), more than half: a longer game, or a busier machine, "
            f"could overdraw it, and Kaggle would then forfeit the agent (TIMEOUT)"
        )
    return out
