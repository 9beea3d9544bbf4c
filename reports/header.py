"""The facts of a tournament run, for its report: :class:`Header` (board, time control, openings,
dates, SPRT line).

Units: seconds for times; dates are UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from agents.kit.clock import DEFAULT_OVERAGE
from reports.durations import format_seconds
from reports.stats.sprt import Sprt, SprtStatus
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
    settings: Settings,
    name: str,
    *,
    games: int,
    dates: tuple[datetime, datetime] | None,
    busy: float,
    sprt: tuple[Sprt, SprtStatus] | None,
) -> Header:
    """The :class:`Header` of ``games`` games played under ``settings``, titled ``name``, from what was
    counted of them once (:class:`reports.stats.results.Counts`): the first and last game's start
    (``dates``, UTC; None when unknown), the seconds with games in flight (``busy``) and an SPRT
    match's test and state (``sprt``, :attr:`reports.stats.results.Results.sprt`)."""
    kind, scheduled = _format(settings)
    hang = (
        ""
        if settings.hang_limit is None
        else f"; a move still running at {settings.hang_limit:g} s times out"
    )
    count = len(settings.openings)
    shown = count and str(count) not in settings.opening_source  # "built-in suite (350 ...)" says it
    openings = settings.opening_source + (f" ({count} openings)" if shown else "")
    shown_dates = "unknown"
    if dates is not None:
        shown_dates = f"{dates[0]:%Y-%m-%d %H:%M} to {dates[1]:%Y-%m-%d %H:%M} UTC"
    return Header(
        name=name,
        toolkit=settings.toolkit or "not recorded (stored before the report existed)",
        board=f"{settings.rows} rows x {settings.columns} columns, {settings.inarow} in a row",
        time_control=f"actTimeout {settings.act_timeout:g} s a move, "
        f"overage bank {DEFAULT_OVERAGE:g} s a game{hang}",
        seed=settings.seed,
        format=kind,
        openings=openings,
        games=f"{games} played" + (f" of {scheduled} scheduled" if scheduled else ""),
        dates=shown_dates,
        wall_time=format_seconds(busy) + " with games in flight",
        workers=str(settings.workers) if settings.workers is not None else "not recorded",
        cores=str(settings.cores) if settings.cores is not None else "not recorded",
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        sprt=_sprt_line(sprt),
    )


def _format(settings: Settings) -> tuple[str, str]:
    """What kind of run ``settings`` make, and how many games they schedule ("" when open-ended)."""
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
    return kind, scheduled


def _sprt_line(sprt: tuple[Sprt, SprtStatus] | None) -> str:
    """``elo0 0, elo1 10, ...: pairs 12 [...] LLR ...; H1 accepted`` for an SPRT match's test and state,
    else ""."""
    if sprt is None:
        return ""
    test, status = sprt
    if not status.penta.pairs:
        return f"{test.describe()}: no complete pair yet"
    verdict = f"{status.decision} accepted" if status.decision else "no decision"
    return f"{test.describe()}: {status.format()}; {verdict}"
