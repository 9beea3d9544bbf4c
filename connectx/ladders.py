"""A ladder from Python: :class:`Ladder`, a persistent rating list in a folder that new agents join.

``connectx ladder init|add|show|report|remove`` (:mod:`connectx.ladder`) is the command line over
its methods of the same names (``show`` is :attr:`Ladder.standings`)::

    import connectx

    ladder = connectx.Ladder("ladder")
    ladder.init(["random", "leftmost", "one_step"], pairs=1)   # seeded by a round robin
    ladder.add("minimax:depth=2", pairs=4)                    # plays until rated (or 4 pairs)
    ladder.standings                                          # a DataFrame, best first
    ladder                                                    # a notebook shows its rating list

The games are played by :mod:`tournament.ladder` and rated by :mod:`reports.stats.ladder`: every game
the ladder ever played is rated jointly, by maximum likelihood, afresh each time.
"""

from __future__ import annotations

import html
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.engine.board import geometry
from agents.kit.clock import DEFAULT_ACT_TIMEOUT
from agents.registry import DEFAULT_ENTRANTS
from connectx.entrants import entrant_specs
from tournament.driver import Backend, Started, Summary
from tournament.ladder import (
    RULES,
    Added,
    Candidate,
    LadderError,
    Member,
    Planned,
    Roster,
    Rules,
    identify,
    validate,
)
from tournament.ladder import Ladder as Games
from tournament.ladder.roster import ROSTER
from tournament.openings import resolve
from tournament.record import GameRecord
from tournament.schedule import Settings

if TYPE_CHECKING:
    import pandas as pd

    from reports.report import Report
    from reports.stats.kaggle import KaggleParameters
    from reports.stats.ladder import Entry

__all__ = ["DEFAULT_MAX_PAIRS", "DEFAULT_UNTIL", "LADDER_OPENINGS", "Ladder", "Rated", "Written", "scale"]

DEFAULT_UNTIL = 60.0
"""Elo: by default an add stops once the newcomer's 95 % interval is within ±60."""
DEFAULT_MAX_PAIRS = 200
"""Game pairs an add plays at most unless ``pairs`` says otherwise."""
LADDER_OPENINGS = 100
"""Random openings drawn for a ladder on a board without the built-in suite."""

Agent = str | os.PathLike[str] | Callable[..., Any]
"""An agent a ladder takes: a spec (``"negamax"``, ``"minimax:depth=4"``), a ``.py`` file, or a
callable (pickled into the ladder's ``agents/`` folder and played sandboxed:
:func:`connectx.entrants.entrant_spec`)."""
Progress = bool | Callable[[Any], None]
"""``True``: a progress bar (a notebook's in a notebook); ``False``: nothing; a callable: called with
each event (:class:`tournament.driver.Started`, a game's record, :class:`tournament.ladder.Planned`)."""


@dataclass(frozen=True, slots=True)
class Rated:
    """The ladder's ``roster``, its ``records`` (every game), its rating list ``entries`` (best
    first, :class:`reports.stats.ladder.Entry`) and the Kaggle-style parameters ``kaggle`` used."""

    roster: Roster
    records: list[GameRecord]
    entries: list[Entry]
    kaggle: KaggleParameters


@dataclass(frozen=True, slots=True)
class Written:
    """The reports :meth:`Ladder.report` wrote: the ``report`` (:class:`reports.report.Report`) of the
    ladder's ``games`` (how many it holds), the ``folder`` and the ``files`` in it."""

    report: Report
    games: int
    folder: Path
    files: tuple[str, ...]


def _backend(backend: str, workers: int | None, address: str | None) -> Backend:
    if address is not None and backend != "ray":
        raise LadderError("--address needs --backend ray")
    return Backend(backend, workers, address)


