"""What a tournament report shows: :func:`assemble` from a tournament's records and settings (every
caller's one way), :func:`build` from their :class:`~reports.stats.results.Results`, or :func:`load`
from a tournament directory.

A :class:`Report` is plain data, already counted and formatted where a number needs words (Elo
labels, results): every figure, table and section a report shows. :mod:`reports.render` reads
nothing else and counts nothing, so its files (HTML, Markdown, CSV, PNG) can never disagree. Its
sections: header and entrants
(:mod:`reports.header`), standings, the move analysis when the run has one (:mod:`reports.review`),
crosstable and LOS, results by colour, terminations (with every forfeit's message), time use, game
lengths (:mod:`reports.stats.sections`), and the games of every pairing with the compact replay data
of :func:`reports.games.replay_data`.

Units: seconds for times, plies (moves, the opening included) for lengths, score as points per game
(0..1) or percent where named ``_pct``. Self-play games (an entrant against itself) count nowhere, as
in :mod:`reports.stats.tally`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from reports.entrants import Entrant, entrant
from reports.games import Pairing, pairings, replay_data
from reports.header import Header, header
from reports.review import Review, review
from reports.stats.accuracy import figures as judged
from reports.stats.analysis import Analysis
from reports.stats.headtohead import WDL
from reports.stats.progress import Checkpoint
from reports.stats.ratings import Rating
from reports.stats.results import Results
from reports.stats.sections import (
    ColourRow,
    ForfeitRow,
    LengthRow,
    TerminationRow,
    TimeUse,
    by_colour,
    lengths,
    terminations,
    time_use,
)
from reports.stats.standings import Crosstable, Standing
from reports.stats.tables import Tables, tables
from reports.stats.tally import Matchup
from reports.words import plural, signed
from tournament.record import GameRecord
from tournament.schedule import Settings
from tournament.store import Store

__all__ = ["Report", "assemble", "build", "caption", "load", "notes", "scale"]


@dataclass(frozen=True, slots=True)
class Report:
    """Everything one tournament's report shows (see the module docstring).

    ``scale`` says where the Elo scale's zero is (:func:`scale`) and ``caption`` what the figures'
    titles say of the games (``24 games · 6x7, 4 in a row, 2 s a move``: the games between two
    entrants and their settings); ``ratings`` and ``progress`` are the Elo figure's and the
    progression's, ``h2h`` each pairing's wins, draws and losses (for comparisons); ``review`` is
    the move analysis (None when the run has none); ``tables`` the CSV files' tables; ``records``
    every game by game id and ``replays`` :func:`reports.games.replay_data`."""

    header: Header
    settings: Settings
    entrants: list[Entrant]
    standings: list[Standing]
    ratings: list[Rating]
    scale: str
    notes: list[str]
    review: Review | None
    crosstable: Crosstable
    h2h: dict[Matchup, WDL]
    by_colour: list[ColourRow]
    terminations: list[TerminationRow]
    forfeits: list[ForfeitRow]
    time_use: list[TimeUse]
    lengths: list[LengthRow]
    progress: list[Checkpoint]
    caption: str
    tables: Tables
    pairings: list[Pairing]
    records: tuple[GameRecord, ...]
    replays: dict[str, Any]

    @property
    def title(self) -> str:
        """``ConnectX tournament: NAME``."""
        return f"ConnectX tournament: {self.header.name}"


def load(directory: Path | str) -> Report:
    """The :class:`Report` of the tournament stored in ``directory``, titled by the directory's name,
    with its move analysis (``moves.csv``) when it has one: :func:`assemble` of the store, read once.

    Raises:
        tournament.store.StoreError: no tournament there.
        reports.stats.analysis.AnalysisError: a ``moves.csv`` that cannot be read.
        ValueError: no game between two different agents yet.
    """
    with Store.open(Path(directory)) as store:
        records, settings = store.records(), store.settings()
    name = Path(directory).resolve().name
    report = assemble(records, settings, name=name, analysis=Analysis.read(directory))
    if report is None:
        raise ValueError("no game between two different agents to report")
    return report


def assemble(
    records: Iterable[GameRecord],
    settings: Settings,
    *,
    name: str,
    analysis: Analysis | None = None,
    kind: str | None = None,
) -> Report | None:
    """The :class:`Report` of the games ``records`` played under ``settings``, titled ``name``, or None
    while no two different agents have met: the one assembly of a report, which ``connectx report``,
    ``connectx run``, the web's run pages and ``connectx ladder report`` all read (:func:`build` of
    the records' :class:`~reports.stats.results.Results`). ``kind``, when given, is what the header
    says the run is (the ladder's members and additions) instead of its schedule.

    Raises ValueError as :func:`build` does.
    """
    results = Results(records, settings)
    if not results.h2h:
        return None
    return build(results, name=name, analysis=analysis, kind=kind)


def build(
    results: Results, *, name: str, analysis: Analysis | None = None, kind: str | None = None
) -> Report:
    """The :class:`Report` of ``results`` (which must hold their settings); ``name`` titles it, and
    ``kind`` (see :func:`assemble`) replaces the header's format and scheduled games.

    In stages: every statistic is computed once, from the counts ``results`` took in its one pass over
    the games (:class:`~reports.stats.results.Results`), the fits included (ratings, standings,
    crosstable, progression, an SPRT's state, and with the move ``analysis`` its figures,
    :func:`reports.stats.accuracy.figures`, and the Elo relative to an entrant that played perfectly);
    then each section is made from the statistics it needs, never from the whole ``results``.
    With the run's move ``analysis``, the report shows it (:func:`reports.review.review`); the
    standings, the figures and the progression keep the pool's scale.

    Raises:
        ValueError: no game between two different agents, or ``results`` without settings; see
            also :func:`reports.stats.ratings.rate`.
    """
    if not results.h2h:
        raise ValueError("no game between two different agents to report")
    settings = results.settings
    if settings is None:
        raise ValueError("a report needs the tournament's settings")
    # Statistics, each computed once: the counts of the one pass, then the fits.
    records, counts, ratings = results.records, results.counts, results.ratings
    standings, crosstable, los, progress, sprt = (
        results.standings,
        results.crosstable,
        results.los,
        results.progress,
        results.sprt,
    )
    figures = None
    analysis = analysis.of(records) if analysis is not None else None  # these games' judgements only
    if analysis is not None and analysis.moves:
        figures = judged(analysis, records, results.totals, results.forfeited)
    versus = results.relative_to(figures.reference) if figures is not None and figures.reference else {}
    # Sections, each from the statistics it needs.
    moves = review(figures, versus) if figures is not None else None
    top = header(settings, name, games=len(records), dates=counts.dates, busy=counts.busy, sprt=sprt)
    if kind is not None:
        top = replace(top, format=kind, games=f"{len(records)} played")
    return Report(
        header=top,
        settings=settings,
        entrants=[entrant(spec) for spec in settings.entrants],
        standings=standings,
        ratings=ratings,
        scale=scale(ratings),
        notes=notes(results.distinct, ratings, moves),
        review=moves,
        crosstable=crosstable,
        h2h=results.h2h,
        by_colour=by_colour(counts, crosstable.order),
        terminations=terminations(counts, crosstable.order, results.forfeited, results.suffered),
        forfeits=counts.forfeits,
        time_use=time_use(counts, crosstable.order),
        lengths=lengths(counts, crosstable.order),
        progress=progress,
        caption=caption(len(counts.plies), counts.boards),
        tables=tables(standings, crosstable, results.h2h, results.pentanomials, los, records),
        pairings=pairings(records, crosstable.order, moves.deciding if moves is not None else None),
        records=records,
        replays=replay_data(records, analysis, figures.deciding if figures is not None else None),
    )


def caption(games: int, boards: Iterable[tuple[int, int, int, float]]) -> str:
    """What the figures' titles say of the games: how many were played between two entrants
    (``games``), and their board and time settings (``boards``: ``(rows, columns, inarow,
    act_timeout)`` of each kind, :attr:`reports.stats.results.Counts.boards`), e.g. ``24 games · 6x7,
    4 in a row, 2 s a move`` (settings joined by ``;`` when the games differ)."""
    shown = "; ".join(
        f"{rows}x{columns}, {inarow} in a row, {timeout:g} s a move"
        for rows, columns, inarow, timeout in sorted(boards)
    )
    return f"{plural(games, 'game')} · {shown}"


def scale(ratings: Iterable[Rating]) -> str:
    """Where the Elo scale of ``ratings`` has its zero, as a figure's axis says it: ``Elo (random =
    0)`` for a rated pool of one, else ``Elo (mean of the rated = 0)``."""
    reference = next((r.name for r in ratings if r.reference), None)
    if reference is not None:
        return f"Elo ({reference} = 0)"
    return "Elo (mean of the rated = 0)"


def notes(
    distinct: Mapping[Matchup, tuple[int, int]], ratings: Sequence[Rating], moves: Review | None = None
) -> list[str]:
    """Sentences to show under the standings: how many games were distinct (``distinct``: ``(distinct,
    games)`` per pairing), pairings that repeated games, why an Elo of ``ratings`` is a bound (agents
    that won or lost every game against those rated finitely), the scale's zero when it is not the
    pool's mean (the rated pool's only agent), and, with a move analysis ``moves`` that found an agent
    without a mistake, what the Elo relative to it means."""
    unique, total = sum(d for d, _ in distinct.values()), sum(g for _, g in distinct.values())
    lines = [f"{unique} of {plural(total, 'game')} distinct"]
    for (a, b), (d, g) in sorted(distinct.items()):
        if d < g:
            lines.append(f"warning: {a} v {b} repeated games: {d} distinct of {g}")
    finite = [r.name for r in ratings if r.is_finite]
    against = finite[0] if len(finite) == 1 else "the agents with a finite Elo"
    for sign, names in (("+", [r.name for r in ratings if r.elo == math.inf]),
                        ("-", [r.name for r in ratings if r.elo == -math.inf])):  # fmt: skip
        if names:
            outcome, bound = ("won", "lower") if sign == "+" else ("lost", "upper")
            lines.append(
                f"{_names(names)} {outcome} every game {'it' if len(names) == 1 else 'they'} played "
                f"against {against}: no finite Elo, so {sign}∞, ranked by results; the interval is a "
                f"one-sided 95 % {bound} bound"
            )
    reference = next((r.name for r in ratings if r.reference), None)
    if reference is not None and len(ratings) > 1:
        lines.append(f"Elo is relative to {reference}, 0 by definition: the only agent rated finitely")
    if moves is not None and moves.reference is not None:
        perfect = moves.reference
        text = (
            f"{perfect} made no mistake in {moves.reference_moves:,} moves: it stands for perfect play, and "
            f"'vs perfect play' is each agent's Elo relative to it"
        )
        bounds = [r.high for r in moves.versus.values() if r.elo == -math.inf and math.isfinite(r.high)]
        if bounds:
            text += f"; for an agent that lost every game to {perfect}, a one-sided 95 % bound: " + _at_most(
                max(bounds), perfect
            )
        lines.append(text)
    return lines


def _at_most(bound: float, perfect: str) -> str:
    """An upper bound on the Elo relative to ``perfect`` in words: ``≤ -336, at least 336 below
    negamax``; a bound of few games may lie above it: ``≤ +19, at most 19 above negamax``."""
    gap = round(abs(bound))
    if not gap:
        return f"≤ 0, not above {perfect}"
    if bound < 0:
        return f"≤ {signed(bound)}, at least {gap} below {perfect}"
    return f"≤ {signed(bound)}, at most {gap} above {perfect}"


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
