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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.games import Pairing, pairings, replay_data
from reports.header import Entrant, Header, entrant, header
from reports.render.terminal import notes
from reports.stats.results import Results
from reports.stats.sections import (
    ColourRow,
    Crosstable,
    Forfeit,
    LengthRow,
    TerminationRow,
    TimeUse,
    by_colour,
    crosstable,
    forfeits,
    lengths,
    terminations,
    time_use,
)
from tournament.record import FORFEITS, GameRecord
from tournament.schedule import Settings

__all__ = ["Report", "Standing", "build", "load"]


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings; ``elo`` is :meth:`reports.stats.ratings.Rating.label` (an interval or
    a bound)."""

    rank: int
    agent: str
    elo: str
    games: int
    wins: int
    draws: int
    losses: int
    score_pct: float
    invalid: int
    timeouts: int
    errors: int


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
        standings=_standings(results),
        notes=notes(results),
        crosstable=crosstable(results),
        by_colour=by_colour(results),
        terminations=terminations(results),
        forfeits=forfeits(results),
        time_use=time_use(results),
        lengths=lengths(results),
        pairings=pairings(results),
        replays=replay_data(results.records),
        results=results,
    )


def _standings(results: Results) -> list[Standing]:
    rows = []
    for rank, rating in enumerate(results.ratings, start=1):
        wdl = results.totals[rating.name]
        invalid, timeouts, errors = (results.forfeited(rating.name, kind) for kind in FORFEITS)
        score_pct = 100 * wdl.points / wdl.games
        rows.append(
            Standing(rank, rating.name, rating.label(), wdl.games, wdl.wins, wdl.draws, wdl.losses,
                     score_pct, invalid, timeouts, errors)  # fmt: skip
        )
    return rows
