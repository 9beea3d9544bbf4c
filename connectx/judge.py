"""The SPRT of a ``connectx sprt`` match, kept up to date as its games end."""

from __future__ import annotations

from reports.stats.headtohead import Pentanomial
from reports.stats.sprt import Sprt
from tournament.record import GameRecord
from tournament.schedule import Settings


class Judge:
    """The SPRT of an ``sprt`` match (``settings.sprt``) on the games of its first entrant, A;
    a game pair counts once both of its games have ended."""

    def __init__(self, settings: Settings, records: list[GameRecord]) -> None:
        self.sprt = Sprt(*settings.sprt)
        self.a = settings.entrants[0]
        self.open: dict[int, GameRecord] = {}
        self.counts = Pentanomial()
        self.games = 0
        for record in records:
            self.add(record, update=False)
        self.update()

    def add(self, record: GameRecord, *, update: bool = True) -> None:
        self.games += 1
        other = self.open.pop(record.pair_id, None)
        if other is None:
            self.open[record.pair_id] = record
        else:
            points = record.score_of(self.a) + other.score_of(self.a)
            self.counts += Pentanomial.from_pair_points(points)
            if update:
                self.update()

    def update(self) -> None:
        self.status = self.sprt.status(self.counts)

    @property
    def decision(self) -> str | None:
        return self.status.decision

    @property
    def line(self) -> str:
        return self.status.format()

    def verdict(self) -> str:
        if self.decision is None:
            return f"no decision after {self.games} games (--max-games reached)"
        return f"{self.decision} accepted after {self.games} games ({self.counts.pairs} pairs)"
