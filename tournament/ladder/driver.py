"""Play a ladder's games: the round robin that seeds it (:meth:`Ladder.seed`) and each newcomer's game
pairs (:meth:`Ladder.add`), through the same driver, sandbox, openings and store as ``connectx run``.

A ladder folder holds its roster (:mod:`tournament.ladder.roster`), its store in ``games/`` (one
:class:`~tournament.store.Store` for every game the ladder ever played, its entrants the members'
``name@version``) and the copies of its members' files in ``agents/``. Every game is played by
:class:`tournament.driver.Tournament`, which holds the store's run lock for as long as the command
runs (a second command on the ladder is refused), stores each game as it ends and plays each member
from its spec (``players``).

**An add** plays game pairs of the newcomer against the members taking part, a few at a time
(``pairs`` at once; the caller makes it one a worker), each planned from the games stored before
it: the joint fit of those games (:meth:`Rater.outlook`) goes to
:func:`tournament.ladder.matchmaking.choose`. Game pair ``p`` is games ``2p`` (the newcomer first)
and ``2p + 1`` (colours swapped), from the opening the k-th pair of that pairing plays
(:func:`tournament.openings.pair_openings`, as in a round robin) and with the seed
:func:`tournament.schedule.schedule` gives pair ``p``. Before each batch the stop rule
(:class:`Rules`) looks at the same games: it stops once the newcomer has played ``pairs`` game pairs
in all, or once its 95 % interval (:meth:`Rater.standing`) is within ``±until`` Elo.

**Resuming.** Each plan is a function of the games stored before it, so an ``add`` interrupted
(Ctrl-C, ``kill -9``) and run again re-plans the batch it was in from the same games, plays the
games of it not stored yet, and goes on: nothing lost, nothing played twice, and the same games as
an ``add`` never interrupted (for agents whose games depend on their seeds alone). The ``add``'s
session in the roster (its first pair and pairs at once) says where its batches begin.

Layering: the fits are :mod:`reports`' (above this package); the caller hands them in as a
:class:`Rater`, as ``connectx sprt`` hands the driver its SPRT (:mod:`tournament.driver`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import math
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from tournament.driver import Backend, Event, Summary, Tournament
from tournament.ladder.admission import same_board
from tournament.ladder.matchmaking import Outlook, choose
from tournament.ladder.roster import GAMES, Candidate, LadderError, Member, Roster, Session, keep_files
from tournament.openings import pair_openings
from tournament.record import GameRecord
from tournament.schedule import GameTask, Settings, pair_seed
from tournament.store import Store, StoreError
from tournament.store.locks import held

__all__ = ["Added", "Ladder", "Planned", "Rater", "Rules", "reach"]


class Rater(Protocol):
    """The fits an ``add`` needs, made by the caller (:class:`reports.stats.ladder.LadderRater`)."""

    def outlook(self, records: Sequence[GameRecord], newcomer: str) -> Outlook | None:
        """The joint fit of ``records`` as matchmaking reads it (:class:`~.matchmaking.Outlook`), or None
        when there is none (matchmaking then plays the members in turn)."""

    def standing(self, records: Sequence[GameRecord], name: str) -> tuple[float, float, float]:
        """``name``'s maximum-likelihood Elo and its 95 % interval ``(elo, low, high)``, as the rating
        list shows them (an unbounded rating: ``±inf`` and its one-sided bound, the other side
        infinite; no games or no rating: nan and ``(-inf, inf)``)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """How an ``add`` plays: it stops once the newcomer has played ``pairs`` game pairs in all its
    adds, or once its 95 % interval is within ``±until`` Elo (either may be None: not that rule);
    ``matchmaking`` is a rule of :mod:`tournament.ladder.matchmaking`."""

    pairs: int | None = None
    until: float | None = 60.0
    matchmaking: str = "information"


def reach(elo: float, low: float, high: float) -> float:
    """How far the 95 % interval ``low`` to ``high`` reaches from ``elo``, the larger side: what the
    stop rule compares with ``±until`` (``inf`` for no rating or an unbounded one)."""
    if not all(math.isfinite(x) for x in (elo, low, high)):
        return math.inf
    return max(elo - low, high - elo)


