"""Play many games in parallel on a few long-lived game processes, each agent in a process of its own.

The runner forks ``workers`` *game processes* (``multiprocessing``'s ``fork`` context, so the
referee and our agents are imported once, here) and hands each one game at a time through a pipe.
A game process plays the game with the referee, which plays each agent in a host process of its
own, forked for that game and killed when it ends (:mod:`tournament.sandbox`): no agent outlives its
game or sees another. A game process never runs agent code, so it is kept from game to game, and a
game costs two forks (the hosts), not three: that is most of the runner's saving over one process
a game (``python -m benchmarks.runner_overhead``).

A game process that hangs, crashes or exits cannot take the tournament with it:

* it reports each turn (``on_turn``) and finally its record through its pipe;
* one that dies without a record is scored ``ERROR`` for the agent whose turn it was;
* one silent for longer than one move may take (``stall_limit``) is killed and scored
  ``TIMEOUT`` for that agent (the proxy of :mod:`tournament.sandbox` normally acts first).

Either way the runner, a child subreaper, kills what is left of that game and starts a fresh game
process for the next one. Each game process dies with the runner, and kills every process its
agents started when a game ends (:func:`tournament.sandbox.kill_descendants`). Only the runner's
main process sees the store: it receives the records and its caller writes them.

Native thread pools (OpenBLAS, OpenMP; via ``threadpoolctl``) get one thread, set once here and
inherited by every game and agent process: ``workers`` games already share the cores, and a numpy
agent whose BLAS threads wait for each other on a busy core slows down many times (the ``network``
agent's p95 went from 0.9 to 5.4 ms a move).

``concurrent.futures.ProcessPoolExecutor`` cannot kill a single stuck task, hence this small
scheduler on ``multiprocessing`` primitives.
"""

from __future__ import annotations

import contextlib
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


def _serve(conn: Connection, slot: int, limits: Limits) -> None:
    """A game process: play each task received until it receives None (module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    sandbox.become_game_process()
    try:
        while (task := conn.recv()) is not None:
            try:
                record = play_game(
                    task,
                    on_turn=lambda mark, board: conn.send(("turn", (mark, board))),
                    slot=slot,
                    limits=limits,
                )
                reply: tuple[str, object] = ("record", record)
            except BaseException:  # noqa: BLE001 - reported to the runner, which decides
                reply = ("failed", traceback.format_exc())
            sandbox.kill_descendants()
            conn.send(reply)
    finally:
        sandbox.kill_descendants()
        os._exit(0)


@dataclass
class _Running:
    task: GameTask
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


@dataclass
class _GameProcess:
    """The runner's handle on one game process: its pipe, its slot and the game it is playing."""

    process: multiprocessing.process.BaseProcess
    conn: Connection
    slot: int
    job: _Running | None = None


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
    with sandbox.claim_slots(min(workers, max(len(pending), 1))) as numbers:
        yield from _schedule(pending, numbers, limits, context)


def _schedule(
    pending: list[GameTask], numbers: list[int], limits: Limits, context: multiprocessing.context.BaseContext
) -> Iterator[GameRecord | GameFailed]:
    """The scheduler of :func:`run_games`: play ``pending`` (last first), one game process a slot."""
    slots: dict[int, _GameProcess] = {}

    def start(slot: int) -> _GameProcess:
        parent_end, child_end = context.Pipe()
        # Not a daemon: its agents may start processes of their own (multiprocessing forbids
        # children to daemons); it dies with the runner instead (PR_SET_PDEATHSIG).
        process = context.Process(target=_serve, args=(child_end, slot, limits), daemon=False)
        process.start()
        child_end.close()
        return _GameProcess(process, parent_end, slot)

    def discard(game: _GameProcess) -> None:
        """Kill a game process and whatever its game left behind; its slot gets a fresh one."""
        del slots[game.slot]
        game.process.kill()
        game.process.join()
        game.conn.close()
        sandbox.kill_descendants(spare={other.process.pid for other in slots.values()})

    try:
        while pending or any(game.job for game in slots.values()):
            for slot in numbers:
                if not pending:
                    break
                game = slots.get(slot)
                if game is None:
                    game = slots[slot] = start(slot)
                if game.job is None:
                    task = pending.pop()
                    game.conn.send(task)
                    now = time.monotonic()
                    game.job = _Running(task, now, now)
            busy = {game.conn: game for game in slots.values() if game.job is not None}
            for conn in wait(list(busy), timeout=1.0):
                game = busy[conn]
                job = game.job
                assert job is not None
                job.last_message = time.monotonic()
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    kind, payload = "died", None
                if kind == "turn":
                    job.on_turn(*payload)
                    continue
                game.job = None
                if kind == "record":
                    yield payload
                    continue
                if kind == "failed":
                    yield GameFailed(f"game {job.task.game_id}: the referee failed:\n{payload}")
                    continue
                game.process.join(timeout=5)
                code = game.process.exitcode
                discard(game)
                if job.turn is None:
                    yield GameFailed(f"game {job.task.game_id}: its process died before the first move")
                else:
                    detail = f"the game process died (exit code {code}) during mark {job.turn}'s move"
                    yield _forfeit(job, Termination.ERROR, detail)
            now = time.monotonic()
            for game in list(slots.values()):
                job = game.job
                if job is None or now - job.last_message <= stall_limit(job.task):
                    continue
                discard(game)
                if job.turn is None:
                    yield GameFailed(f"game {job.task.game_id}: stuck before the first move; killed")
                    continue
                detail = f"mark {job.turn} held the game process for {now - job.last_message:.0f} s; killed"
                yield _forfeit(job, Termination.TIMEOUT, detail)
    finally:
        for game in slots.values():
            if game.job is None:
                with contextlib.suppress(OSError):
                    game.conn.send(None)
            else:
                game.process.kill()
        for game in slots.values():
            game.process.join()
            game.conn.close()
