"""The facts of a tournament run, for its report: :class:`Header` (board, time control, openings,
dates, SPRT line).

Units: seconds for times; dates are UTC.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from agents.kit.clock import DEFAULT_OVERAGE
from reports.durations import format_seconds
from reports.stats.headtohead import Pentanomial
from reports.stats.sprt import Sprt
from reports.stats.tally import Matchup, oriented
from tournament.record import GameRecord
from tournament.schedule import HUMAN, Settings

__all__ = ["Header", "header"]


@dataclass(frozen=True, slots=True)
class Header:
    """The facts of the run, each already formatted: :meth:`rows` lists them with their labels."""

    name: str
    toolkit: str
    board: str
    time_control: str
    seed: int
    format: str
    openings: str
    games: str
    dates: str
    wall_time: str
    workers: str
    cores: str
    generated: str
    sprt: str

    def rows(self) -> list[tuple[str, str]]:
        """``(label, value)`` pairs in display order; the SPRT row only for an SPRT match."""
        rows = [
            ("games", self.games),
            ("format", self.format),
            ("board", self.board),
            ("time", self.time_control),
            ("openings", self.openings),
            ("seed", str(self.seed)),
            ("played", self.dates),
            ("wall time", self.wall_time),
            ("workers / cores", f"{self.workers} / {self.cores}"),
            ("toolkit", self.toolkit),
            ("report written", self.generated),
        ]
        if self.sprt:
            rows.insert(2, ("SPRT", self.sprt))
        return rows


def header(
    records: Sequence[GameRecord],
    settings: Settings,
    name: str,
    pentanomials: Mapping[Matchup, Pentanomial],
) -> Header:
    """The :class:`Header` of the games ``records`` played under ``settings``, titled ``name``;
    ``pentanomials``: their complete game pairs' counts per pairing
    (:attr:`reports.stats.results.Results.pentanomials`), for an SPRT match's line."""
    starts = [_time(record.started_at) for record in records if record.started_at]
    dates = ""
    if starts:
        first, last = min(starts), max(starts)
        dates = f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC"
    if settings.sprt is not None:
        kind = f"SPRT: {settings.entrants[0]} against {settings.entrants[1]}, game pairs"
        scheduled = f"at most {2 * settings.games}"
    elif HUMAN in settings.entrants:  # connectx play: games are added as they are played
        kind = f"terminal play: a person against {settings.entrants[-1]}"
        scheduled = ""
    else:
        kind = (
            "gauntlet" if settings.gauntlet else "round-robin"
        ) + f", {settings.games} game pairs a pairing"
        pairings = (
            len(settings.entrants) - 1
            if settings.gauntlet
            else len(settings.entrants) * (len(settings.entrants) - 1) // 2
        )
        scheduled = str(2 * settings.games * pairings)
    hang = (
        ""
        if settings.hang_limit is None
        else f"; a move still running at {settings.hang_limit:g} s times out"
    )
    count = len(settings.openings)
    shown = count and str(count) not in settings.opening_source  # "built-in suite (350 ...)" says it
    openings = settings.opening_source + (f" ({count} openings)" if shown else "")
    return Header(
        name=name,
        toolkit=settings.toolkit or "not recorded (stored before the report existed)",
        board=f"{settings.rows} rows x {settings.columns} columns, {settings.inarow} in a row",
        time_control=f"actTimeout {settings.act_timeout:g} s a move, "
        f"overage bank {DEFAULT_OVERAGE:g} s a game{hang}",
        seed=settings.seed,
        format=kind,
        openings=openings,
        games=f"{len(records)} played" + (f" of {scheduled} scheduled" if scheduled else ""),
        dates=dates or "unknown",
        wall_time=format_seconds(_busy_seconds(records)) + " with games in flight",
        workers=str(settings.workers) if settings.workers is not None else "not recorded",
        cores=str(settings.cores) if settings.cores is not None else "not recorded",
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        sprt=_sprt_line(settings, pentanomials),
    )


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _busy_seconds(records: Sequence[GameRecord]) -> float:
    """Seconds during which at least one game was being played: the union of ``[start, start +
    duration]`` over the games. Unlike last end minus first start, it leaves out the pause between
    an interrupted run and its resumption. ``started_at`` has whole seconds, so this is good to about
    a second."""
    spans = sorted(
        (start, start + timedelta(seconds=record.duration))
        for record in records
        if record.started_at
        for start in [_time(record.started_at)]
    )
    total, end = 0.0, None
    for start, stop in spans:
        if end is None or start > end:
            total += (stop - start).total_seconds()
            end = stop
        elif stop > end:
            total += (stop - end).total_seconds()
            end = stop
    return total


def _sprt_line(settings: Settings, pentanomials: Mapping[Matchup, Pentanomial]) -> str:
    """``elo0 0, elo1 10, ...: pairs 12 [...] LLR ...; H1 accepted`` for an SPRT match, else "": the
    test of :class:`reports.stats.stopping.SprtStop` on the pairs of its first entrant against the
    second, already counted in ``pentanomials``."""
    if settings.sprt is None:
        return ""
    sprt = Sprt(*settings.sprt)
    a, b = settings.entrants[:2]
    counts = oriented(pentanomials, a, b) if (min(a, b), max(a, b)) in pentanomials else Pentanomial()
    if not counts.pairs:
        return f"{sprt.describe()}: no complete pair yet"
    status = sprt.status(counts)
    verdict = f"{status.decision} accepted" if status.decision else "no decision"
    return f"{sprt.describe()}: {status.format()}; {verdict}"