class Ladder:
    """The ladder in the folder ``path`` (``ladder/`` by default; :meth:`init` starts one there): its
    members' copies, its roster and one store of every game (:mod:`tournament.ladder`). Methods raise
    :class:`tournament.ladder.LadderError` (a ``ValueError``, one line) for a folder without a
    ladder, one another command is using, or bad input, with nothing stored changed."""

    def __init__(self, path: str | os.PathLike[str] = "ladder") -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"Ladder({str(self.path)!r})"

    def _games(self) -> Games:
        from reports.provenance import toolkit_version

        return Games(self.path, toolkit=toolkit_version())

    def init(
        self,
        agents: Sequence[Agent] = (),
        *,
        builtins: bool = False,
        pairs: int = 2,
        rows: int = 6,
        columns: int = 7,
        inarow: int = 4,
        act_timeout: float = DEFAULT_ACT_TIMEOUT,
        hang_limit: float | None = None,
        seed: int = 1,
        openings: str = "auto",
        workers: int | None = None,
        backend: str = "local",
        address: str | None = None,
        progress: Progress = True,
    ) -> Summary:
        """Start the ladder with ``agents`` (and, with ``builtins``, the default round robin's agents),
        seeded by a round robin of ``pairs`` game pairs a pairing on a ``rows`` x ``columns`` board,
        ``inarow`` to win, ``act_timeout`` seconds a move, from ``openings`` (as ``connectx run``'s)
        drawn with ``seed``; or finish that round robin when it was interrupted. ``workers`` games at
        once on ``backend`` (``"local"`` or ``"ray"`` at ``address``). Returns what was played
        (:class:`tournament.driver.Summary`: ``stored`` and ``failed`` games).

        Raises :class:`~connectx.entrants.AgentError` for a spec that does not load or a callable that
        cannot be sent; ``LadderError`` for a folder holding another ladder, a file agent that does not
        play or a board where no line fits; :class:`~agents.engine.board.InvalidBoardError` for a board
        too small or large;
        :class:`~tournament.openings.OpeningError` for openings the board cannot hold;
        :class:`~tournament.driver.BackendError` when the backend cannot play (all ``ValueError``
        but the last). ``KeyboardInterrupt`` keeps every game stored (the same ``init`` finishes the
        round robin).

        Example: ``Ladder("ladder").init(["random", "leftmost"], pairs=1)``."""
        from reports.provenance import toolkit_version

        texts = [*(DEFAULT_ENTRANTS if builtins else ()), *entrant_specs(agents, self.path)]
        candidates = [identify(text) for text in texts]
        geo = geometry(rows, columns, inarow)
        if not geo.winnable:
            raise LadderError(f"inarow {inarow} does not fit on a {rows}x{columns} board, so nobody can win")
        description, drawn = resolve(openings, geo, pairs=LADDER_OPENINGS, seed=seed)
        settings = Settings(
            entrants=(), games=pairs, rows=rows, columns=columns, inarow=inarow, act_timeout=act_timeout,
            hang_limit=hang_limit, seed=seed, openings=drawn, opening_source=description,
            toolkit=toolkit_version(),
        )  # fmt: skip
        ladder = self._games()
        chosen = _backend(backend, workers, address)
        known = ladder.roster() if (self.path / ROSTER).exists() else Roster()
        for candidate in candidates:
            if known.match(candidate) is None:
                validate(candidate, settings, chosen.limits)
        with _display(progress, "seeding", None) as on_event:
            return ladder.seed(settings, candidates, chosen, on_event)

    def add(
        self,
        agent: Agent,
        *,
        name: str | None = None,
        pairs: int | None = None,
        until: float | None = None,
        matchmaking: str = "information",
        workers: int | None = None,
        backend: str = "local",
        address: str | None = None,
        progress: Progress = True,
    ) -> Added:
        """Let ``agent`` join as ``name`` (default: the agent's; a changed file or changed parameters
        join as the next version, ``name@2``) and play game pairs against the members, where a pair
        tells the most about its rating (``matchmaking="information"``) or each in turn
        (``"uniform"``), until its 95 % interval is within ``±until`` Elo (default
        :data:`DEFAULT_UNTIL` unless only ``pairs`` is given) or it has played ``pairs`` game pairs in
        all (default :data:`DEFAULT_MAX_PAIRS`). Interrupted, the same add resumes. Returns what it
        did (:class:`tournament.ladder.Added`: the member, games played, its Elo and interval).

        Raises as :meth:`add_all`. Example: ``ladder.add("minimax:depth=2", pairs=4)``."""
        return next(
            self.add_all(
                [agent], name=name, pairs=pairs, until=until, matchmaking=matchmaking, workers=workers,
                backend=backend, address=address, progress=progress,
            )
        )  # fmt: skip

    def add_all(
        self,
        agents: Sequence[Agent],
        *,
        name: str | None = None,
        pairs: int | None = None,
        until: float | None = None,
        matchmaking: str = "information",
        workers: int | None = None,
        backend: str = "local",
        address: str | None = None,
        progress: Progress = True,
    ) -> Iterator[Added]:
        """:meth:`add` for each of ``agents`` in turn, every one checked before any plays; yields each
        :class:`~tournament.ladder.Added` as its add ends. Raises ``LadderError`` for a folder without
        a ladder (or with an unfinished seeding), a ``name`` given for several agents or one that
        cannot name a member, a file agent that does not play; ``AgentError`` for a spec that does not
        load; ``LadderError`` for ``pairs < 1``; :class:`~tournament.driver.BackendError`.
        ``KeyboardInterrupt`` keeps every game stored."""
        if name is not None and len(agents) > 1:
            raise LadderError("--name names one SPEC; add the others by commands of their own")
        if pairs is not None and pairs < 1:
            raise LadderError(f"pairs must be >= 1, got {pairs}")
        if matchmaking not in RULES:
            raise LadderError(f"matchmaking is one of {', '.join(RULES)}, not {matchmaking!r}")
        until = until if until is not None or pairs is not None else DEFAULT_UNTIL
        rules = Rules(pairs or DEFAULT_MAX_PAIRS, until, matchmaking)
        ladder = self._games()
        chosen = _backend(backend, workers, address)
        candidates = [identify(spec, name) for spec in entrant_specs(agents, self.path)]
        stored = ladder.settings()
        roster = ladder.roster()
        for candidate in candidates:
            if roster.match(candidate) is None:
                validate(candidate, stored, chosen.limits)
        return _adding(ladder, candidates, rules, chosen, progress)

    def remove(self, name: str) -> Member:
        """Retire the member ``name`` (``name@version``, or ``name`` when it has one version): it plays
        no more; its games stay rated. Returns it, retired. Raises ``LadderError`` for no such member,
        one retired already, or a folder without a ladder. Example: ``ladder.remove("leftmost")``."""
        return Games(self.path).retire(name)

    def rated(
        self,
        *,
        anchor: tuple[str, float] | None = None,
        sigma: float = 200.0,
        beta: float = 100.0,
        tau: float = 2.0,
    ) -> Rated:
        """The rating list of every game (:class:`Rated`): ML Elo with 95 % intervals, the mean of the
        rated members 0 unless ``anchor`` (member, Elo) holds one member at that Elo, and a
        Kaggle-style μ ± σ with ``sigma``, ``beta`` and ``tau`` (assumptions, in Elo-like points).
        Raises ``LadderError`` for a folder without a ladder, ``ValueError`` for a bad parameter or
        an anchor that is no member. Example: ``ladder.rated(anchor=("random", 0.0)).entries[0]``."""
        from reports.stats.kaggle import KaggleParameters
        from reports.stats.ladder import rating_list

        ladder = Games(self.path)
        kaggle = KaggleParameters(sigma=sigma, beta=beta, tau=tau)
        roster = ladder.roster()
        records = ladder.records()
        pinned = None if anchor is None else (roster.find(anchor[0]).id, anchor[1])
        return Rated(roster, records, rating_list(records, roster, anchor=pinned, kaggle=kaggle), kaggle)

    @property
    def standings(self) -> pd.DataFrame:
        """The rating list, best first: one row a member (index ``member``, ``name@version``) with
        ``elo``, ``low`` and ``high`` (its 95 % interval, Elo; NaN unrated, ±inf unbounded),
        ``games``, ``wins``, ``draws``, ``losses``, ``score`` (fraction of points), the Kaggle-style
        ``mu`` and ``sigma``, ``versions`` of its name, and ``added`` / ``retired`` (ISO 8601 UTC,
        ``retired`` None while it plays). Example: ``ladder.standings.loc["negamax@1", "elo"]``."""
        from reports.render.ladder import standings_frame

        return standings_frame(self.rated().entries)

    def report(
        self,
        out: str | os.PathLike[str] | None = None,
        *,
        anchor: tuple[str, float] | None = None,
        sigma: float = 200.0,
        beta: float = 100.0,
        tau: float = 2.0,
    ) -> Written:
        """Write the reports ``connectx run`` writes (``report.html`` and the rest), of every game, with
        ``ladder.md`` (the rating list) and ``history.png`` (the ratings as members joined), into
        ``out`` (default: the ladder's folder); the scale as :meth:`rated`. Raises ``LadderError``
        for a ladder without games between two members. Example: ``ladder.report("out").folder``."""
        from reports.render.documents import write_all
        from reports.render.ladder import write_page
        from reports.report import assemble

        rated = self.rated(anchor=anchor, sigma=sigma, beta=beta, tau=tau)
        roster, records = rated.roster, rated.records
        if not records:
            raise LadderError(f"{self.path} holds no games yet: `connectx ladder add SPEC` plays some")
        folder = Path(out or self.path)
        title = f"Ladder {self.path.resolve().name}"
        kind = (
            f"ladder: {len(roster.members)} members, {len(roster.sessions)} additions (ladder.md lists them)"
        )
        report = assemble(records, Games(self.path).settings(), name=title.lower(), kind=kind)
        if report is None:
            raise LadderError(f"{self.path} holds no game between two different members yet")
        paths = write_all(report, folder)
        page = write_page(folder, title, rated.entries, records, roster, rated.kaggle, scale(anchor))
        return Written(report, len(records), folder, (*(p.name for p in paths.values()), *page))

    def _repr_html_(self) -> str:
        from reports.render.ladder import list_frame

        try:
            rated = self.rated()
        except LadderError as error:
            return f"<p>{html.escape(str(error))}</p>"
        members = f"{len(rated.roster.members)} members, {len(rated.records)} games"
        table: str = list_frame(rated.entries).to_html(index=False, na_rep="")
        return f"<div><p><b>{self.path.resolve().name}</b>: {members}</p>{table}</div>"