@dataclass(frozen=True, slots=True)
class Planned:
    """An ``add`` plans a batch: after ``pairs`` game pairs the newcomer's Elo is ``elo`` (nan before
    its first game) with the 95 % interval ``low`` to ``high`` (:meth:`Rater.standing`), ``margin``
    its :func:`reach`; pairs ``first_pair``, ... are played against ``opponents``."""

    pairs: int
    elo: float
    low: float
    high: float
    first_pair: int
    opponents: tuple[str, ...]

    @property
    def margin(self) -> float:
        """How far the interval reaches from the Elo (:func:`reach`)."""
        return reach(self.elo, self.low, self.high)


@dataclass(frozen=True, slots=True)
class Added:
    """What an ``add`` did: the ``member`` that played (``new`` when this add made it), whether it
    ``resumed`` an interrupted add, the games ``played`` and ``failed`` (the referee failed on them:
    not stored, played by the next add), the newcomer's ``pairs``, ``elo`` and 95 % interval ``low``
    to ``high`` when it stopped (the fit :class:`Planned` shows), and ``why``: ``"pairs"``,
    ``"until"``, ``"alone"`` (no other member takes part) or ``"failed"``."""

    member: Member
    new: bool
    resumed: bool
    played: int
    failed: int
    pairs: int
    elo: float
    low: float
    high: float
    why: str

    @property
    def margin(self) -> float:
        """How far the interval reaches from the Elo (:func:`reach`)."""
        return reach(self.elo, self.low, self.high)


_T = TypeVar("_T")

_UNRATED = (math.nan, -math.inf, math.inf)
"""The standing of a newcomer without games."""


