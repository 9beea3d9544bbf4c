"""What a tournament report shows, gathered from a tournament's records and settings: :func:`build`.

A :class:`Report` is plain data, already counted and formatted where a number needs words (Elo
labels, results); :mod:`reports.html` and :mod:`reports.markdown` only lay it out, so the two files
can never disagree. Sections, in the order the report shows them: header, entrants, standings,
crosstable and LOS, results by colour, terminations (with every forfeit's message), time use, game
lengths, and the games of every pairing with the compact replay data of :func:`replay_data`.

Units: seconds for times, plies (moves, the opening included) for lengths, score as points per game
(0..1) or percent where named ``_pct``. Self-play games (an entrant against itself) count nowhere, as
in :mod:`reports.tally`.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import BUILTIN, KAGGLE_BUILTIN
from reports.frames import notation
from reports.progress import Checkpoint, progression
from reports.ratings import Rating, los_matrix, rate
from reports.sprt import Sprt
from reports.stats import WDL
from reports.tables import standings
from reports.tally import forfeits, head_to_head, oriented, pentanomials, score_matrix
from reports.write import notes
from tournament.record import GameRecord, Termination
from tournament.schedule import Settings
from tournament.store import Store

__all__ = [
    "BANK",
    "ColourRow",
    "Crosstable",
    "Entrant",
    "Forfeit",
    "GameRow",
    "Header",
    "LengthRow",
    "Pairing",
    "Report",
    "Standing",
    "TerminationRow",
    "TimeUse",
    "build",
    "forfeit_summary",
    "load",
    "replay_data",
]

BANK = 60.0
"""Kaggle's overage bank: seconds an agent may spend beyond ``actTimeout``, summed over a game
(``remainingOverageTime``; the runner's ``MAX_OVERAGE``, not imported because the runner imports the
whole referee)."""

FORFEITS = (Termination.INVALID, Termination.TIMEOUT, Termination.ERROR)


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


@dataclass(frozen=True, slots=True)
class Entrant:
    """An entrant: ``spec`` as given, ``kind`` (``ours``, ``kaggle``, ``file``), what it is, its
    parameters (``"depth=2"`` or ""), and for a file agent the SHA-256 of the file as it is when the
    report is written (``"missing"`` if it is gone; "" for other kinds)."""

    spec: str
    kind: str
    description: str
    params: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings; ``elo`` is :meth:`reports.ratings.Rating.label` (an interval or a bound)."""

    rank: int
    agent: str
    elo: str
    games: int
    wins: int
    draws: int
    losses: int
    score_pct: float
    invalid: int
    timeouts: int
    errors: int


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Agents in standings order; ``wdl[i][j]`` the row agent's results against the column agent
    (None where they never met, the diagonal included), ``forfeited[i][j]`` the row agent's forfeits
    in those games (``"2 invalid, 1 timeout"`` or ""), ``los[i][j]`` its likelihood of superiority
    (0..1, None on the diagonal or where the games do not order them)."""

    order: list[str]
    wdl: list[list[WDL | None]]
    forfeited: list[list[str]]
    los: list[list[float | None]]


@dataclass(frozen=True, slots=True)
class ColourRow:
    """An agent's results moving first and moving second: over all games (``opponent`` "") or
    against one opponent."""

    agent: str
    opponent: str
    first: WDL
    second: WDL


@dataclass(frozen=True, slots=True)
class TerminationRow:
    """How an agent's games ended: won and lost by N in a row, drawn, won by the opponent's
    forfeit and lost by its own, by kind (``Termination`` values as keys)."""

    agent: str
    games: int
    connected_wins: int
    connected_losses: int
    draws: int
    opponent_forfeits: dict[str, int]
    own_forfeits: dict[str, int]


@dataclass(frozen=True, slots=True)
class Forfeit:
    """One forfeited game: who forfeited, how, after how many plies, and the message (``detail``,
    possibly a multi-line traceback)."""

    game_id: int
    agent: str
    opponent: str
    kind: str
    ply: int
    detail: str


@dataclass(frozen=True, slots=True)
class TimeUse:
    """Seconds per agent call over all its games (``calls`` of them, the opening excluded), and the
    most overage bank it drew in one game (seconds beyond ``actTimeout`` summed over the game) with
    that game's id (None when it never drew on it)."""

    agent: str
    calls: int
    median: float
    p95: float
    max: float
    bank_used: float
    bank_game: int | None


