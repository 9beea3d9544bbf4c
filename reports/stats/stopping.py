"""The SPRT of an SPRT match as games end: :class:`SprtStop`, the stop rule of ``connectx sprt``.

A :class:`tournament.driver.Stop`: the driver hands it the games as they are stored, and stops once
it has decided. The report of a finished match reads its state the same way, from the stored games
(:mod:`reports.header`). Game pairs are grouped by :class:`reports.stats.tally.GamePairs`; the test
is :class:`reports.stats.sprt.Sprt`.
"""

from __future__ import annotations

from collections.abc import Iterable

from reports.stats.headtohead import Pentanomial
from reports.stats.sprt import Sprt
from reports.stats.tally import GamePairs
from reports.words import plural
from tournament.record import GameRecord
from tournament.schedule import Settings

__all__ = ["SprtStop"]


class SprtStop:
    """The SPRT of an SPRT match (``settings.sprt``: elo0, elo1, alpha, beta) on the games of its
    first entrant, A, against the second; a game pair counts once both of its games have ended, and
    the status is computed again only when a pair has. Raises ValueError for settings of another
    kind of tournament."""

    def __init__(self, settings: Settings) -> None:
        if settings.sprt is None:
            raise ValueError("the settings are not those of an SPRT match")
        self.sprt = Sprt(*settings.sprt)
        self.a, self.b = settings.entrants[:2]
        self.pairs = GamePairs()
        self.counts = Pentanomial()
        self.games = 0
        self.status = self.sprt.status(self.counts)

    def add(self, records: Iterable[GameRecord]) -> None:
        """Count the games ``records`` (:meth:`tournament.driver.Stop.add`)."""
        pairs = self.counts.pairs
        for record in records:
            self.games += 1
            pair = self.pairs.add(record)
            if pair is not None and set(pair[0]) == {self.a, self.b}:
                self.counts += pair[1] if pair[0][0] == self.a else pair[1].flipped()
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
