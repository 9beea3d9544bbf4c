"""Play a tournament into its directory: the one loop of ``connectx run`` and ``connectx sprt``.

A :class:`Tournament` plays the games of a :class:`~tournament.schedule.Settings` (a round-robin, a
gauntlet, or the game pairs of an SPRT match) the way a :class:`Backend` says (this machine's runner
or a Ray cluster, games at once, the agents' resource limits):

* opened (``with Tournament(...) as tournament``), it joins the backend, then creates the store in
  its directory or resumes the one there (:meth:`~tournament.store.Store.create`: the same settings,
  or fewer games, are resumed; another tournament is refused), holding its run lock and keeping the
  agents out of the directory (:func:`tournament.sandbox.protect_directory`) until it is closed;
* :meth:`Tournament.play` plays the scheduled games not stored yet, stores each as it ends
  (committed at once: a run interrupted loses only the games in flight), tells a callback of each
  (:data:`Event`), stops when its stop rule (:class:`Stop`) has decided, cancelling the games in
  flight, and returns a :class:`Summary`.

The caller prints (progress, the decision) and writes the reports; this module does neither.

Why the stop rule is an object the caller builds: an SPRT decides on statistics of the games (the
GSPRT on pentanomial counts, :mod:`reports.stats.sprt`), and data flows one way, ``reports`` reading
``tournament``'s records and ``tournament`` never importing ``reports`` (``lint-imports`` checks it).
So the driver knows only what every stop rule does -- count the games stored, say when it has
decided -- and the caller hands it the SPRT's (:class:`reports.stats.stopping.SprtStop`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tournament.limits import Limits
from tournament.record import Finished, GameFailed, GameRecord
from tournament.schedule import GameTask, Settings, schedule
from tournament.signals import sigterm_raises
from tournament.store import Store, StoreError

__all__ = ["Backend", "BackendError", "Event", "Started", "Stop", "Summary", "Tournament"]


@dataclass(frozen=True, slots=True)
class Backend:
    """How a tournament's games are played; nothing here changes the games (:class:`Settings` does).

    ``name``: ``"local"``, this machine's runner (:func:`tournament.runner.run_games`), or ``"ray"``,
    a Ray cluster (:func:`tournament.cluster.run_games_ray`) at ``address`` (``"auto"``, the one
    ``ray start`` runs here; ``HOST:PORT``; None: one started on this machine for the run).
    ``workers``: games played at once, by default this machine's cores; on Ray, games submitted at
    once, by default twice the cluster's CPUs. ``limits``: each agent process's resources.
    """

    name: str = "local"
    workers: int | None = None
    address: str | None = None
    limits: Limits = Limits()


class BackendError(RuntimeError):
    """The backend cannot play: Ray is not installed, or no cluster answers at the address (the
    message says which, in one line)."""


class Stop(Protocol):
    """A rule that ends a tournament before its schedule does, such as an SPRT's decision."""

    def add(self, records: Iterable[GameRecord]) -> None:
        """Count ``records``: the games stored when play starts, then each game as it is stored."""

    @property
    def decision(self) -> str | None:
        """None while the games left are needed; else what was decided (an SPRT: ``"H0"``, ``"H1"``)."""


@dataclass(frozen=True, slots=True)
class Started:
    """Play begins: the schedule has ``scheduled`` games, ``stored`` of them stored already (a resumed
    run), and ``todo`` will be played (none once the stop rule has decided)."""

    scheduled: int
    stored: int
    todo: int


Event = Started | GameRecord | GameFailed
"""What :meth:`Tournament.play` tells its callback, in order: :class:`Started` once, then each game as
it ends: its :class:`~tournament.record.GameRecord`, once stored and counted by the stop rule, or a
:class:`~tournament.record.GameFailed` when the referee failed on it (not stored: a later run plays
it again)."""


@dataclass(frozen=True, slots=True)
class Summary:
    """What :meth:`Tournament.play` did: ``played`` games stored, ``failed`` games the referee failed
    on (not stored), ``stored`` games in the store in all (earlier runs' included) of the
    ``scheduled``, and the stop rule's ``decision`` (None without a rule, or undecided)."""

    played: int
    failed: int
    stored: int
    scheduled: int
    decision: str | None


Play = Callable[[list[GameTask]], Generator[Finished, None, None]]
"""A backend's player: a result per task as each game ends; closing it stops the games in flight."""


