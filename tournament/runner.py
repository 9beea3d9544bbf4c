"""Play many games in parallel, each in a process of its own, each agent in a process of its own.

The runner forks a *game process* per game (``multiprocessing``'s ``fork`` context, so the referee
and our agents are imported once, here, and forking costs milliseconds). The game process runs the
referee, which plays each agent in a host process of its own (:mod:`tournament.sandbox`). A game
process that hangs, crashes or exits cannot take the tournament with it:

* it reports each turn (``on_turn``) and finally its record through a pipe;
* one that dies without a record is scored ``ERROR`` for the agent whose turn it was;
* one silent for longer than one move may take (``stall_limit``) is killed and scored
  ``TIMEOUT`` for that agent (the proxy of :mod:`tournament.sandbox` normally acts first).

Each game process dies with the runner and kills every process its agents started when the game
ends (:func:`tournament.sandbox.kill_descendants`); the runner, a child subreaper too, kills what
is left of a game it had to kill. Only the runner's main process sees the store: it receives the
records and its caller writes them.

Native thread pools (OpenBLAS, OpenMP; via ``threadpoolctl``) get one thread, set once here and
inherited by every game and agent process: ``workers`` games already share the cores, and a numpy
agent whose BLAS threads wait for each other on a busy core slows down many times (the ``network``
agent's p95 went from 0.9 to 5.4 ms a move).

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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import Connection, wait

from threadpoolctl import threadpool_limits

from agents.adapter import DEFAULT_OVERAGE
from tournament import sandbox
from tournament.game import play_game
from tournament.limits import Limits
from tournament.record import GameRecord, Termination
from tournament.sandbox import GRACE
from tournament.schedule import GameTask


class GameFailed(RuntimeError):
    """The referee failed on a game for a reason no agent caused (the game is not stored)."""


def _child(task: GameTask, conn: Connection, slot: int, limits: Limits) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        sandbox.become_game_process()
        record = play_game(
            task, on_turn=lambda mark, board: conn.send(("turn", (mark, board))), slot=slot, limits=limits
        )
        conn.send(("record", record))
    except BaseException:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("failed", traceback.format_exc()))
    finally:
        conn.close()
        sandbox.kill_descendants()
        os._exit(0)


@dataclass
class _Running:
    process: multiprocessing.process.BaseProcess
    task: GameTask
    slot: int
    started: float
    last_message: float
    turn: int | None = None
    board: list[int] | None = None
    moves: list[int] = field(default_factory=list)

    def on_turn(self, mark: int, board: list[int]) -> None:
        """Note whose move it is, and the move played since the last turn (the opening before the first)."""
        if self.board is None:
            self.moves = list(self.task.opening)
        else:
            changed = [
                cell for cell, (old, new) in enumerate(zip(self.board, board, strict=True)) if old != new
            ]
            self.moves.extend(cell % self.task.columns for cell in changed[:1])
        self.turn, self.board = mark, board


def _forfeit(job: _Running, termination: Termination, detail: str) -> GameRecord:
    task = job.task
    status = termination.value.upper()
    return GameRecord(
        task=task,
        moves=tuple(job.moves) if job.board is not None else task.opening,
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
    # No legal move takes longer than actTimeout plus the whole overage bank.
    longest = task.act_timeout + DEFAULT_OVERAGE if task.hang_limit is None else task.hang_limit
    return longest + GRACE + 5.0


def run_games(
    tasks: Iterable[GameTask],
    workers: int,
    limits: Limits = Limits(),  # noqa: B008 - immutable
) -> Iterator[GameRecord | GameFailed]:
    """Play ``tasks`` with at most ``workers`` games at once; yield each result as it ends.

    Agents get the resource ``limits`` of :class:`~tournament.sandbox.Limits`. Yields a
    :class:`GameRecord` per game, or a :class:`GameFailed` (not raised) when the referee itself
    failed. Order is completion order. Closing the iterator (or an exception in the consumer, e.g.
    ``KeyboardInterrupt``) kills the games still running. Makes this process non-dumpable and a
    child subreaper (:mod:`tournament.sandbox`).
    """
    sandbox.protect_runner()
    sandbox.become_subreaper()
    threadpool_limits(limits=1)  # inherited by every game and agent process forked from here
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
                slot = min(set(range(workers)) - {job.slot for job in running.values()})
                parent_end, child_end = context.Pipe(duplex=False)
                # Not a daemon: its agents may start processes of their own (multiprocessing forbids
                # children to daemons); it dies with the runner instead (PR_SET_PDEATHSIG).
                process = context.Process(target=_child, args=(task, child_end, slot, limits), daemon=False)
                process.start()
                child_end.close()
                now = time.monotonic()
                running[parent_end] = _Running(process, task, slot, now, now)
            for conn in wait(list(running), timeout=1.0):
                job = running[conn]
                job.last_message = time.monotonic()
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    kind, payload = "died", None
                if kind == "turn":
                    job.on_turn(*payload)
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
                    sandbox.kill_descendants(spare={job.process.pid for job in running.values()})
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
