"""A tournament, an SPRT or a move analysis run in a process of its own, for the Python API.

Why not in the caller's process: the runner forks its game processes and makes the process that
runs it non-dumpable and a child subreaper (:mod:`tournament.runner`, :mod:`tournament.sandbox`),
and a Jupyter kernel has threads of its own (its heartbeat, iopub and control channels) that a fork
would copy in whatever state they hold. So :func:`run` starts ``python -m connectx.background``, a
fresh interpreter in a session of its own (no lock or thread of the caller is copied; a Ctrl-C or a
kernel interrupt of the caller's process group does not reach it), hands it a :class:`Job`, and
reads its :data:`Message`\\ s back through a pipe while the child plays (:func:`connectx.runs.play`,
as ``connectx run`` does) or judges (:func:`connectx.analyzing.analyze_run`). The store in the job's
folder holds the outcome; the caller reads it from there.

Stopping: ``KeyboardInterrupt`` in the caller (Ctrl-C, a kernel's interrupt) sends the child SIGINT,
as Ctrl-C does to ``connectx run``: it stops the games in flight, keeps every game stored, ends its
processes and exits; :func:`run` waits for that, then raises :class:`RunInterrupted`. The child also
gets SIGTERM if the caller dies (Linux's ``PR_SET_PDEATHSIG``), which stops it the same way.

The command line does not come through here: its process is its own, with no thread to copy, and
``connectx run`` already imports in its own process all a run needs (the driver, the runner, the sandbox,
kaggle-environments), so a run process would import it all a second time before the first game:
8.3 s more on this 2-core machine at a load of 15, about as long as the command's own imports then
(``python -m benchmarks.notebook`` measures the run process's imports).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tournament.driver import Backend
from tournament.schedule import Settings

if TYPE_CHECKING:
    from connectx.tournament_result import Result
    from reports.stats.stopping import SprtStop

__all__ = [
    "GameNotStored", "GameStored", "GamesJudged", "Job", "Message", "RunBegun", "RunEnded", "RunInterrupted",
    "RunRefused", "run",
]  # fmt: skip

POLL = 0.2
"""Seconds between two looks at the child while no message comes."""


@dataclass(frozen=True, slots=True)
class Job:
    """What the child does: ``kind`` ``"play"`` the tournament of ``settings`` in ``out`` with
    ``backend`` (as :func:`connectx.runs.opened`: ``overwrite``, ``allow_broken``), then with
    ``analyze`` judge its moves; or ``"analyze"`` the games stored in ``out`` with ``workers``
    processes. ``path`` is the caller's ``sys.path``, for agents pickled by reference."""

    kind: Literal["play", "analyze"]
    out: Path
    settings: Settings | None = None
    backend: Backend = field(default_factory=Backend)
    overwrite: bool = False
    allow_broken: bool = False
    analyze: bool = False
    workers: int | None = None
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RunBegun:
    """Play begins (:class:`tournament.driver.Started`), on this machine's ``isolation``
    (:func:`tournament.sandbox.describe_isolation`); ``sprt``: an SPRT's live line, else None."""

    scheduled: int
    stored: int
    todo: int
    isolation: str
    sprt: str | None


@dataclass(frozen=True, slots=True)
class GameStored:
    """A game was stored; ``sprt``: the SPRT's line after it, else None."""

    sprt: str | None


@dataclass(frozen=True, slots=True)
class GamesJudged:
    """``done`` of ``total`` games have had their moves judged."""

    done: int
    total: int


@dataclass(frozen=True, slots=True)
class GameNotStored:
    """The referee failed on a game (not stored: a later run plays it again); ``text`` says which."""

    text: str


@dataclass(frozen=True, slots=True)
class RunRefused:
    """The job could not be done, in one sentence (:class:`connectx.runs.TournamentError`,
    :class:`tournament.store.StoreError`); nothing was played after it."""

    text: str


@dataclass(frozen=True, slots=True)
class RunEnded:
    """The job is over: ``played`` games stored now, ``failed`` failed in the referee, ``stored`` in
    the store in all; ``interrupted`` when it was stopped; ``note``: why the moves were not judged."""

    played: int = 0
    failed: int = 0
    stored: int = 0
    interrupted: bool = False
    note: str | None = None


