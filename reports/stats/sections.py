"""The sections of a tournament report besides the standings and crosstable
(:mod:`reports.stats.standings`): results by colour, terminations (every forfeit with its message),
time use and game lengths.

Each section is plain data built from :class:`reports.stats.results.Results`, in standings order. Units:
seconds for times, plies (moves, the opening included) for lengths. Self-play games count nowhere.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from reports.stats.headtohead import WDL
from reports.stats.results import Results
from tournament.record import FORFEITS, GameRecord, Termination

__all__ = [
    "ColourRow", "ForfeitRow", "LengthRow", "TerminationRow", "TimeUse",
    "by_colour", "forfeits", "lengths", "sides", "terminations", "time_use",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ColourRow:
    """An agent's results moving first and moving second: over all games (``opponent`` "") or
    against one opponent."""

    agent: str
    opponent: str
    first: WDL
    second: WDL


@dataclass(frozen=True, slots=True)
class TerminationRow:
    """How an agent's games ended: won and lost by N in a row, drawn, won by the opponent's
    forfeit and lost by its own, by kind (``Termination`` values as keys)."""

    agent: str
    games: int
    connected_wins: int
    connected_losses: int
    draws: int
    opponent_forfeits: dict[str, int]
    own_forfeits: dict[str, int]


@dataclass(frozen=True, slots=True)
class ForfeitRow:
    """One forfeited game: who forfeited, how, after how many plies, and the message (``detail``,
    possibly a multi-line traceback)."""

    game_id: int
    agent: str
    opponent: str
    kind: str
    ply: int
    detail: str


@dataclass(frozen=True, slots=True)
class TimeUse:
    """Seconds per agent call over all its games (``calls`` of them, the opening excluded), and the
    most overage bank it drew in one game (seconds beyond ``actTimeout`` summed over the game) with
    that game's id (None when it never drew on it)."""

    agent: str
    calls: int
    median: float
    p95: float
    max: float
    bank_used: float
    bank_game: int | None


@dataclass(frozen=True, slots=True)
class LengthRow:
    """Game lengths in plies over ``games`` games of one pairing (``"A v B"``) or of all."""

    label: str
    games: int
    shortest: int
    median: float
    mean: float
    longest: int


def sides(record: GameRecord, mark: int) -> tuple[str, str]:
    """``(the entrant playing mark, its opponent)``."""
    return (record.first, record.second) if mark == 1 else (record.second, record.first)


def by_colour(results: Results) -> list[ColourRow]:
    """Every agent's results by colour, over all its games and against each opponent, in standings order."""
    order = results.order
    tally: dict[tuple[str, str, int], WDL] = defaultdict(WDL)
    for record in results.played:
        for mark in (1, 2):
            agent, opponent = sides(record, mark)
            result = WDL.from_result(record.score_of(agent))
            tally[agent, "", mark] += result
            tally[agent, opponent, mark] += result
    rows = []
    for agent in order:
        for opponent in ["", *(name for name in order if name != agent)]:
            if (agent, opponent, 1) in tally or (agent, opponent, 2) in tally:
                rows.append(ColourRow(agent, opponent, tally[agent, opponent, 1], tally[agent, opponent, 2]))
    return rows


def terminations(results: Results) -> list[TerminationRow]:
    """How every agent's games ended, in standings order."""
    games: Counter[str] = Counter()
    connected: Counter[tuple[str, bool]] = Counter()
    draws: Counter[str] = Counter()
    for record in results.played:
        games[record.first] += 1
        games[record.second] += 1
        if record.termination == Termination.DRAW:
            draws[record.first] += 1
            draws[record.second] += 1
        elif record.termination == Termination.WIN:
            winner, loser = sides(record, 1 if record.result == 1.0 else 2)
            connected[winner, True] += 1
            connected[loser, False] += 1
    return [
        TerminationRow(
            agent,
            games[agent],
            connected[agent, True],
            connected[agent, False],
            draws[agent],
            {str(kind): results.suffered[agent, kind] for kind in FORFEITS},
            {str(kind): results.forfeited[agent, kind] for kind in FORFEITS},
        )
        for agent in results.order
    ]


def forfeits(results: Results) -> list[ForfeitRow]:
    """Every forfeited game, by game id."""
    return [
        ForfeitRow(
            record.game_id,
            *sides(record, record.offender),
            str(record.termination),
            len(record.moves),
            record.detail,
        )  # fmt: skip
        for record in results.played
        if record.offender is not None
    ]


def _calls(record: GameRecord) -> list[tuple[int, float]]:
    """``(mark, seconds)`` of every agent call: calls alternate from the side to move after the opening."""
    start = len(record.opening)
    return [((start + k) % 2 + 1, seconds) for k, seconds in enumerate(record.move_times)]


def time_use(results: Results) -> list[TimeUse]:
    """Every agent's time per call and most overage bank drawn in a game, in standings order."""
    times: dict[str, list[float]] = defaultdict(list)
    bank: dict[str, tuple[float, int | None]] = defaultdict(lambda: (0.0, None))
    for record in results.played:
        overage: defaultdict[str, float] = defaultdict(float)
        for mark, seconds in _calls(record):
            agent = sides(record, mark)[0]
            times[agent].append(seconds)
            overage[agent] += max(0.0, seconds - record.task.act_timeout)
        for agent, used in overage.items():
            if used > bank[agent][0]:
                bank[agent] = (used, record.game_id)
    rows = []
    for agent in results.order:
        values = np.asarray(times[agent]) if times[agent] else np.full(1, np.nan)
        rows.append(
            TimeUse(
                agent,
                len(times[agent]),
                float(np.median(values)),
                float(np.percentile(values, 95)),
                float(values.max()),
                *bank[agent],
            )
        )
    return rows


def lengths(results: Results) -> list[LengthRow]:
    """Game lengths over all games, then per pairing in standings order."""
    records = results.played
    groups: dict[str, list[int]] = {"all games": [len(record.moves) for record in records]}
    rank = {name: k for k, name in enumerate(results.order)}
    for record in sorted(records, key=lambda r: sorted((rank[r.first], rank[r.second]))):
        a, b = sorted((record.first, record.second), key=rank.__getitem__)
        groups.setdefault(f"{a} v {b}", []).append(len(record.moves))
    return [
        LengthRow(
            label, len(plies), min(plies), statistics.median(plies), statistics.fmean(plies), max(plies)
        )
        for label, plies in groups.items()
        if plies
    ]
