"""Play many games in parallel on a few long-lived game processes, each agent in a process of its own.

The runner forks ``workers`` *game processes* (``multiprocessing``'s ``fork`` context, so the
referee and our agents are imported once, here) and hands each one game at a time through a pipe.
A game process plays the game with the referee, which plays each agent in a host process of its
own, assigned to that game and killed when it ends (:mod:`tournament.sandbox`): no agent outlives
its game or sees another. A game process never runs agent code, so it is kept from game to game,
with its kaggle environment (:class:`~tournament.game.Environments`). It
does not fork the hosts itself: its *zygote*, a process forked from it once, keeps the next game's
two hosts forked ahead (:class:`~tournament.sandbox.Zygote`), so the referee pays neither the forks
nor the copy-on-write faults that forking would cost it (``python -m benchmarks.runner_overhead``
measures what a game costs over kaggle's own ``env.run``). With two workers or more, each game
process, with its zygote and hosts, runs on a share of the CPUs of its own (:func:`cpu_share`).

A game process that hangs, crashes or exits cannot take the tournament with it:

* it notes each turn in memory it shares with the runner (``_Progress``: whose move, the moves so
  far, since when) and sends its record through its pipe;
* one that dies without a record is scored ``ERROR`` for the agent whose turn it was;
* one whose turn has lasted longer than one move may take (``stall_limit``) is killed and scored
  ``TIMEOUT`` for that agent (the proxy of :mod:`tournament.sandbox` normally acts first).

Either way the runner, a child subreaper, kills what is left of that game and starts a fresh game
process for the next one. Each game process dies with the runner, its zygote with it, and the hosts
with the zygote. A game process kills its agents' hosts when a game ends; its zygote then kills every
process they started, before the next game's agents load, while the game process makes the next
environment (:func:`tournament.sandbox.kill_descendants`). Only the runner's main process sees the
store: it receives the records and its caller writes them.

Native thread pools (OpenBLAS, OpenMP; via ``threadpoolctl``) get one thread, set once here and
inherited by every game and agent process: ``workers`` games already share the cores, and a numpy
agent whose BLAS threads wait for each other on a busy core slows down many times (the ``network``
agent's p95 went from 0.9 to 5.4 ms a move).

``concurrent.futures.ProcessPoolExecutor`` cannot kill a single stuck task, hence this small
scheduler on ``multiprocessing`` primitives.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import signal
import tempfile
import time
import traceback
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection, wait

from threadpoolctl import threadpool_limits

from agents.kit.adapter import DEFAULT_OVERAGE
from tournament import sandbox
from tournament.game import Environments, play_episode
from tournament.limits import Limits
from tournament.record import Forfeit, GameFailed, GameRecord, Termination
from tournament.sandbox import GRACE
from tournament.schedule import GameTask
from tournament.scratch import Scratch


class _Progress:
    """Where a game process's current game stands, in memory it shares with the runner, so that a move
    costs no message: whose turn it is (0 before the first), the columns played (the opening first)
    and when the last turn began (``time.monotonic``, the stall watchdog's clock). The game process
    writes (:meth:`on_turn`); the runner reads what a game process that died or stalled left
    (:meth:`forfeit`). ``cells`` bounds the moves of a game (the largest board's cells)."""

    def __init__(self, context: multiprocessing.context.BaseContext, cells: int) -> None:
        self._turn = context.RawValue(ctypes.c_int, 0)
        self._count = context.RawValue(ctypes.c_int, 0)
        self._stamp = context.RawValue(ctypes.c_double, 0.0)
        self._moves = context.RawArray(ctypes.c_int, cells)
        self._board: list[int] = []  # the game process's own: the board of the last turn

    def start(self, task: GameTask) -> None:
        """A game begins: no turn yet; its opening is played (the runner's call, before it sends ``task``)."""
        self._turn.value = 0
        self._moves[: len(task.opening)] = task.opening
        self._count.value = len(task.opening)
        self._stamp.value = time.monotonic()

    def on_turn(self, mark: int, board: list[int], columns: int) -> None:
        """Note whose move it is, and the move played since the last turn (the game process's call;
        the first turn of a game is the one :meth:`start` left at 0)."""
        if self._turn.value:
            changed = [
                cell for cell, (old, new) in enumerate(zip(self._board, board, strict=True)) if old != new
            ]
            if changed:
                self._moves[self._count.value] = changed[0] % columns
                self._count.value += 1
        self._board = board
        self._turn.value = mark
        self._stamp.value = time.monotonic()

    @property
    def stamp(self) -> float:
        """When the game or its last turn began (``time.monotonic`` seconds)."""
        return self._stamp.value

    def forfeit(self, task: GameTask, started: float, termination: Termination, detail: str) -> GameRecord:
        """The record of a game whose process died or stalled while an agent was to move (:attr:`turn`
        not 0): that agent forfeits, with the moves played so far."""
        return GameRecord.ended(
            task,
            self._moves[: self._count.value],
            forfeit=Forfeit(self._turn.value, termination, detail),
            duration=time.monotonic() - started,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )

    @property
    def turn(self) -> int:
        """The mark whose turn it is, 0 before the first agent's move."""
        return self._turn.value


def _serve(
    conn: Connection, slot: int, limits: Limits, progress: _Progress, scratch: str, cpus: set[int]
) -> None:
    """A game process: play each task received until it receives None (module docstring). It, its
    zygote and its agents' hosts run on ``cpus`` (:func:`cpu_share`). The hosts come from a zygote
    of its own (:class:`~tournament.sandbox.Zygote`), started again if it died; their working
    directories go in ``scratch``, which the runner removes when the game process ends. It keeps
    its environment from game to game (:class:`~tournament.game.Environments`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    sandbox.become_game_process()
    os.sched_setaffinity(0, cpus)  # inherited by the zygote, and by the hosts it forks
    tempfile.tempdir = scratch
    zygote = sandbox.Zygote()
    environments = Environments()
    try:
        while (task := conn.recv()) is not None:
            if not zygote.alive():  # killed: what its hosts left goes too
                zygote.close()
                sandbox.kill_descendants()
                zygote = sandbox.Zygote()
            try:
                record = play_episode(
                    task,
                    on_turn=lambda mark, board, columns=task.columns: progress.on_turn(mark, board, columns),
                    slot=slot,
                    limits=limits,
                    zygote=zygote,
                    environments=environments,
                )
                reply: tuple[str, object] = ("record", record)
            except BaseException:  # noqa: BLE001 - reported to the runner, which decides
                reply = ("failed", traceback.format_exc())
            conn.send(reply)
    finally:
        sandbox.kill_descendants()
        os._exit(0)


@dataclass
class _GameProcess:
    """The runner's handle on one game process: its pipe, slot and progress, and the game it plays."""

    process: multiprocessing.process.BaseProcess
    conn: Connection
    slot: int
    progress: _Progress
    scratch: Scratch
    task: GameTask | None = None
    started: float = 0.0

    def lost(self, termination: Termination, before: str, during: str) -> GameRecord | GameFailed:
        """The result of the game this process was playing when it died or stalled: the forfeit of the
        agent whose turn it was (``termination``, ``during`` with ``{turn}`` its mark), or, when no
        agent had been called yet, a :class:`GameFailed` saying ``before`` (the referee's failure)."""
        task = self.task
        assert task is not None
        turn = self.progress.turn
        if not turn:
            return GameFailed(f"game {task.game_id}: {before}")
        return self.progress.forfeit(task, self.started, termination, during.format(turn=turn))


def stall_limit(task: GameTask) -> float:
    """Seconds a game process may stay silent before it is killed: the longest legal move plus margin."""
    # No legal move takes longer than actTimeout plus the whole overage bank.
    longest = task.act_timeout + DEFAULT_OVERAGE if task.hang_limit is None else task.hang_limit
    return longest + GRACE + 5.0


def cpu_share(slot: int, workers: int, cpus: Collection[int]) -> set[int]:
    """The CPUs on which game slot ``slot`` (its game process, zygote and hosts) runs, when a runner
    plays ``workers`` games at once on ``cpus`` (those it may use, ``os.sched_getaffinity``): the
    ``slot % workers``-th of ``workers`` consecutive shares as equal as can be (``len(cpus) //
    workers`` CPUs or one more), so all of them with one worker; all of them, too, with more
    workers than CPUs, which the kernel then balances.

    Why: each move is a round trip between the referee and a host, and the kernel tends to wake a
    process on its waker's CPU, so two games left to the scheduler often crowd onto one core while
    the other idles. On the 2-core development machine, two workers playing the scaling mix of
    ``python -m benchmarks.runner_overhead`` (96 games) left 2.4-3.1 of their 22-23 core-seconds
    idle (``/proc/stat``) and took 11.1-11.6 s; on a core each, 0.2-0.3 idle and 9.6-10.2 s. With one
    worker, pinning the game process and its hosts together made random-vs-random games slower
    (0.95x against 0.89x ``make(...).run``): a host's start no longer overlaps the referee.
    Numbering by ``slot % workers`` spreads the slots of runners that play on one machine at once
    (their slots differ, :func:`~tournament.sandbox.claim_slots`).
    Source: ``sched_setaffinity(2)``. Raises ``ValueError`` when ``workers < 1`` or ``cpus`` is empty.
    """
    if workers < 1 or not cpus:
        raise ValueError(f"need at least one worker and one CPU, got {workers} and {list(cpus)}")
    if workers > len(cpus):
        return set(cpus)
    group, count = slot % workers, len(cpus)
    return set(sorted(cpus)[group * count // workers : (group + 1) * count // workers])


def run_games(
    tasks: Iterable[GameTask],
    workers: int,
    limits: Limits = Limits(),  # noqa: B008 - immutable
) -> Iterator[GameRecord | GameFailed]:
    """Play ``tasks`` with at most ``workers`` games at once; yield each result as it ends.

    Agents get the resource ``limits`` of :class:`~tournament.sandbox.Limits`. Yields a
    :class:`GameRecord` per game, or a :class:`~tournament.record.GameFailed` (not raised) when the
    referee itself failed. Order is completion order. Closing the iterator (or an exception in the
    consumer, e.g. ``KeyboardInterrupt``) kills the games still running. Makes this process non-dumpable and a
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
    cells = max((task.rows * task.columns for task in pending), default=0)
    with sandbox.claim_slots(min(workers, max(len(pending), 1))) as numbers:
        yield from _schedule(pending, numbers, limits, context, cells)


def _schedule(
    pending: list[GameTask],
    numbers: list[int],
    limits: Limits,
    context: multiprocessing.context.BaseContext,
    cells: int,
) -> Iterator[GameRecord | GameFailed]:
    """The scheduler of :func:`run_games`: play ``pending`` (last first), one game process a slot,
    on the slot's :func:`cpu_share` of the CPUs this process may use.

    A game process with no game left to play is told to stop at once (it ends the processes its
    last game left, :func:`_serve`), so that nothing of a finished game runs beside the games still
    being played.
    """
    cpus = os.sched_getaffinity(0)
    shares = {slot: cpu_share(slot, len(numbers), cpus) for slot in numbers}
    slots: dict[int, _GameProcess] = {}
    retired: list[_GameProcess] = []

    def start(slot: int) -> _GameProcess:
        parent_end, child_end = context.Pipe()
        progress = _Progress(context, cells)
        # The agents' users may enter their own directories in it, not list it.
        scratch = Scratch(f"slot{slot}", mode=0o711)
        # Not a daemon: its agents may start processes of their own (multiprocessing forbids
        # children to daemons); it dies with the runner instead (PR_SET_PDEATHSIG).
        process = context.Process(
            target=_serve, args=(child_end, slot, limits, progress, scratch.path, shares[slot]), daemon=False
        )
        process.start()
        child_end.close()
        return _GameProcess(process, parent_end, slot, progress, scratch)

    def discard(game: _GameProcess) -> None:
        """Kill a game process and whatever its game left behind; its slot gets a fresh one."""
        del slots[game.slot]
        game.process.kill()
        game.process.join()
        game.conn.close()
        sandbox.kill_descendants(spare={other.process.pid for other in slots.values()})
        game.scratch.close()

    try:
        while pending or any(game.task for game in slots.values()):
            for slot in numbers:
                if not pending:
                    break
                game = slots.get(slot)
                if game is None:
                    game = slots[slot] = start(slot)
                if game.task is None:
                    task = pending[-1]
                    game.progress.start(task)
                    try:
                        game.conn.send(task)
                    except OSError:  # it died between two games: the next round starts a fresh one
                        discard(game)
                        continue
                    game.task, game.started = pending.pop(), time.monotonic()
            for game in [game for game in slots.values() if game.task is None and not pending]:
                del slots[game.slot]
                with contextlib.suppress(OSError):
                    game.conn.send(None)  # no game left for it
                retired.append(game)
            busy = {game.conn: game for game in slots.values() if game.task is not None}
            for conn in wait(list(busy), timeout=1.0):
                game = busy[conn]
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    kind, payload = "died", None
                if kind == "record":
                    game.task = None
                    yield payload
                    continue
                if kind == "failed":
                    task, game.task = game.task, None
                    assert task is not None
                    yield GameFailed(f"game {task.game_id}: the referee failed:\n{payload}")
                    continue
                game.process.join(timeout=5)
                code = game.process.exitcode
                discard(game)
                yield game.lost(
                    Termination.ERROR,
                    "its process died before the first move",
                    f"the game process died (exit code {code}) during mark {{turn}}'s move",
                )
            now = time.monotonic()
            for game in list(slots.values()):
                task = game.task
                if task is None or now - game.progress.stamp <= stall_limit(task):
                    continue
                discard(game)
                yield game.lost(
                    Termination.TIMEOUT,
                    "stuck before the first move; killed",
                    f"mark {{turn}} held the game process for {now - game.progress.stamp:.0f} s; killed",
                )
    finally:
        for game in slots.values():
            if game.task is None:
                with contextlib.suppress(OSError):
                    game.conn.send(None)
            else:  # a game still being played: the caller stopped early
                game.process.kill()
        for game in [*slots.values(), *retired]:
            game.process.join()
            game.conn.close()
            game.scratch.close()
