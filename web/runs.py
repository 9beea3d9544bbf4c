"""The runs under DIR: found (:func:`find`), summed up for the index (:class:`RunSummary`), their reports
(:class:`Runs.report`), and the progress of one being played (:class:`Runs.progress`).

A run is a folder holding a tournament store (``tournament.db``, :mod:`tournament.store`): ``connectx
run``'s, ``sprt``'s, ``play``'s, ``import``'s or the board page's. Every store is opened read-only
(:meth:`tournament.store.Store.open`), so a run being played is never blocked or changed; whether a
run is being played is read from the kernel's table of locks (:func:`tournament.store.locks.held`).

Everything shown is :mod:`reports`': the report (:func:`reports.report.build`, its move analysis read
from ``moves.csv``), the standings of a run in progress, its latest games (:func:`reports.games.pairings`),
both from one :class:`reports.stats.results.Results`. A run's records are read, and its games counted,
once for each state of its files (the store, its write-ahead log, ``moves.csv``), and kept for the
runs last asked.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from reports.games import pairings
from reports.report import Report, build
from reports.stats.analysis import MOVES_FILE, Analysis
from reports.stats.results import Results
from tournament.record import GameRecord
from tournament.schedule import HUMAN, Settings
from tournament.schedule import pairings as scheduled_pairings
from tournament.store import DB_NAME, Store, StoreError
from tournament.store.locks import held
from web.paths import Refused, inside

__all__ = ["DEPTH", "NoRun", "Progress", "RunSummary", "Runs", "find", "folder", "scheduled"]

DEPTH = 3
"""Folder levels under DIR searched for runs (``DIR/a/b/c``)."""

LATEST = 8
"""Games a run in progress lists, the latest first."""

KEPT = 8
"""Runs whose records and report are kept."""


class NoRun(LookupError):
    """No run by that name under DIR; the message says so in one sentence."""


def folder(root: Path, name: str) -> Path:
    """The folder of the run ``name`` (its path under ``root``, ``.`` for ``root`` itself). Raises
    :class:`NoRun` when the name leads out of ``root`` (:func:`web.paths.inside`) or the folder holds
    no store."""
    try:
        path = inside(root, name) if name.strip("/") not in ("", ".") else root
    except Refused as error:
        raise NoRun(str(error)) from None
    if not (path / DB_NAME).is_file():
        raise NoRun(f"there is no run named {name!r} in the served folder")
    return path


def find(root: Path) -> list[Path]:
    """The run folders under ``root`` (and ``root`` itself if it is one), up to :data:`DEPTH` levels
    down, by path; folders whose name starts with a dot, and links that lead out of ``root``, are
    skipped."""
    found = []
    for folder, dirs, files in os.walk(root):
        path = Path(folder)
        depth = len(path.relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < DEPTH)
        if DB_NAME in files and path.resolve().is_relative_to(root):
            found.append(path)
    return sorted(found)


def scheduled(settings: Settings) -> int | None:
    """The games the run's schedule holds (an SPRT's most), or None where games are added as they are
    played (a person's)."""
    if HUMAN in settings.entrants:
        return None
    return 2 * settings.games * len(scheduled_pairings(settings))


@dataclass(frozen=True, slots=True)
class RunSummary:
    """A run as the index lists it: its ``name`` (its path under DIR), ``settings``, ``games`` stored,
    the date of its latest game (``last``, ISO 8601 UTC; "" if none) and whether it is ``running``."""

    name: str
    settings: Settings
    games: int
    last: str
    running: bool

    @property
    def scheduled(self) -> int | None:
        return scheduled(self.settings)


@dataclass(frozen=True, slots=True)
class Progress:
    """A run in progress, as its page shows it while it changes: ``games`` stored of ``scheduled``,
    whether it is ``running``, the ``eta`` in seconds (None when unknown), the standings and the
    latest games (plain rows), and a ``version`` that changes when any of it may have."""

    games: int
    scheduled: int | None
    running: bool
    eta: float | None
    standings: list[dict[str, Any]]
    latest: list[dict[str, Any]]
    version: str

    def json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "scheduled": self.scheduled,
            "running": self.running,
            "eta": self.eta,
            "standings": self.standings,
            "latest": self.latest,
            "version": self.version,
        }


@dataclass(frozen=True, slots=True)
class _Loaded:
    """What one state of a run's files gave: its records and settings, and the report and
    progress made from them when first asked."""

    records: list[GameRecord]
    settings: Settings
    kept: dict[str, Any]


