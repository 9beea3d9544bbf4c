"""A tournament's results, counted once from its records: :class:`Results`.

Every table (:mod:`reports.stats.tables`), figure (:mod:`reports.render.plots`), file
(:mod:`reports.render.write`), the report (:mod:`reports.report`) and the terminal summary
(:mod:`reports.render.terminal`) read one :class:`Results` instead of counting the records again.
Counts are made when it is built; the ratings, LOS matrix and Elo progression (the costly part:
maximum-likelihood fits), the standings and the crosstable (:mod:`reports.stats.standings`) on first
use, once; the ratings relative to one entrant (:meth:`Results.relative_to`) when asked. Games of an
entrant against itself count nowhere (:mod:`reports.stats.tally`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

import numpy as np

from reports.stats.headtohead import WDL, Pentanomial
from reports.stats.progress import Checkpoint, progression
from reports.stats.ratings import Rating, rate, rate_with_los
from reports.stats.standings import Crosstable, Standing, crosstable, standings
from reports.stats.tally import Matchup, distinct_games, forfeits, head_to_head, pentanomials, totals
from tournament.record import GameRecord, Termination
from tournament.schedule import Settings
from tournament.store import Store

__all__ = ["Results"]


class Results:
    """The counted results of one tournament.

    Attributes:
        records: every game, by game id (self-play included, as stored).
        settings: the tournament's settings (None for records without a store, e.g. in tests).
        h2h: wins, draws, losses of ``a`` against ``b`` per pairing ``(a, b)``, ``a < b``
            (:func:`reports.stats.tally.head_to_head`).
        pentanomials: pentanomial counts of the complete game pairs per pairing
            (:func:`reports.stats.tally.pentanomials`).
        totals: wins, draws, losses of each entrant over all its games.
        forfeits: games forfeited, keyed ``(offender, opponent, Termination)``
            (:func:`reports.stats.tally.forfeits`).
        forfeited: games each entrant forfeited, keyed ``(name, Termination)`` (0 when none).
        suffered: games each entrant's opponents forfeited to it, keyed ``(name, Termination)``.
        distinct: ``(distinct, games)`` per pairing (:func:`reports.stats.tally.distinct_games`).

    Raises ValueError (from :func:`reports.stats.tally.pentanomials`) for a pair that is not two games
    with colours swapped.
    """

    def __init__(self, records: Iterable[GameRecord], settings: Settings | None = None) -> None:
        self.records = tuple(sorted(records, key=lambda record: record.game_id))
        self.settings = settings
        self.h2h: dict[Matchup, WDL] = head_to_head(self.records)
        self.pentanomials: dict[Matchup, Pentanomial] = pentanomials(self.records)
        self.totals: dict[str, WDL] = totals(self.h2h)
        self.forfeits: Counter[tuple[str, str, Termination]] = forfeits(self.records)
        self.forfeited: Counter[tuple[str, Termination]] = Counter()
        self.suffered: Counter[tuple[str, Termination]] = Counter()
        for (offender, opponent, kind), count in self.forfeits.items():
            self.forfeited[offender, kind] += count
            self.suffered[opponent, kind] += count
        self.distinct: dict[Matchup, tuple[int, int]] = distinct_games(self.records)

    @classmethod
    def load(cls, directory: Path | str) -> Results:
        """The results of the tournament stored in ``directory``; raises
        :class:`~tournament.store.StoreError` if there is none."""
        with Store.open(Path(directory)) as store:
            return cls(store.records(), store.settings())

    @property
    def played(self) -> list[GameRecord]:
        """The games between two different entrants, by game id."""
        return [record for record in self.records if record.first != record.second]

    @cached_property
    def _rated(self) -> tuple[list[Rating], np.ndarray]:
        return rate_with_los(self.h2h, self.pentanomials)

    @property
    def ratings(self) -> list[Rating]:
        """Joint ratings, best first (:func:`reports.stats.ratings.rate` with its defaults: the mean of the
        rated pool is 0 Elo)."""
        return self._rated[0]

    def relative_to(self, reference: str) -> dict[str, Rating]:
        """Every rated entrant's Elo relative to ``reference``, by name: its rating minus
        ``reference``'s, in Elo, with the 95 % profile-likelihood interval of that difference.

        An entrant that no finite difference fits (outside ``reference``'s strongly connected group of
        the "scored against" graph, :mod:`reports.stats.ratings`: below it, it scored no point
        against that group) gets ``-inf`` and a one-sided 95 % upper bound in ``high``; one above it,
        ``+inf`` and a lower bound. ``reference`` is the reference, 0 by definition.

        The same model and games as :attr:`ratings`, with the scale's zero on ``reference``
        (:func:`reports.stats.ratings.rate` with ``anchor=reference``). Fitted on each call, intervals
        and bounds included; raises ValueError for a ``reference`` that did not play.
        """
        return {rating.name: rating for rating in rate(self.h2h, self.pentanomials, anchor=reference)}

    @property
    def order(self) -> list[str]:
        """The rated entrants, best first: the order of every table."""
        return [rating.name for rating in self.ratings]

    @cached_property
    def standings(self) -> list[Standing]:
        """The standings, best first (:func:`reports.stats.standings.standings`)."""
        return standings(self.ratings, self.totals, self.forfeited)

    @cached_property
    def crosstable(self) -> Crosstable:
        """The crosstable in standings order (:func:`reports.stats.standings.crosstable`)."""
        return crosstable(self.order, self.h2h, self.forfeits, self.los)

    @property
    def los(self) -> np.ndarray:
        """LOS of ``order[i]`` over ``order[j]``, ``(n, n)`` (:func:`reports.stats.ratings.los_matrix`),
        from the fit of :attr:`ratings`."""
        return self._rated[1]

    @cached_property
    def progress(self) -> list[Checkpoint]:
        """The Elo progression over the games (:func:`reports.stats.progress.progression`)."""
        return progression(self.records)
