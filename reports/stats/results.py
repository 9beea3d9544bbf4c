"""A tournament's results, counted once from its records, in one pass: :class:`Results`.

Every table (:mod:`reports.stats.tables`), figure (:mod:`reports.render.plots`), file
(:mod:`reports.render.write`), the report (:mod:`reports.report`) and the terminal summary
(:mod:`reports.render.terminal`) read one :class:`Results` instead of counting the records again.
Building it walks the games once, game by game: the head-to-head counts (:class:`reports.stats.tally.Tally`),
what the report's sections count (:class:`Counts`) and the counts at each prefix of the Elo
progression. From those counts the ratings, LOS matrix and Elo progression (the costly part:
maximum-likelihood fits), the standings and the crosstable (:mod:`reports.stats.standings`) and an
SPRT's state are made on first use, once; the ratings relative to one entrant
(:meth:`Results.relative_to`) when asked. Games of an entrant against itself count nowhere
(:mod:`reports.stats.tally`) but in :class:`Counts`' facts of every game (boards, times of play).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path

import numpy as np

from reports.stats.headtohead import WDL, Pentanomial
from reports.stats.progress import Checkpoint, ends
from reports.stats.ratings import Rating, rate, rate_with_los
from reports.stats.sections import ForfeitRow
from reports.stats.sprt import Sprt, SprtStatus
from reports.stats.standings import Crosstable, Standing, crosstable, standings
from reports.stats.tally import Matchup, Tally, oriented, totals
from tournament.record import GameRecord, Termination
from tournament.schedule import Settings
from tournament.store import Store

__all__ = ["Counts", "Results"]


@dataclass(slots=True)
class Counts:
    """What the report's sections count besides the head-to-head counts, one game at a time (:meth:`add`).

    Attributes:
        boards: ``(rows, columns, inarow, act_timeout)`` of every game.
        spans: ``(start, end)`` in UTC of every game whose start is known, in game-id order.
        colour: wins, draws, losses of ``(agent, opponent, mark)``; opponent ``""`` for all of its games.
        games: games played by each agent.
        connected: games won (``(agent, True)``) and lost (``(agent, False)``) by N in a row.
        draws: games drawn by each agent.
        forfeits: every forfeited game, by game id.
        times: seconds of each of an agent's calls, the opening excluded.
        bank: the most overage bank an agent drew in one game (seconds) and that game's id.
        plies: ``(first, second, plies)`` of every game, by game id.

    All but ``boards`` and ``spans`` leave out games of an entrant against itself.
    """

    boards: set[tuple[int, int, int, float]] = field(default_factory=set)
    spans: list[tuple[datetime, datetime]] = field(default_factory=list)
    colour: defaultdict[tuple[str, str, int], WDL] = field(default_factory=lambda: defaultdict(WDL))
    games: Counter[str] = field(default_factory=Counter)
    connected: Counter[tuple[str, bool]] = field(default_factory=Counter)
    draws: Counter[str] = field(default_factory=Counter)
    forfeits: list[ForfeitRow] = field(default_factory=list)
    times: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    bank: defaultdict[str, tuple[float, int | None]] = field(
        default_factory=lambda: defaultdict(lambda: (0.0, None))
    )
    plies: list[tuple[str, str, int]] = field(default_factory=list)

    def add(self, record: GameRecord) -> None:
        """Count one game."""
        task = record.task
        self.boards.add((task.rows, task.columns, task.inarow, task.act_timeout))
        if record.started_at:
            start = datetime.fromisoformat(record.started_at).astimezone(UTC)
            self.spans.append((start, start + timedelta(seconds=record.duration)))
        if record.first == record.second:
            return
        self._results(record)
        if record.offender is not None:
            agent, opponent = _sides(record, record.offender)
            kind, plies = str(record.termination), len(record.moves)
            self.forfeits.append(ForfeitRow(record.game_id, agent, opponent, kind, plies, record.detail))
        self._times(record)
        self.plies.append((record.first, record.second, len(record.moves)))

    def _results(self, record: GameRecord) -> None:
        """Count a game's result by colour and how it ended."""
        for mark in (1, 2):
            agent, opponent = _sides(record, mark)
            result = WDL.from_result(record.score_of(agent))
            self.colour[agent, "", mark] += result
            self.colour[agent, opponent, mark] += result
            self.games[agent] += 1
        if record.termination == Termination.DRAW:
            self.draws[record.first] += 1
            self.draws[record.second] += 1
        elif record.termination == Termination.WIN:
            winner, loser = _sides(record, 1 if record.result == 1.0 else 2)
            self.connected[winner, True] += 1
            self.connected[loser, False] += 1

    def _times(self, record: GameRecord) -> None:
        """Count a game's agent calls: calls alternate from the side to move after the opening."""
        overage: defaultdict[str, float] = defaultdict(float)
        start = len(record.opening)
        for k, seconds in enumerate(record.move_times):
            agent = _sides(record, (start + k) % 2 + 1)[0]
            self.times[agent].append(seconds)
            overage[agent] += max(0.0, seconds - record.task.act_timeout)
        for agent, used in overage.items():
            if used > self.bank[agent][0]:
                self.bank[agent] = (used, record.game_id)

    @property
    def dates(self) -> tuple[datetime, datetime] | None:
        """The first and the last start of a game (UTC), None when no start is known."""
        starts = [start for start, _ in self.spans]
        return (min(starts), max(starts)) if starts else None

    @property
    def busy(self) -> float:
        """Seconds during which at least one game was being played: the union of the ``spans``. Unlike
        last end minus first start, it leaves out the pause between an interrupted run and its
        resumption. ``started_at`` has whole seconds, so this is good to about a second."""
        total, end = 0.0, None
        for start, stop in sorted(self.spans):
            if end is None or start > end:
                total += (stop - start).total_seconds()
                end = stop
            elif stop > end:
                total += (stop - end).total_seconds()
                end = stop
        return total