class Runs:
    """The runs under ``root`` (resolved), read read-only and kept (module docstring)."""

    def __init__(self, root: Path, *, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.root = root
        self.now = now
        self._lock = threading.Lock()
        self._kept: OrderedDict[Path, tuple[tuple[int, ...], _Loaded]] = OrderedDict()

    def name(self, path: Path) -> str:
        """A run's name: its path under DIR (``.`` for DIR itself)."""
        return path.relative_to(self.root).as_posix() or "."

    def summaries(self) -> list[RunSummary]:
        """Every run under DIR, newest first (by its latest game); a store that cannot be read is left
        out."""
        out = []
        for path in find(self.root):
            try:
                loaded = self._load(path)
            except StoreError:  # not a store, damaged, or a creation that was killed
                continue
            last = max((record.started_at for record in loaded.records), default="")
            out.append(RunSummary(self.name(path), loaded.settings, len(loaded.records), last, held(path)))
        return sorted(out, key=lambda summary: (summary.last, summary.name), reverse=True)

    def report(self, path: Path) -> Report | None:
        """The report of the run in ``path`` (its move analysis included), as ``connectx report``
        writes it; None while no two different agents have met. Raises
        :class:`tournament.store.StoreError` for a folder without a readable store and
        :class:`reports.stats.analysis.AnalysisError` for a ``moves.csv`` that cannot be read."""
        loaded = self._load(path)
        if "report" not in loaded.kept:
            results = _results(loaded)
            analysis = Analysis.read(path)
            loaded.kept["report"] = build(results, name=path.name, analysis=analysis) if results.h2h else None
        kept: Report | None = loaded.kept["report"]
        return kept

    def progress(self, path: Path) -> Progress:
        """The progress of the run in ``path`` (see :class:`Progress`)."""
        loaded = self._load(path)
        running = held(path)
        if "progress" not in loaded.kept:
            loaded.kept["progress"] = self._progress(loaded)
        base: Progress = loaded.kept["progress"]
        eta = _eta(loaded.records, base.scheduled, self.now()) if running else None
        version = f"{base.version}:{int(running)}"
        return Progress(base.games, base.scheduled, running, eta, base.standings, base.latest, version)

    def kept(self, path: Path) -> dict[str, Any]:
        """A dictionary kept with the current state of the run in ``path``, for what a caller makes
        from it (the page's HTML)."""
        return self._load(path).kept

    def _progress(self, loaded: _Loaded) -> Progress:
        results = _results(loaded)
        rows = []
        if results.h2h:
            for row in results.standings:
                rows.append(
                    {
                        "rank": row.rank, "agent": row.agent, "elo": row.rating.estimate(),
                        "interval": row.rating.interval(), "games": row.games, "wins": row.wins,
                        "draws": row.draws, "losses": row.losses, "score": f"{row.score_pct:.1f} %",
                        "forfeits": f"{row.invalid}/{row.timeouts}/{row.errors}",
                    }
                )  # fmt: skip
        games = [game for pairing in pairings(results.records, results.order) for game in pairing.games]
        latest = [
            {
                "game": g.game_id,
                "first": g.first,
                "second": g.second,
                "result": g.result,
                "ending": g.ending,
                "plies": g.plies,
            }  # fmt: skip
            for g in sorted(games, key=lambda game: game.game_id, reverse=True)[:LATEST]
        ]
        version = f"{len(loaded.records)}:{max((r.game_id for r in loaded.records), default=-1)}"
        return Progress(len(loaded.records), scheduled(loaded.settings), False, None, rows, latest, version)

    def _load(self, path: Path) -> _Loaded:
        """The records and settings of the run in ``path`` for the current state of its files."""
        state = _state(path)
        with self._lock:
            kept = self._kept.get(path)
            if kept is not None and kept[0] == state:
                self._kept.move_to_end(path)
                return kept[1]
        with Store.open(path, read_only=True) as store:
            loaded = _Loaded(store.records(), store.settings(), {})
        with self._lock:
            self._kept[path] = (state, loaded)
            self._kept.move_to_end(path)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return loaded


def _results(loaded: _Loaded) -> Results:
    """The :class:`~reports.stats.results.Results` of a run's state, counted when first asked, then kept:
    the report and the progress read the same."""
    if "results" not in loaded.kept:
        loaded.kept["results"] = Results(loaded.records, loaded.settings)
    results: Results = loaded.kept["results"]
    return results


def _state(path: Path) -> tuple[int, ...]:
    """The size and modification time of a run's store, its write-ahead log and ``moves.csv``."""
    state: list[int] = []
    for name in (DB_NAME, f"{DB_NAME}-wal", MOVES_FILE):
        try:
            status = os.stat(path / name)
            state += [status.st_size, status.st_mtime_ns]
        except FileNotFoundError:
            state += [-1, -1]
    return tuple(state)


def _eta(records: list[GameRecord], scheduled: int | None, now: datetime) -> float | None:
    """Seconds until the run's last scheduled game ends, at the pace of its recent games: the games
    that ended in the last stretch of the run (up to 20), from the first of them to ``now``."""
    if scheduled is None or len(records) >= scheduled:
        return None if scheduled is None else 0.0
    ends = sorted(
        datetime.fromisoformat(r.started_at) + timedelta(seconds=r.duration) for r in records if r.started_at
    )[-20:]
    if len(ends) < 2:
        return None
    elapsed = (now - ends[0]).total_seconds()
    if elapsed <= 0:
        return None
    return (scheduled - len(records)) * elapsed / (len(ends) - 1)