@dataclass(frozen=True, slots=True)
class LengthRow:
    """Game lengths in plies over ``games`` games of one pairing (``"A v B"``) or of all."""

    label: str
    games: int
    shortest: int
    median: float
    mean: float
    longest: int


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game in a pairing's list. ``result`` is ``1-0``, ``½-½`` or ``0-1`` from ``first``'s side;
    ``ending`` says how it ended in words (``4 in a row``, ``draw``, ``middle invalid``)."""

    game_id: int
    pair_id: int
    first: str
    second: str
    opening: str
    result: str
    ending: str
    plies: int


@dataclass(frozen=True, slots=True)
class Pairing:
    """The games of two agents, by game id."""

    a: str
    b: str
    games: list[GameRow]


@dataclass(frozen=True, slots=True)
class Report:
    """Everything one tournament's report shows (see the module docstring). ``records``,
    ``ratings`` and ``progress`` are kept for the figures; ``replays`` is :func:`replay_data`."""

    header: Header
    entrants: list[Entrant]
    standings: list[Standing]
    notes: list[str]
    crosstable: Crosstable
    by_colour: list[ColourRow]
    terminations: list[TerminationRow]
    forfeits: list[Forfeit]
    time_use: list[TimeUse]
    lengths: list[LengthRow]
    pairings: list[Pairing]
    replays: dict[str, Any]
    records: list[GameRecord]
    ratings: list[Rating]
    progress: list[Checkpoint]
    settings: Settings

    @property
    def title(self) -> str:
        """``ConnectX tournament: NAME``."""
        return f"ConnectX tournament: {self.header.name}"


def load(directory: Path | str) -> Report:
    """The :class:`Report` of the tournament stored in ``directory``.

    Raises:
        tournament.store.StoreError: no tournament there.
        ValueError: no game between two different agents yet.
    """
    directory = Path(directory)
    with Store.open(directory) as store:
        return build(store.records(), store.settings(), name=directory.resolve().name)


def build(records: Sequence[GameRecord], settings: Settings, *, name: str) -> Report:
    """The :class:`Report` of ``records`` played under ``settings``; ``name`` titles it.

    Raises:
        ValueError: no game between two different agents; see also :func:`reports.ratings.rate`.
    """
    records = sorted(records, key=lambda record: record.game_id)
    h2h = head_to_head(records)
    if not h2h:
        raise ValueError("no game between two different agents to report")
    pentas = pentanomials(records)
    ratings = rate(h2h, pentas)
    order = [rating.name for rating in ratings]
    table = standings(records, ratings)
    played = [record for record in records if record.first != record.second]
    return Report(
        header=_header(records, settings, name),
        entrants=[_entrant(spec) for spec in settings.entrants],
        standings=[
            Standing(
                rank,
                row.agent,
                rating.label(),
                row.games,
                row.wins,
                row.draws,
                row.losses,
                row.score_pct,
                row.invalid,
                row.timeouts,
                row.errors,
            )  # fmt: skip
            for rank, (row, rating) in enumerate(zip(table.itertuples(), ratings, strict=True), start=1)
        ],
        notes=notes(records, table),
        crosstable=_crosstable(played, order),
        by_colour=_by_colour(played, order),
        terminations=_terminations(played, order),
        forfeits=_forfeits(played),
        time_use=_time_use(played, order),
        lengths=_lengths(played, order),
        pairings=_pairings(records, order),
        replays=replay_data(records),
        records=records,
        ratings=ratings,
        progress=progression(records),
        settings=settings,
    )


def replay_data(records: Sequence[GameRecord]) -> dict[str, Any]:
    """The games as the page's replay player reads them: JSON-ready, a few bytes a move.

    ``{"agents": [names], "games": {"<game id>": game}}`` where a game is ``{"p": [first, second]``
    (indices into ``agents``), ``"b": [rows, columns, inarow]``, ``"m"``: the moves (0-based columns,
    the opening included), ``"o"``: how many of them are the opening, ``"t"``: each agent call's time
    in tenths of a millisecond (from the first call after the opening), ``"r"``: ``first``'s score
    times 2 (2, 1, 0), ``"e"``: the termination, ``"x"``: the offending mark (0 if none), and
    ``"d"``: the forfeit's message, only when there is one``}``.
    """
    names = sorted({name for record in records for name in (record.first, record.second)})
    index = {name: k for k, name in enumerate(names)}
    games: dict[str, Any] = {}
    for record in records:
        game: dict[str, Any] = {
            "p": [index[record.first], index[record.second]],
            "b": [record.rows, record.columns, record.inarow],
            "m": list(record.moves),
            "o": len(record.opening),
            "t": [round(seconds * 10_000) for seconds in record.move_times],
            "r": round(2 * record.result),
            "e": str(record.termination),
            "x": record.offender or 0,
        }
        if record.detail:
            game["d"] = record.detail
        games[str(record.game_id)] = game
    return {"agents": names, "games": games}


def forfeit_summary(forfeits: Sequence[Forfeit]) -> list[str]:
    """Lines for a terminal: every forfeit, grouped by agent, kind and message.

    A message's summary is its last line (an exception's type and text, after any traceback) without
    the ``mark N`` that starts it, so the same crash as first and as second player is one group:
    ``  crash.py: 3 error (games 6, 16, 17): raised AttributeError: 'Struct' object has no ...``.
    No forfeit gives no line.
    """
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for forfeit in forfeits:
        lines = [line.strip() for line in forfeit.detail.splitlines() if line.strip()]
        summary = lines[-1] if lines else "(no message)"
        if summary.startswith("mark ") and summary[5:6].isdigit():
            summary = summary[6:].lstrip()
        groups[forfeit.agent, forfeit.kind, summary].append(forfeit.game_id)
    if not groups:
        return []
    lines = [f"forfeits ({len(forfeits)} games; full messages in report.html, section Terminations):"]
    for (agent, kind, summary), games in groups.items():
        shown = ", ".join(map(str, games[:8])) + (", ..." if len(games) > 8 else "")
        lines.append(
            f"  {agent}: {len(games)} {kind} (game{'s' if len(games) > 1 else ''} {shown}): {summary}"
        )
    return lines


def format_seconds(seconds: float) -> str:
    """``0.4 ms``, ``12.3 ms``, ``1.25 s``, ``3 min 4 s``, ``2 h 05 min``: a duration for people."""
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def _header(records: list[GameRecord], settings: Settings, name: str) -> Header:
    starts = [_time(record.started_at) for record in records if record.started_at]
    dates = ""
    if starts:
        first, last = min(starts), max(starts)
        dates = f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC"
    if settings.sprt is not None:
        kind = f"SPRT: {settings.entrants[0]} against {settings.entrants[1]}, game pairs"
        scheduled = f"at most {2 * settings.games}"
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
        time_control=f"actTimeout {settings.act_timeout:g} s a move, overage bank {BANK:g} s a game{hang}",
        seed=settings.seed,
        format=kind,
        openings=openings,
        games=f"{len(records)} played of {scheduled} scheduled",
        dates=dates or "unknown",
        wall_time=format_seconds(_busy_seconds(records)) + " with games in flight",
        workers=str(settings.workers) if settings.workers is not None else "not recorded",
        cores=str(settings.cores) if settings.cores is not None else "not recorded",
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        sprt=_sprt_line(records, settings),
    )


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _busy_seconds(records: list[GameRecord]) -> float:
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


def _sprt_line(records: list[GameRecord], settings: Settings) -> str:
    """``elo0 0, elo1 10, ...: pairs 12 [...] LLR ...; H1 accepted`` for an SPRT match, else ""."""
    if settings.sprt is None:
        return ""
    test = Sprt(*settings.sprt)
    a, b = settings.entrants[:2]
    pentas = pentanomials(records)
    key = (a, b) if a < b else (b, a)
    counts = oriented(pentas, a, b) if key in pentas else None
    if counts is None:
        return f"{test.describe()}: no complete pair yet"
    status = test.status(counts)
    verdict = f"{status.decision} accepted" if status.decision else "no decision"
    return f"{test.describe()}: {status.format()}; {verdict}"


def _entrant(spec: str) -> Entrant:
    """What ``spec`` names, read from the registry without loading the agent."""
    if spec in KAGGLE_BUILTIN:
        return Entrant(spec, "kaggle", f"kaggle-environments' built-in {KAGGLE_BUILTIN[spec]!r}", "", "")
    name, _, params = spec.partition(":")
    if name in BUILTIN:
        doc = (importlib.import_module(BUILTIN[name]).__doc__ or "").strip().splitlines()
        line = doc[0].replace("``", "") if doc else ""  # "random: a uniformly random legal column."
        return Entrant(spec, "ours", line.removeprefix(f"{name}:").strip(), params.replace(",", ", "), "")
    path = Path(spec)
    digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    return Entrant(spec, "file", f"file agent {os.path.abspath(spec)}", "", digest)


def _forfeit_text(counts: Counter[str]) -> str:
    return ", ".join(f"{counts[kind]} {kind}" for kind in FORFEITS if counts[kind])


def _crosstable(records: list[GameRecord], order: list[str]) -> Crosstable:
    h2h = head_to_head(records)
    _, games = score_matrix(h2h, order)
    forfeited: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for record in records:
        if record.offender is not None:
            offender, opponent = _sides(record, record.offender)
            forfeited[offender, opponent][str(record.termination)] += 1
    los = los_matrix(h2h, pentanomials(records), order=order)
    size = len(order)
    return Crosstable(
        order=list(order),
        wdl=[
            [oriented(h2h, order[i], order[j]) if games[i, j] else None for j in range(size)]
            for i in range(size)
        ],
        forfeited=[[_forfeit_text(forfeited[order[i], order[j]]) for j in range(size)] for i in range(size)],
        los=[[None if np.isnan(los[i, j]) else float(los[i, j]) for j in range(size)] for i in range(size)],
    )


def _sides(record: GameRecord, mark: int) -> tuple[str, str]:
    """``(the entrant playing mark, its opponent)``."""
    return (record.first, record.second) if mark == 1 else (record.second, record.first)


def _by_colour(records: list[GameRecord], order: list[str]) -> list[ColourRow]:
    tally: dict[tuple[str, str, int], WDL] = defaultdict(WDL)
    for record in records:
        for mark in (1, 2):
            agent, opponent = _sides(record, mark)
            result = WDL.from_result(record.score_of(agent))
            tally[agent, "", mark] += result
            tally[agent, opponent, mark] += result
    rows = []
    for agent in order:
        for opponent in ["", *(name for name in order if name != agent)]:
            if (agent, opponent, 1) in tally or (agent, opponent, 2) in tally:
                rows.append(ColourRow(agent, opponent, tally[agent, opponent, 1], tally[agent, opponent, 2]))
    return rows


def _terminations(records: list[GameRecord], order: list[str]) -> list[TerminationRow]:
    games: Counter[str] = Counter()
    connected: Counter[tuple[str, bool]] = Counter()
    draws: Counter[str] = Counter()
    for record in records:
        games[record.first] += 1
        games[record.second] += 1
        if record.termination == Termination.DRAW:
            draws[record.first] += 1
            draws[record.second] += 1
        elif record.termination == Termination.WIN:
            winner, loser = _sides(record, 1 if record.result == 1.0 else 2)
            connected[winner, True] += 1
            connected[loser, False] += 1
    own = forfeits(records)
    suffered: Counter[tuple[str, Termination]] = Counter()
    for record in records:
        if record.offender is not None:
            suffered[_sides(record, record.offender)[1], Termination(record.termination)] += 1
    return [
        TerminationRow(
            agent,
            games[agent],
            connected[agent, True],
            connected[agent, False],
            draws[agent],
            {str(kind): suffered[agent, kind] for kind in FORFEITS},
            {str(kind): own[agent, kind] for kind in FORFEITS},
        )
        for agent in order
    ]


def _forfeits(records: list[GameRecord]) -> list[Forfeit]:
    return [
        Forfeit(
            record.game_id,
            *_sides(record, record.offender),
            str(record.termination),
            len(record.moves),
            record.detail,
        )  # fmt: skip
        for record in records
        if record.offender is not None
    ]


def _calls(record: GameRecord) -> list[tuple[int, float]]:
    """``(mark, seconds)`` of every agent call: calls alternate from the side to move after the opening."""
    start = len(record.opening)
    return [((start + k) % 2 + 1, seconds) for k, seconds in enumerate(record.move_times)]


def _time_use(records: list[GameRecord], order: list[str]) -> list[TimeUse]:
    times: dict[str, list[float]] = defaultdict(list)
    bank: dict[str, tuple[float, int | None]] = defaultdict(lambda: (0.0, None))
    for record in records:
        overage: Counter[str] = Counter()
        for mark, seconds in _calls(record):
            agent = _sides(record, mark)[0]
            times[agent].append(seconds)
            overage[agent] += max(0.0, seconds - record.act_timeout)
        for agent, used in overage.items():
            if used > bank[agent][0]:
                bank[agent] = (used, record.game_id)
    rows = []
    for agent in order:
        values = np.asarray(times[agent]) if times[agent] else np.full(1, np.nan)
        rows.append(
            TimeUse(
                agent,
                len(times[agent]),
                float(np.median(values)),
                float(np.percentile(values, 95)),
                float(values.max()),
                *bank[agent],
            )
        )
    return rows


def _lengths(records: list[GameRecord], order: list[str]) -> list[LengthRow]:
    groups: dict[str, list[int]] = {"all games": [len(record.moves) for record in records]}
    rank = {name: k for k, name in enumerate(order)}
    for record in sorted(records, key=lambda r: sorted((rank[r.first], rank[r.second]))):
        a, b = sorted((record.first, record.second), key=rank.__getitem__)
        groups.setdefault(f"{a} v {b}", []).append(len(record.moves))
    return [
        LengthRow(
            label, len(plies), min(plies), statistics.median(plies), statistics.fmean(plies), max(plies)
        )
        for label, plies in groups.items()
        if plies
    ]


def _ending(record: GameRecord) -> str:
    if record.termination == Termination.WIN:
        return f"{record.inarow} in a row"
    if record.termination == Termination.DRAW:
        return "draw (board full)"
    return f"{_sides(record, record.offender)[0]} {record.termination}"


def _pairings(records: list[GameRecord], order: list[str]) -> list[Pairing]:
    rank = {name: k for k, name in enumerate(order)}
    groups: dict[tuple[str, str], list[GameRow]] = defaultdict(list)
    for record in records:
        a, b = sorted((record.first, record.second), key=lambda name: rank.get(name, len(rank)))
        result = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[record.result]
        groups[a, b].append(
            GameRow(
                record.game_id,
                record.pair_id,
                record.first,
                record.second,
                notation(record.opening, record.columns) or "-",
                result,
                _ending(record),
                len(record.moves),
            )  # fmt: skip
        )
    keys = sorted(groups, key=lambda key: (rank.get(key[0], len(rank)), rank.get(key[1], len(rank))))
    return [Pairing(a, b, groups[a, b]) for a, b in keys]