def _sides(record: GameRecord, mark: int) -> tuple[str, str]:
    """``(the entrant playing mark, its opponent)``."""
    return (record.first, record.second) if mark == 1 else (record.second, record.first)


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
        counts: what the report's sections count (:class:`Counts`).

    Raises ValueError (from :meth:`reports.stats.tally.GamePairs.add`) for a pair that is not two games
    with colours swapped.
    """

    def __init__(self, records: Iterable[GameRecord], settings: Settings | None = None) -> None:
        self.records = tuple(sorted(records, key=lambda record: record.game_id))
        self.settings = settings
        tally, self.counts = Tally(), Counts()
        checkpoints = set(ends(len(self.records)))
        self._prefixes: list[tuple[int, dict[Matchup, WDL], dict[Matchup, Pentanomial]]] = []
        for seen, record in enumerate(self.records, start=1):
            tally.add(record)
            self.counts.add(record)
            if seen in checkpoints:
                self._prefixes.append((seen, dict(tally.h2h), dict(tally.pentanomials)))
        self.h2h: dict[Matchup, WDL] = dict(tally.h2h)
        self.pentanomials: dict[Matchup, Pentanomial] = dict(tally.pentanomials)
        self.totals: dict[str, WDL] = totals(self.h2h)
        self.forfeits: Counter[tuple[str, str, Termination]] = tally.forfeits
        self.forfeited: Counter[tuple[str, Termination]] = Counter()
        self.suffered: Counter[tuple[str, Termination]] = Counter()
        for (offender, opponent, kind), count in self.forfeits.items():
            self.forfeited[offender, kind] += count
            self.suffered[opponent, kind] += count
        self.distinct: dict[Matchup, tuple[int, int]] = tally.distinct

    @classmethod
    def load(cls, directory: Path | str) -> Results:
        """The results of the tournament stored in ``directory``; raises
        :class:`~tournament.store.StoreError` if there is none."""
        with Store.open(Path(directory)) as store:
            return cls(store.records(), store.settings())

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
        """The Elo progression: the ratings after about 12 evenly spaced prefixes of the games, by game
        id (:func:`reports.stats.progress.ends`), from the counts the pass took at each. Prefixes in
        which no two agents have met yet, or whose players fall into groups that never met, are
        left out."""
        checkpoints = []
        for games, h2h, pentanomials in self._prefixes:
            if not h2h:
                continue
            try:
                ratings = rate(h2h, pentanomials)
            except ValueError:  # not every player has met the pool yet
                continue
            checkpoints.append(Checkpoint(games, tuple(ratings)))
        return checkpoints

    @cached_property
    def sprt(self) -> tuple[Sprt, SprtStatus] | None:
        """An SPRT match's test and its state after the complete pairs of its first entrant against the
        second (:meth:`reports.stats.sprt.Sprt.status`); None for another run, or without settings."""
        if self.settings is None or self.settings.sprt is None:
            return None
        test = Sprt(*self.settings.sprt)
        a, b = self.settings.entrants[:2]
        met = (min(a, b), max(a, b)) in self.pentanomials
        counts = oriented(self.pentanomials, a, b) if met else Pentanomial()
        return test, test.status(counts)
