"""Count game records into head-to-head values: WDL and pentanomial per pairing, forfeits.

:class:`reports.stats.results.Results` counts a tournament's games once, in one pass, with a
:class:`Tally`; the functions below count a sequence of games with one too.

A pairing is keyed ``(a, b)`` with ``a < b`` (string order), and its values are from ``a``'s point
of view; :func:`oriented` turns them to either side. A game of an entrant against itself says nothing
about its strength and is left out of every count here, hence of every table and rating.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from reports.stats.headtohead import WDL, Pentanomial
from tournament.record import GameRecord, Termination

__all__ = [
    "GamePairs",
    "Matchup",
    "Tally",
    "distinct_games",
    "forfeits",
    "head_to_head",
    "oriented",
    "pentanomials",
    "score_matrix",
    "tally",
    "totals",
]

Matchup = tuple[str, str]
"""Two entrant names ``(a, b)`` with ``a < b``."""

_Stat = TypeVar("_Stat", WDL, Pentanomial)


def _matchup(record: GameRecord) -> Matchup:
    return (record.first, record.second) if record.first < record.second else (record.second, record.first)


class GamePairs:
    """The game pairs of a stream of games, completed as their second game arrives: the one grouping
    of games into pairs (by pairing and ``pair_id``), for :func:`pentanomials` and for an SPRT counted
    as games end (:class:`reports.stats.stopping.SprtStop`)."""

    def __init__(self) -> None:
        self._open: dict[tuple[Matchup, int], GameRecord] = {}
        self._closed: set[tuple[Matchup, int]] = set()

    def add(self, record: GameRecord) -> tuple[Matchup, Pentanomial] | None:
        """Count ``record``: when it completes its pair, the pairing ``(a, b)`` and the pair's
        pentanomial count from ``a``'s side; else None (the pair's first game, or self-play). Raises
        ValueError for a third game of a pair, or a second one with the same colours."""
        if record.first == record.second:
            return None
        group = (_matchup(record), record.pair_id)
        a, b = group[0]
        other = self._open.pop(group, None)
        if group in self._closed or (other is not None and other.first == record.first):
            raise ValueError(f"pair {record.pair_id} of {a} v {b} is not two games with colours swapped")
        if other is None:
            self._open[group] = record
            return None
        self._closed.add(group)
        return group[0], Pentanomial.from_pair_points(record.score_of(a) + other.score_of(a))


@dataclass(slots=True)
class Tally:
    """The per-pairing counts of games added one at a time (:meth:`add`): what :func:`head_to_head`,
    :func:`pentanomials`, :func:`distinct_games` and :func:`forfeits` return, counted in one pass
    (:class:`reports.stats.results.Results` adds each game once).

    Attributes:
        h2h: wins, draws, losses of ``a`` against ``b`` per pairing ``(a, b)``.
        pentanomials: the complete game pairs' pentanomial counts per pairing.
        forfeits: games forfeited, keyed ``(offender, opponent, Termination)``.
        games: games per pairing.
        seen: ``(first, moves)`` of each pairing's games, each distinct game once.
        pairs: the games grouped into pairs (None: pairs are not counted, ``pentanomials`` stays empty).
    """

    h2h: defaultdict[Matchup, WDL] = field(default_factory=lambda: defaultdict(WDL))
    pentanomials: defaultdict[Matchup, Pentanomial] = field(default_factory=lambda: defaultdict(Pentanomial))
    forfeits: Counter[tuple[str, str, Termination]] = field(default_factory=Counter)
    games: Counter[Matchup] = field(default_factory=Counter)
    seen: defaultdict[Matchup, set[tuple[str, tuple[int, ...]]]] = field(
        default_factory=lambda: defaultdict(set)
    )
    pairs: GamePairs | None = field(default_factory=GamePairs)

    def add(self, record: GameRecord) -> None:
        """Count one game (a game of an entrant against itself counts nowhere); raises ValueError as
        :meth:`GamePairs.add` does when pairs are counted."""
        if record.first == record.second:
            return
        key = _matchup(record)
        self.h2h[key] += WDL.from_result(record.score_of(key[0]))
        if self.pairs is not None and (pair := self.pairs.add(record)) is not None:
            self.pentanomials[key] += pair[1]
        if record.offender is not None:
            offender, opponent = (record.first, record.second)[:: 1 if record.offender == 1 else -1]
            self.forfeits[offender, opponent, Termination(record.termination)] += 1
        self.games[key] += 1
        self.seen[key].add((record.first, record.moves))

    @property
    def distinct(self) -> dict[Matchup, tuple[int, int]]:
        """``(distinct, games)`` per pairing (:func:`distinct_games`)."""
        return {key: (len(self.seen[key]), games) for key, games in self.games.items()}


def tally(records: Iterable[GameRecord], *, pairs: bool = True) -> Tally:
    """The :class:`Tally` of ``records``, in the order given, their game pairs counted when ``pairs``;
    raises ValueError as :meth:`Tally.add`."""
    counted = Tally() if pairs else Tally(pairs=None)
    for record in records:
        counted.add(record)
    return counted


def head_to_head(records: Iterable[GameRecord]) -> dict[Matchup, WDL]:
    """Wins, draws and losses of ``a`` against ``b`` for every pairing ``(a, b)`` that played.

    Forfeits count as the result recorded (a loss for the offender).
    """
    return dict(tally(records, pairs=False).h2h)


def pentanomials(records: Iterable[GameRecord]) -> dict[Matchup, Pentanomial]:
    """Pentanomial counts of ``a`` against ``b`` for every pairing with at least one complete pair
    (:class:`GamePairs`); a pair of one game (an interrupted run) is left out. Raises ValueError as
    :meth:`GamePairs.add` does."""
    return dict(tally(records).pentanomials)


def distinct_games(records: Iterable[GameRecord]) -> dict[Matchup, tuple[int, int]]:
    """``(distinct, games)`` for every pairing: how many of its games differ from each other.

    Two games are the same when the same entrant moved first and the moves, the opening included,
    are the same. Deterministic agents replay a game from the same start; such copies add no
    evidence, which is what openings are for.
    """
    return tally(records, pairs=False).distinct


def forfeits(records: Iterable[GameRecord]) -> Counter[tuple[str, str, Termination]]:
    """Games forfeited by offender, opponent and kind: ``counts[offender, opponent, Termination.TIMEOUT]``."""
    return tally(records, pairs=False).forfeits


def oriented(table: Mapping[Matchup, _Stat], a: str, b: str) -> _Stat:
    """``a``'s counts against ``b`` from a per-pairing table; raises KeyError if they never met."""
    return table[a, b] if a < b else table[b, a].flipped()


def totals(h2h: Mapping[Matchup, WDL]) -> dict[str, WDL]:
    """Wins, draws and losses of each entrant over all its games."""
    table: dict[str, WDL] = defaultdict(WDL)
    for (a, b), wdl in h2h.items():
        table[a] += wdl
        table[b] += wdl.flipped()
    return dict(table)


def score_matrix(h2h: Mapping[Matchup, WDL], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Points and games of ``names[i]`` against ``names[j]``: two float arrays of shape ``(n, n)``.

    Pairings that never met, the diagonal included, have 0 points out of 0 games.
    """
    index = {name: i for i, name in enumerate(names)}
    points = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    for (a, b), wdl in h2h.items():
        if a in index and b in index:
            i, j = index[a], index[b]
            points[i, j], points[j, i] = wdl.points, wdl.games - wdl.points
            games[i, j] = games[j, i] = wdl.games
    return points, games