def scale(anchor: tuple[str, float] | None) -> str:
    """What the Elo scale's zero is, in words."""
    if anchor is None:
        return "the mean of the rated members is 0"
    return f"{anchor[0]} held at {anchor[1]:+g}"


def _adding(
    ladder: Games, candidates: list[Candidate], rules: Rules, backend: Backend, progress: Progress
) -> Iterator[Added]:
    """Play the add of each of ``candidates`` in turn (:meth:`Ladder.add_all`)."""
    from reports.stats.ladder import LadderRater

    for candidate in candidates:
        with _display(progress, f"adding {candidate.name}", rules.pairs) as on_event:
            yield ladder.add(candidate, rules, LadderRater(), backend, on_event)


class _display:
    """The progress of a seeding or an add as ``progress`` asks (:data:`Progress`): a tqdm.auto bar
    over the games (of ``pairs`` game pairs at most, when known), the newcomer's standing beside it."""

    def __init__(self, progress: Progress, what: str, pairs: int | None) -> None:
        self.progress, self.what, self.pairs = progress, what, pairs
        self.bar: Any = None

    def __enter__(self) -> Callable[[Any], None]:
        if callable(self.progress):
            return self.progress
        return self.event if self.progress else lambda event: None

    def event(self, event: Any) -> None:
        if isinstance(event, Started) and self.bar is None:
            from tqdm.auto import tqdm

            total = event.scheduled if self.pairs is None else 2 * self.pairs
            self.bar = tqdm(total=total, initial=event.stored if self.pairs is None else 0, unit="game")
            self.bar.set_description_str(self.what)
        elif isinstance(event, GameRecord) and self.bar is not None:
            self.bar.update()
        elif isinstance(event, Planned):
            if self.bar is not None and math.isfinite(event.margin):
                self.bar.set_postfix_str(f"Elo {event.elo:+.0f} ±{event.margin:.0f}")
        elif not isinstance(event, Started | GameRecord):
            print(f"warning: {event}", file=sys.stderr)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()
