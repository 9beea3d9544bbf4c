"""The SPRT of a ``connectx sprt`` match as the driver's stop rule, kept up to date as its games end.

:class:`SprtStop` is a :class:`tournament.driver.Stop`. It lives in the command line, above both
packages, because it joins them: the driver (:mod:`tournament`) never imports :mod:`reports`, whose
:mod:`reports.stats.sprt` holds the SPRT itself; ``connectx sprt`` builds this rule and hands it to
the driver (:mod:`tournament.driver` says why).
"""

from __future__ import annotations

from collections.abc import Iterable

from reports.stats.headtohead import Pentanomial
from reports.stats.sprt import Sprt
from reports.words import plural
from tournament.record import GameRecord
from tournament.schedule import Settings


class SprtStop:
    """The SPRT of an ``sprt`` match (``settings.sprt``: elo0, elo1, alpha, beta) on the games of its
    first entrant, A, against the second; a game pair counts once both of its games have ended, and
    the status is computed again only when a pair has."""

    def __init__(self, settings: Settings) -> None:
        if settings.sprt is None:
            raise ValueError("the settings are not those of an SPRT match")
        self.sprt = Sprt(*settings.sprt)
        self.a = settings.entrants[0]
        self.open: dict[int, GameRecord] = {}  # pair id -> its game that ended first
        self.counts = Pentanomial()
        self.games = 0
        self.status = self.sprt.status(self.counts)

    def add(self, records: Iterable[GameRecord]) -> None:
        """Count the games ``records`` (:meth:`tournament.driver.Stop.add`)."""
        pairs = self.counts.pairs
        for record in records:
            self.games += 1
            other = self.open.pop(record.pair_id, None)
            if other is None:
                self.open[record.pair_id] = record
            else:
                points = record.score_of(self.a) + other.score_of(self.a)
                self.counts += Pentanomial.from_pair_points(points)
        if self.counts.pairs != pairs:
            self.status = self.sprt.status(self.counts)

    @property
    def decision(self) -> str | None:
        """``"H0"`` or ``"H1"`` once accepted, else None."""
        return self.status.decision

    @property
    def line(self) -> str:
        """The live line: pairs, pentanomial counts, Elo and its error, LOS, the LLR and its bounds."""
        return self.status.format()

    def verdict(self) -> str:
        """``H1 accepted after 24 games (12 pairs)``, or why there is no decision."""
        if self.decision is None:
            return f"no decision after {plural(self.games, 'game')} (--max-games reached)"
        pairs = plural(self.counts.pairs, "pair")
        return f"{self.decision} accepted after {plural(self.games, 'game')} ({pairs})"
