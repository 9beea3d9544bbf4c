"""What a tournament report shows, gathered from a tournament's :class:`~reports.stats.results.Results`:
:func:`build`, or :func:`load` from a tournament directory.

A :class:`Report` is plain data, already counted and formatted where a number needs words (Elo
labels, results); :mod:`reports.render.html` and :mod:`reports.render.markdown` only lay it out,
so the two files can never disagree. Sections, in the order the report shows them: header and entrants
(:mod:`reports.header`), standings, crosstable and LOS, results by colour, terminations (with every
forfeit's message), time use, game lengths (:mod:`reports.stats.sections`), and the games of every
pairing with the compact replay data of :func:`reports.games.replay_data`.

Units: seconds for times, plies (moves, the opening included) for lengths, score as points per game
(0..1) or percent where named ``_pct``. Self-play games (an entrant against itself) count nowhere, as
in :mod:`reports.stats.tally`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.games import Pairing, pairings, replay_data
from reports.header import Entrant, Header, entrant, header
from reports.stats.results import Results
from reports.stats.sections import (
    ColourRow,
    Forfeit,
    LengthRow,
    TerminationRow,
    TimeUse,
    by_colour,
    forfeits,
    lengths,
    terminations,
    time_use,
)
from reports.stats.standings import Crosstable, Standing
from tournament.record import GameRecord
from tournament.schedule import Settings

__all__ = ["Report", "build", "load", "notes"]


@dataclass(frozen=True, slots=True)
class Report:
    """Everything one tournament's report shows (see the module docstring). ``results`` is kept for
    the figures (its records, ratings and progression); ``replays`` is
    :func:`reports.games.replay_data`."""

    header: Header
    entrants: list[Entrant]
    standings: list[Standing]
    notes: list[str]
    crosstable: Crosstable
    by_colour: list[ColourRow]
    terminations: list[TerminationRow]
    forfeits: list[Forfeit]
    time_use: list[TimeUse]
    lengths: list[LengthRow]
    pairings: list[Pairing]
    replays: dict[str, Any]
    results: Results

    @property
    def title(self) -> str:
        """``ConnectX tournament: NAME``."""
        return f"ConnectX tournament: {self.header.name}"

    @property
    def records(self) -> tuple[GameRecord, ...]:
        """Every game, by game id (``results.records``)."""
        return self.results.records

    @property
    def settings(self) -> Settings:
        """The tournament's settings (``results.settings``)."""
        assert self.results.settings is not None  # build() requires them
        return self.results.settings


def load(directory: Path | str) -> Report:
    """The :class:`Report` of the tournament stored in ``directory``, titled by the directory's name.

    Raises:
        tournament.store.StoreError: no tournament there.
        ValueError: no game between two different agents yet.
    """
    return build(Results.load(directory), name=Path(directory).resolve().name)


def build(results: Results, *, name: str) -> Report:
    """The :class:`Report` of ``results`` (which must hold their settings); ``name`` titles it.

    Raises:
        ValueError: no game between two different agents, or ``results`` without settings; see
            also :func:`reports.stats.ratings.rate`.
    """
    if not results.h2h:
        raise ValueError("no game between two different agents to report")
    settings = results.settings
    if settings is None:
        raise ValueError("a report needs the tournament's settings")
    return Report(
        header=header(results, settings, name),
        entrants=[entrant(spec) for spec in settings.entrants],
        standings=results.standings,
        notes=notes(results),
        crosstable=results.crosstable,
        by_colour=by_colour(results),
        terminations=terminations(results),
        forfeits=forfeits(results),
        time_use=time_use(results),
        lengths=lengths(results),
        pairings=pairings(results),
        replays=replay_data(results.records),
        results=results,
    )


def notes(results: Results) -> list[str]:
    """Sentences to show under the standings: how many games were distinct, pairings that repeated
    games, and why an Elo is a bound (agents that won or lost every game against the rest) or the
    scale's zero by definition (a rated pool of one)."""
    distinct = results.distinct
    unique, total = sum(d for d, _ in distinct.values()), sum(g for _, g in distinct.values())
    lines = [f"{unique} of {total} games distinct"]
    for (a, b), (d, g) in sorted(distinct.items()):
        if d < g:
            lines.append(f"warning: {a} v {b} repeated games: {d} distinct of {g}")
    for sign, side, names in (("+", "below", [r.name for r in results.ratings if r.elo == math.inf]),
                              ("-", "above", [r.name for r in results.ratings if r.elo == -math.inf])):
        if names:
            outcome, bound = ("won", "lower") if sign == "+" else ("lost", "upper")
            lines.append(
                f"{_names(names)} {outcome} every game against the agents ranked {side} "
                f"{'it' if len(names) == 1 else 'them'}: no finite Elo, so {sign}∞, ranked by results; "
                f"the interval is a one-sided 95 % {bound} bound"
            )
    reference = [r.name for r in results.ratings if r.reference]
    if reference and len(results.ratings) > 1:
        lines.append(f"Elo is relative to {reference[0]}, 0 by definition: the only agent rated finitely")
    return lines


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