def now() -> str:
    """The time, ISO 8601 UTC to the second."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class Ladder:
    """The ladder in the folder ``directory`` (module docstring); ``toolkit`` names the toolkit that
    adds members (kept with each)."""

    def __init__(self, directory: Path, *, toolkit: str = "") -> None:
        self.directory = Path(directory)
        self.games = self.directory / GAMES
        self.toolkit = toolkit

    def roster(self) -> Roster:
        """The roster; :class:`LadderError` when the folder holds no ladder."""
        return Roster.load(self.directory)

    def settings(self) -> Settings:
        """The stored settings (board, time, openings, seed, entrants); :class:`LadderError` when the
        folder holds no ladder, :class:`~tournament.store.StoreError` when its store cannot be read."""
        self.roster()
        with Store.open(self.games) as store:
            return store.settings()

    def records(self) -> list[GameRecord]:
        """Every game of the ladder, by game id."""
        self.roster()
        with Store.open(self.games) as store:
            return store.records()

    def seed(
        self,
        settings: Settings,
        candidates: Sequence[Candidate],
        backend: Backend = Backend(),  # noqa: B008 - immutable
        on_event: Callable[[Event], None] = lambda event: None,
    ) -> Summary:
        """Start the ladder with ``candidates``, playing the round robin of ``settings`` (its ``games``
        game pairs a pairing, its board, time, openings and seed) among them; or finish that round
        robin when the folder holds the same ladder, interrupted. Raises :class:`LadderError` when the
        folder holds another ladder, or one seeded already."""
        members = _first_members(candidates, now(), self.toolkit)
        ids = tuple(member.id for member in members)
        if len(set(ids)) != len(ids):
            raise LadderError("an agent is listed twice")
        settings = dataclasses.replace(settings, entrants=ids, gauntlet=False, sprt=None)
        session = Session("seed", ids, 0, settings.games, now())
        try:
            roster: Roster | None = self.roster()
        except LadderError:
            roster = None
        if roster is not None:
            stored = self.settings()
            same_board(stored, settings, self.directory)
            seeded = roster.sessions[0] if roster.sessions else None
            if seeded is None or seeded.ended or (seeded.members, seeded.pairs) != (ids, settings.games):
                raise LadderError(
                    f"{self.directory} holds a ladder already ({len(roster.members)} members); "
                    "`connectx ladder add SPEC` adds to it"
                )
            settings, session = stored, seeded
        with self._locked(Tournament(self.games, settings, backend)) as tournament:
            if roster is None:
                for candidate in candidates:
                    keep_files(candidate, self.directory)
                roster = Roster(tuple(members), (session,))
                roster.save(self.directory)
            summary = tournament.play(on_event=on_event, players=_players(roster, self.directory))
            if not summary.failed:
                roster.with_session(dataclasses.replace(session, ended=True)).save(self.directory)
        return summary

    def add(
        self,
        candidate: Candidate,
        rules: Rules,
        rater: Rater,
        backend: Backend = Backend(),  # noqa: B008 - immutable
        on_event: Callable[[Event | Planned], None] = lambda event: None,
    ) -> Added:
        """Let ``candidate`` join (a new member or version, or a member already there, whose add goes
        on) and play its game pairs until ``rules`` stop it (module docstring). Raises
        :class:`LadderError` for a folder without a ladder or one whose seeding round robin is
        unfinished, :class:`~tournament.store.StoreError` when the store cannot be used, and lets
        ``KeyboardInterrupt`` through (the games stored stay; the next add resumes)."""
        roster = self.roster()
        if roster.sessions and roster.sessions[0].kind == "seed" and not roster.sessions[0].ended:
            raise LadderError(
                f"the round robin that seeds {self.directory} is unfinished: run the same "
                "`connectx ladder init` again to finish it first"
            )
        stored = self.settings()
        pairs_at_once = backend.workers or os.cpu_count() or 1  # one pair a worker
        with self._locked(Tournament(self.games, stored, backend)) as tournament:
            roster = self.roster()  # under the store's lock now
            member = roster.admit(candidate, added=now(), toolkit=self.toolkit)
            new = member.id not in roster.ids
            if new:
                keep_files(candidate, self.directory)
            elif member.retired is not None:
                member = dataclasses.replace(member, retired=None)  # it takes part again
            records = tournament.store.records()
            last = roster.sessions[-1] if roster.sessions else None
            resumed = (
                last is not None and last.kind == "add" and last.members == (member.id,) and not last.ended
            )
            if resumed and last is not None:
                session = last
            else:
                start = 1 + max((record.pair_id for record in records), default=-1)
                session = Session("add", (member.id,), start, pairs_at_once, now())
            roster = roster.with_member(member).with_session(session)
            roster.save(self.directory)
            tournament.store.add_entrants([member.id])
            play = _Play(tournament, stored, member, roster, rules, rater, self.directory, on_event)
            added = play.run(session, records)
            if added.why != "failed":
                roster.with_session(dataclasses.replace(session, ended=True)).save(self.directory)
        return dataclasses.replace(added, new=new, resumed=resumed)

    @contextlib.contextmanager
    def _locked(self, opened: AbstractContextManager[_T]) -> Iterator[_T]:
        """Enter ``opened`` (a :class:`Tournament` or :class:`Store` of the ladder's games, which takes
        the store's run lock); :class:`LadderError` in the ladder's words when another command holds
        the lock, where the store's own message would name ``connectx run``'s ``--out``."""
        with contextlib.ExitStack() as stack:
            try:
                entered = stack.enter_context(opened)
            except StoreError:
                if not held(self.games):
                    raise
                raise LadderError(
                    f"{self.directory} is in use by another `connectx ladder` command; wait for it to "
                    "end or choose another --ladder"
                ) from None
            yield entered

    def retire(self, name: str) -> Member:
        """Retire the member ``name`` names (:meth:`Roster.find`): it plays no more, and its games and
        rating stay. Raises :class:`LadderError` for no such member or one retired already."""
        stored = self.settings()
        with self._locked(Store.create(self.games, stored)):  # its lock: no add meanwhile
            roster = self.roster()
            member = roster.find(name)
            if member.retired is not None:
                raise LadderError(f"{member.id} was retired already, on {member.retired}")
            member = dataclasses.replace(member, retired=now())
            roster.with_member(member).save(self.directory)
        return member


class _Play:
    """The loop of one ``add`` (module docstring)."""

    def __init__(
        self,
        tournament: Tournament,
        settings: Settings,
        member: Member,
        roster: Roster,
        rules: Rules,
        rater: Rater,
        directory: Path,
        on_event: Callable[[Event | Planned], None],
    ) -> None:
        self.tournament, self.settings, self.member, self.rules = tournament, settings, member, rules
        self.rater, self.on_event = rater, on_event
        self.name = member.id
        self.opponents = [m.id for m in roster.active if m.id != member.id]
        self.players = _players(roster, directory)

    def run(self, session: Session, records: list[GameRecord]) -> Added:
        """Play batches from where ``session`` stands in ``records`` until the rules stop it."""
        first = session.first_pair
        mine = [r.pair_id for r in records if self.name in (r.first, r.second) and r.pair_id >= first]
        if mine:  # resumed: back to the start of the batch it was in
            first += (max(mine) - first) // session.pairs * session.pairs
        played = failed = 0
        while True:
            before = [r for r in records if r.pair_id < first]
            games = [r for r in before if self.name in (r.first, r.second) and r.first != r.second]
            pairs = len({r.pair_id for r in games})
            elo, low, high = self.rater.standing(before, self.name) if games else _UNRATED
            why = self._why(pairs, reach(elo, low, high))
            if why is not None:
                return Added(self.member, False, False, played, failed, pairs, elo, low, high, why)
            count = (
                session.pairs if self.rules.pairs is None else min(session.pairs, self.rules.pairs - pairs)
            )
            met = Counter(opponent for _, opponent in {(r.pair_id, _opponent(r, self.name)) for r in games})
            informed = self.rules.matchmaking == "information"
            outlook = self.rater.outlook(before, self.name) if informed else None
            chosen = choose(outlook, self.name, self.opponents, count, rule=self.rules.matchmaking, pairs=met)
            tasks = self._tasks(first, chosen, met)
            self.on_event(Planned(pairs, elo, low, high, first, tuple(chosen)))
            summary = self.tournament.play(on_event=self.on_event, tasks=tasks, players=self.players)
            played, failed = played + summary.played, failed + summary.failed
            records = self.tournament.store.records()
            if summary.failed:
                return Added(self.member, False, False, played, failed, pairs, elo, low, high, "failed")
            first += len(chosen)

    def _why(self, pairs: int, margin: float) -> str | None:
        if self.rules.pairs is not None and pairs >= self.rules.pairs:
            return "pairs"
        if self.rules.until is not None and margin <= self.rules.until:
            return "until"
        return None if self.opponents else "alone"

    def _tasks(self, first: int, opponents: Sequence[str], met: Counter[str]) -> list[GameTask]:
        """The games of pairs ``first``, ``first + 1``, ... against ``opponents`` (module docstring);
        ``met`` counts the pairs already played against each."""
        s = self.settings
        met = Counter(met)
        tasks = []
        for pair, opponent in enumerate(opponents, start=first):
            opening = pair_openings(s.openings, met[opponent] + 1, s.seed)[met[opponent]]
            met[opponent] += 1
            seed = pair_seed(s.seed, pair)
            for k, (a, b) in enumerate(((self.name, opponent), (opponent, self.name))):
                tasks.append(GameTask(game_id=2 * pair + k, pair_id=pair, first=a, second=b, rows=s.rows,
                                      columns=s.columns, inarow=s.inarow, act_timeout=s.act_timeout,
                                      hang_limit=s.hang_limit, seed=seed, opening=opening))  # fmt: skip
        return tasks


def _opponent(record: GameRecord, name: str) -> str:
    """The entrant that played ``name`` in ``record``."""
    return record.second if record.first == name else record.first


def _players(roster: Roster, directory: Path) -> dict[str, str]:
    """Each member's id -> the spec that plays it from ``directory``."""
    return {member.id: member.played_as(directory) for member in roster.members}


def _first_members(candidates: Sequence[Candidate], added: str, toolkit: str) -> list[Member]:
    """The members that ``candidates`` make on an empty ladder, in order."""
    roster = Roster()
    members = []
    for candidate in candidates:
        member = roster.admit(candidate, added=added, toolkit=toolkit)
        roster = roster.with_member(member)
        members.append(member)
    return members