Message = RunBegun | GameStored | GamesJudged | GameNotStored | RunRefused | RunEnded


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted (Ctrl-C, a kernel's interrupt) and has stopped cleanly: its processes
    are gone and every finished game is stored. ``stored`` counts them; ``result`` (set by
    :mod:`connectx.tournaments`) is the :class:`~connectx.tournament_result.Result` of those games
    (None if stopped before the store was made)."""

    def __init__(self, message: str, stored: int) -> None:
        super().__init__(message)
        self.stored = stored
        self.result: Result | None = None


def run(job: Job, on_message: Callable[[Message], None]) -> RunEnded | RunRefused:
    """Do ``job`` in a child process (module docstring), telling ``on_message`` of each
    :class:`RunBegun`, :class:`GameStored`, :class:`GamesJudged` and :class:`GameNotStored`; return
    how it ended.

    Raises :class:`RunInterrupted` after a ``KeyboardInterrupt`` here (the child stopped, the games
    stored kept), or RuntimeError when the child died without saying why (its last lines of stderr).
    """
    read, write = os.pipe()
    with tempfile.TemporaryFile() as log:
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", "connectx.background", str(write), str(os.getpid())],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log, pass_fds=(write,),
                start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(write)
        with Connection(read, writable=False) as pipe:
            assert child.stdin is not None
            child.stdin.write(pickle.dumps(job))
            child.stdin.close()
            final, stopped = _follow(child, pipe, on_message)
        if final is None:
            log.seek(0)
            tail = log.read().decode(errors="replace").strip().splitlines()[-5:]
            if stopped:
                raise RunInterrupted("interrupted before the run started", 0)
            raise RuntimeError(
                f"the run's process exited with status {child.returncode}: " + " / ".join(tail)
            )
    if stopped or (isinstance(final, RunEnded) and final.interrupted):
        stored = final.stored if isinstance(final, RunEnded) else 0
        raise RunInterrupted(f"interrupted: {stored} games stored in {job.out}", stored)
    return final


def _follow(
    child: subprocess.Popen[bytes], pipe: Connection, on_message: Callable[[Message], None]
) -> tuple[RunEnded | RunRefused | None, bool]:
    """Read the child's messages until it exits: its last one (None if it sent none) and whether
    a ``KeyboardInterrupt`` here stopped it. Interrupts after the first are waited through: the child
    is stopping already."""
    final: RunEnded | RunRefused | None = None
    stopped = False
    while True:
        try:
            try:
                if not pipe.poll(POLL):
                    if child.poll() is not None and not pipe.poll(0):
                        break
                    continue
                message = pipe.recv()
            except (EOFError, OSError):
                break
            if isinstance(message, RunEnded | RunRefused):
                final = message
            else:
                on_message(message)
        except KeyboardInterrupt:
            if not stopped:
                stopped = True
                with contextlib.suppress(ProcessLookupError):
                    child.send_signal(signal.SIGINT)
    while True:
        try:
            child.wait()
            return final, stopped
        except KeyboardInterrupt:
            stopped = True


def main() -> int:
    """The child (``python -m connectx.background WRITE_FD PARENT_PID``): read a pickled :class:`Job`
    from stdin, do it, send its messages through the pipe ``WRITE_FD``; exit status 0 or 130."""
    _die_with(int(sys.argv[2]))
    job: Job = pickle.load(sys.stdin.buffer)
    sys.path.extend(entry for entry in job.path if entry not in sys.path)
    with Connection(int(sys.argv[1]), readable=False) as pipe:
        try:
            pipe.send(_play(job, pipe.send) if job.kind == "play" else _analyze(job, pipe.send))
        except KeyboardInterrupt:  # before or after the games: nothing to keep but the store
            with contextlib.suppress(OSError):
                pipe.send(RunEnded(interrupted=True, stored=_stored(job.out)))
            return 130
    return 0


def _die_with(parent: int) -> None:
    """Get SIGTERM when the process ``parent`` dies (Linux's ``prctl(PR_SET_PDEATHSIG)``)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before
        sys.exit(143)


def _stored(out: Path) -> int:
    """How many games the store in ``out`` holds (0 without one)."""
    from tournament.store import Store, StoreError

    try:
        with Store.open(out, read_only=True) as store:
            return len(store.game_ids())
    except StoreError:
        return 0


def _play(job: Job, send: Callable[[Message], None]) -> RunEnded | RunRefused:
    """Play ``job``'s tournament as ``connectx run`` does, telling ``send`` of its progress."""
    from connectx.runs import TournamentError, opened, play
    from reports.stats.stopping import SprtStop
    from tournament.driver import Event, Started
    from tournament.record import GameRecord
    from tournament.store import StoreError

    assert job.settings is not None
    try:
        with opened(job.out, job.settings, job.backend, overwrite=job.overwrite,
                    allow_broken=job.allow_broken) as tournament:  # fmt: skip
            from tournament.sandbox import describe_isolation  # here: it imports the referee

            isolation = describe_isolation()
            sprt = SprtStop(tournament.settings) if tournament.settings.sprt else None

            def told(event: Event) -> None:
                line = None if sprt is None else _sprt_line(sprt)
                if isinstance(event, Started):
                    send(RunBegun(event.scheduled, event.stored, event.todo, isolation, line))
                elif isinstance(event, GameRecord):
                    send(GameStored(line))
                else:
                    send(GameNotStored(str(event)))

            try:
                summary = play(tournament, sprt, told)
            except KeyboardInterrupt:
                return RunEnded(interrupted=True, stored=len(tournament.store.game_ids()))
            note = None
            if job.analyze:
                from connectx.analyzing import analyze_run

                note = analyze_run(tournament.store, job.out, on_judged=lambda *now: send(GamesJudged(*now)))
            return RunEnded(summary.played, summary.failed, summary.stored, note=note)
    except (TournamentError, StoreError) as error:
        return RunRefused(str(error))


def _sprt_line(sprt: SprtStop) -> str:
    """The SPRT's gauge and live line, as ``connectx sprt`` shows them."""
    from connectx.match import gauge

    status = sprt.status
    return f"{gauge(status.llr, status.lower, status.upper)}  {sprt.line}"


def _analyze(job: Job, send: Callable[[Message], None]) -> RunEnded | RunRefused:
    """Judge the moves of the games stored in ``job.out`` (``connectx analyze``), telling ``send``."""
    from connectx.analyzing import analyze_run
    from tournament.store import Store, StoreError

    try:
        with Store.open(job.out) as store:
            stored = len(store.game_ids())
            if not stored:
                return RunRefused(f"no games stored in {job.out} yet")
            why = analyze_run(
                store, job.out, workers=job.workers, on_judged=lambda *now: send(GamesJudged(*now))
            )
    except StoreError as error:
        return RunRefused(str(error))
    return RunRefused(why) if why is not None else RunEnded(stored=stored)


if __name__ == "__main__":  # the messages' classes are this module's, not __main__'s
    from connectx.background import main as child

    status = child()
    # The job is done and its store closed: the interpreter's teardown of the modules it imported
    # (numba's compiled code, pandas) is skipped, which the caller would wait for: 0.3 s of CPU after
    # an analysis of 12 games (the child's rusage, 6.2 s to 5.9 s, the mean of 4 runs each).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