class Tournament:
    """The tournament of ``settings`` in the directory ``out``, played with ``backend`` (module
    docstring). ``overwrite`` replaces a different tournament stored there instead of refusing it.

    Use it as a context manager: entering raises :class:`BackendError` (nothing written) or
    :class:`~tournament.store.StoreError` (one line, no stored game touched). Inside, :attr:`store`
    is the open store and :attr:`settings` the stored settings (a resumed or extended tournament
    keeps its openings), with ``workers`` and ``cores`` those of the run that created it.
    """

    def __init__(
        self,
        out: Path,
        settings: Settings,
        backend: Backend = Backend(),  # noqa: B008 - immutable
        *,
        overwrite: bool = False,
    ) -> None:
        self.out, self.backend, self.overwrite = Path(out), backend, overwrite
        self._asked = settings
        self._stack = contextlib.ExitStack()
        self._play: Play | None = None

    def __enter__(self) -> Tournament:
        from tournament import sandbox

        with contextlib.ExitStack() as stack:
            self._play, workers, cores = stack.enter_context(_connect(self.backend))
            # How this run plays, for the report: not part of the tournament's identity.
            settings = dataclasses.replace(self._asked, workers=workers, cores=cores)
            self.store = stack.enter_context(Store.create(self.out, settings, overwrite=self.overwrite))
            sandbox.protect_directory(self.out)  # no agent may read or write the store
            self.settings = self.store.settings()
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def play(
        self,
        stop: Stop | None = None,
        on_event: Callable[[Event], None] = lambda event: None,
        *,
        tasks: Sequence[GameTask] | None = None,
        players: Mapping[str, str] | None = None,
    ) -> Summary:
        """Play the scheduled games not stored yet, storing each as it ends, until all are played or
        ``stop`` has decided (then the games in flight are cancelled); ``on_event`` hears of each
        (:data:`Event`). Raises :class:`~tournament.store.StoreError` when a game cannot be stored,
        or when the store's disk is full (:meth:`~tournament.store.Store.room`: the game just played
        was stored, in the room kept for it), and lets ``KeyboardInterrupt`` through, SIGTERM's
        included (:class:`tournament.signals.Terminated`: while it plays, SIGTERM raises it as Ctrl-C
        raises ``KeyboardInterrupt``); either way the games in flight stop, their scratch directories
        go, and the games stored stay.

        ``tasks`` are the games to play instead of the settings' schedule, for a driver that chooses
        them as it goes (:mod:`tournament.ladder`); those already stored are skipped all the same.
        ``players`` maps an entrant's name in ``tasks`` to the spec that plays it (a ladder's
        ``name@version``); the games are stored under the names, as scheduled.
        """
        assert self._play is not None, "play inside `with Tournament(...)`"
        tasks = schedule(self.settings) if tasks is None else list(tasks)
        done = self.store.game_ids()
        if stop is not None:
            stop.add(self.store.records())
        decided = stop is not None and stop.decision is not None
        todo = [] if decided else [task for task in tasks if task.game_id not in done]
        on_event(Started(len(tasks), len(done), len(todo)))
        played = failed = 0
        named = {task.game_id: task for task in todo}
        with sigterm_raises():  # SIGTERM stops the games as Ctrl-C does
            games = self._play([_played_by(task, players or {}) for task in todo])
            try:
                for result in games:
                    if not isinstance(result, GameRecord):
                        failed += 1
                        on_event(result)
                        continue
                    result = dataclasses.replace(result, task=named[result.game_id])  # stored as scheduled
                    self.store.add(result)
                    played += 1
                    if stop is not None:
                        stop.add([result])
                    on_event(result)
                    if stop is not None and stop.decision is not None:
                        break
                    if not self.store.room():
                        raise StoreError(
                            f"the disk of {self.out} is full ({self.store.free_mib()} MiB free): stopped "
                            f"before the next game, with {len(done) + played} of {len(tasks)} games stored; "
                            "free some space and run again to resume"
                        )
            finally:
                games.close()  # the games still in flight are not needed, or the caller stops
        decision = None if stop is None else stop.decision
        return Summary(played, failed, len(done) + played, len(tasks), decision)


def _played_by(task: GameTask, players: Mapping[str, str]) -> GameTask:
    """``task`` with each entrant that ``players`` names replaced by the spec that plays it."""
    return dataclasses.replace(
        task, first=players.get(task.first, task.first), second=players.get(task.second, task.second)
    )


@contextlib.contextmanager
def _connect(backend: Backend) -> Iterator[tuple[Play, int, int | None]]:
    """The backend's player, the games it plays at once and the cores it plays them on, for as long
    as the block lasts (a Ray cluster started here is stopped after it)."""
    if backend.name == "local":
        from tournament.runner import run_games

        workers = backend.workers or os.cpu_count() or 1
        yield (lambda tasks: run_games(tasks, workers, backend.limits)), workers, os.cpu_count()
        return
    if backend.name != "ray":
        raise BackendError(f"no backend {backend.name!r}: 'local' or 'ray'")
    try:
        from tournament import cluster
    except ImportError as error:
        install = "pip install -e '.[ray]' or pip install 'connectx-toolkit[ray]'"
        raise BackendError(f"the ray backend needs Ray ({error}): {install}") from None
    with contextlib.ExitStack() as stack:
        try:
            cpus = stack.enter_context(cluster.connected(backend.address))
        except ConnectionError as error:
            raise BackendError(f"cannot join the Ray cluster at {backend.address}: {error}") from None
        window = backend.workers or 2 * cpus
        play = functools.partial(cluster.run_games_ray, limits=backend.limits, workers=window)
        yield play, min(window, cpus), cpus
