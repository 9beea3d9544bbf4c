"""Play many games in parallel, each in a process of its own.

Agents are Python code running inside the game, so the process is the unit of isolation (as an
engine process is for cutechess-cli and fastchess): each game runs in a child forked from this
process (``multiprocessing``'s ``fork`` context, so the referee and our agents are imported once,
here, and forking costs milliseconds). A child that hangs, crashes the interpreter or exits cannot
take the tournament with it:

* the child reports each turn (``on_turn``) and finally its record through a pipe;
* a child that dies without a record is scored ``ERROR`` for the agent whose turn it was;
* a child silent for longer than one move may take (``stall_limit``) is killed and scored
  ``TIMEOUT`` for that agent (the in-game watchdog of :mod:`tournament.game` normally acts first).

Each game gets one thread of the native thread pools (OpenBLAS, OpenMP; via ``threadpoolctl``):
``workers`` games already share the cores, and a numpy agent whose BLAS threads wait for each other
on a busy core slows down many times (the ``network`` agent's p95 went from 0.9 to 5.4 ms a move).

``concurrent.futures.ProcessPoolExecutor`` reuses its workers and cannot kill a single stuck task,
hence this small scheduler on ``multiprocessing`` primitives.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection, wait

from threadpoolctl import threadpool_limits

from tournament.game import GRACE, play_game
from tournament.record import GameRecord, Termination
from tournament.schedule import GameTask

MAX_OVERAGE = 60.0
"""Kaggle's overage bank in seconds: no single move may legitimately take longer than this plus
``actTimeout``."""


class GameFailed(RuntimeError):
    """The referee failed on a game for a reason no agent caused (the game is not stored)."""


def _child(task: GameTask, conn: Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    threadpool_limits(limits=1)
    try:
        record = play_game(task, on_turn=lambda mark: conn.send(("turn", mark)))
        conn.send(("record", record))
    except BaseException:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("failed", traceback.format_exc()))
    finally:
        conn.close()
        os._exit(0)  # abandon any agent thread the watchdog gave up on


@dataclass
class _Running:
    process: multiprocessing.process.BaseProcess
    task: GameTask
    started: float
    last_message: float
    turn: int | None = None


def _forfeit(job: _Running, termination: Termination, detail: str) -> GameRecord:
    task = job.task
    status = termination.value.upper()
    return GameRecord(
        **task.identity(),
        moves=task.opening,
        move_times=(),
        result=0.0 if job.turn == 1 else 1.0,
        termination=termination,
        offender=job.turn,
        statuses=(status, "DONE") if job.turn == 1 else ("DONE", status),
        rewards=(None, 0) if job.turn == 1 else (0, None),
        detail=detail,
        duration=time.monotonic() - job.started,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def stall_limit(task: GameTask) -> float:
    """Seconds a game process may stay silent before it is killed: the longest legal move plus margin."""
    longest = task.act_timeout + MAX_OVERAGE if task.hang_limit is None else task.hang_limit
    return longest + GRACE + 5.0


def run_games(tasks: Iterable[GameTask], workers: int) -> Iterator[GameRecord | GameFailed]:
    """Play ``tasks`` with at most ``workers`` games at once; yield each result as it ends.

    Yields a :class:`GameRecord` per game, or a :class:`GameFailed` (not raised) when the referee
    itself failed. Order is completion order. Closing the iterator (or an exception in the
    consumer, e.g. ``KeyboardInterrupt``) kills the games still running.
    """
    context = multiprocessing.get_context("fork")
    # Move everything imported so far out of the collector's reach: the children then neither scan
    # nor copy those pages, as the gc.freeze documentation recommends before a fork.
    gc.freeze()
    pending = list(tasks)
    pending.reverse()
    running: dict[Connection, _Running] = {}
    try:
        while pending or running:
            while pending and len(running) < workers:
                task = pending.pop()
                parent_end, child_end = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(task, child_end), daemon=True)
                process.start()
                child_end.close()
                now = time.monotonic()
                running[parent_end] = _Running(process, task, now, now)
            for conn in wait(list(running), timeout=1.0):
                job = running[conn]
                job.last_message = time.monotonic()
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    kind, payload = "died", None
                if kind == "turn":
                    job.turn = payload
                    continue
                del running[conn]
                conn.close()
                job.process.join(timeout=5)
                if kind == "record":
                    yield payload
                elif kind == "failed":
                    yield GameFailed(f"game {job.task.game_id}: the referee failed:\n{payload}")
                elif job.turn is None:
                    yield GameFailed(f"game {job.task.game_id}: its process died before the first move")
                else:
                    code = job.process.exitcode
                    detail = f"the game process died (exit code {code}) during mark {job.turn}'s move"
                    yield _forfeit(job, Termination.ERROR, detail)
            now = time.monotonic()
            for conn, job in list(running.items()):
                if now - job.last_message > stall_limit(job.task):
                    job.process.kill()
                    job.process.join()
                    del running[conn]
                    conn.close()
                    if job.turn is None:
                        yield GameFailed(f"game {job.task.game_id}: stuck before the first move; killed")
                        continue
                    detail = (
                        f"mark {job.turn} held the game process for {now - job.last_message:.0f} s; killed"
                    )
                    yield _forfeit(job, Termination.TIMEOUT, detail)
    finally:
        for conn, job in running.items():
            job.process.kill()
            job.process.join()
            conn.close()
