"""The sections of a tournament report besides the standings and crosstable
(:mod:`reports.stats.standings`): results by colour, terminations (every forfeit with its message),
time use and game lengths.

Each section is plain data made from what :class:`reports.stats.results.Results` counted of the games
in its one pass (:class:`reports.stats.results.Counts`), in standings order (the rated entrants, best
first). Units: seconds for times, plies (moves, the opening included) for
lengths. Self-play games count nowhere.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reports.stats.headtohead import WDL
from tournament.record import FORFEITS, Termination

if TYPE_CHECKING:
    from reports.stats.results import Counts

__all__ = [
    "ColourRow", "ForfeitRow", "LengthRow", "TerminationRow", "TimeUse",
    "by_colour", "lengths", "terminations", "time_use",
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


def by_colour(counts: Counts, order: Sequence[str]) -> list[ColourRow]:
    """Every agent's results by colour, over all its games and against each opponent, in ``order``."""
    tally = counts.colour
    rows = []
    for agent in order:
        for opponent in ["", *(name for name in order if name != agent)]:
            if (agent, opponent, 1) in tally or (agent, opponent, 2) in tally:
                rows.append(ColourRow(agent, opponent, tally[agent, opponent, 1], tally[agent, opponent, 2]))
    return rows


def terminations(
    counts: Counts,
    order: Sequence[str],
    forfeited: Mapping[tuple[str, Termination], int],
    suffered: Mapping[tuple[str, Termination], int],
) -> list[TerminationRow]:
    """How every agent's games ended, in ``order``; ``forfeited`` and ``suffered``: the games each
    agent forfeited and its opponents forfeited to it, keyed ``(name, Termination)``
    (:attr:`reports.stats.results.Results.forfeited`)."""
    return [
        TerminationRow(
            agent,
            counts.games[agent],
            counts.connected[agent, True],
            counts.connected[agent, False],
            counts.draws[agent],
            {str(kind): suffered[agent, kind] for kind in FORFEITS},
            {str(kind): forfeited[agent, kind] for kind in FORFEITS},
        )
        for agent in order
    ]


def time_use(counts: Counts, order: Sequence[str]) -> list[TimeUse]:
    """Every agent's time per call and most overage bank drawn in a game, in ``order``."""
    rows = []
    for agent in order:
        times = counts.times[agent]
        values = np.asarray(times) if times else np.full(1, np.nan)
        rows.append(
            TimeUse(
                agent,
                len(times),
                float(np.median(values)),
                float(np.percentile(values, 95)),
                float(values.max()),
                *counts.bank[agent],
            )
        )
    return rows


def lengths(counts: Counts, order: Sequence[str]) -> list[LengthRow]:
    """Game lengths over all games, then per pairing in ``order``."""
    groups: dict[str, list[int]] = {"all games": [plies for _, _, plies in counts.plies]}
    rank = {name: k for k, name in enumerate(order)}
    for first, second, plies in sorted(counts.plies, key=lambda game: sorted((rank[game[0]], rank[game[1]]))):
        a, b = sorted((first, second), key=rank.__getitem__)
        groups.setdefault(f"{a} v {b}", []).append(plies)
    return [
        LengthRow(
            label, len(plies), min(plies), statistics.median(plies), statistics.fmean(plies), max(plies)
        )
        for label, plies in groups.items()
        if plies
    ]
