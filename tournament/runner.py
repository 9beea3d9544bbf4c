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

* it notes each turn in memory it shares with the runner (:class:`~tournament.game_process.GameProgress`:
  whose move, the moves so far, since when) and sends its record through its pipe
  (:mod:`~tournament.game_process`: the messages and the game process's loop);
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
agent whose BLAS threads wait for each other on a busy core slows down many times
(``python -m benchmarks.network_busy`` measures it).

``concurrent.futures.ProcessPoolExecutor`` cannot kill a single stuck task, hence this small
scheduler on ``multiprocessing`` primitives.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.context
import os
import time
from collections.abc import Collection, Generator, Iterable, Iterator
from multiprocessing.connection import Connection, wait

from threadpoolctl import threadpool_limits

from agents.engine.solver import warm_up
from agents.kit.clock import DEFAULT_OVERAGE
from agents.registry import uses_solver
from tournament import sandbox
from tournament.game_process import STOP, GameProcess, GameProgress, Played, serve
from tournament.limits import Limits
from tournament.record import Finished, GameFailed, Termination
from tournament.sandbox import GRACE, loading
from tournament.schedule import GameTask
from tournament.scratch import Scratch


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
    the other idles; a worker on CPUs of its own leaves fewer idle and plays faster
    (``python -m benchmarks.runner_overhead`` measures both). With one worker, pinning the game
    process and its hosts together made games slower: a host's start no longer overlaps the referee.
    The runner numbers its ``workers`` slots consecutively from the first it claimed
    (:func:`~tournament.sandbox.claim_slots`; another runner on the machine may hold the slots in
    between), so its own games take every share once, and runners that play at once start at
    different shares.
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
) -> Generator[Finished, None, None]:
    """Play ``tasks`` with at most ``workers`` games at once; yield each result as it ends.

    Agents get the resource ``limits`` of :class:`~tournament.limits.Limits`. Yields a
    :class:`~tournament.record.GameRecord` per game, or a :class:`~tournament.record.GameFailed`
    (not raised) when the referee itself failed. Order is completion order. Closing the iterator (or
    an exception in the consumer, e.g. ``KeyboardInterrupt``) kills the games still running. Makes
    this process non-dumpable and a child subreaper (:mod:`tournament.sandbox`), and has it compile
    the solver first when an entrant may use it (:func:`agents.registry.uses_solver`), so that no
    host compiles it in a game, and import cloudpickle when an entrant is a pickled callable
    (:func:`tournament.sandbox.loading.preload`), so that no host imports it.
    """
    sandbox.protect_runner()
    sandbox.become_subreaper()
    pending = list(tasks)
    pending.reverse()
    if any(uses_solver(spec) for spec in {spec for task in pending for spec in (task.first, task.second)}):
        warm_up()  # the solver compiled once, here: no game process, zygote or host compiles it again
    loading.preload({spec for task in pending for spec in (task.first, task.second)})
    sandbox.isolation.machine()  # probed once, here, for every game process and host to inherit
    threadpool_limits(limits=1)  # after warm_up, which may load a BLAS (numba imports scipy): inherited
    context = multiprocessing.get_context("fork")
    # Move everything imported so far out of the collector's reach: the children then neither scan
    # nor copy those pages, as the gc.freeze documentation recommends before a fork.
    gc.freeze()
    cells = max((task.rows * task.columns for task in pending), default=0)
    with sandbox.claim_slots(min(workers, max(len(pending), 1))) as numbers:
        scheduler = _Scheduler(numbers, limits, context, cells)
        try:
            yield from scheduler.play(pending)
        finally:
            scheduler.close()


class _Scheduler:
    """The scheduler of :func:`run_games`: one game process a slot of ``numbers``, on the slot's
    :func:`cpu_share` of the CPUs this process may use, each forked from ``context`` to play with
    ``limits`` (``cells``: the largest board's cells, for its :class:`GameProgress`).

    A game process with no game left to play is told to stop at once (it ends the processes its
    last game left, :func:`~tournament.game_process.serve`), so that nothing of a finished game runs
    beside the games still being played. :meth:`close` ends them all.
    """

    def __init__(
        self, numbers: list[int], limits: Limits, context: multiprocessing.context.BaseContext, cells: int
    ) -> None:
        self.numbers, self.limits, self.context, self.cells = numbers, limits, context, cells
        cpus = os.sched_getaffinity(0)
        # The k-th slot takes share first + k: a runner's own games never share CPUs, whatever slots it
        # was given (another runner may hold the ones between), and runners start at different shares.
        self.shares = {slot: cpu_share(numbers[0] + k, len(numbers), cpus) for k, slot in enumerate(numbers)}
        self.slots: dict[int, GameProcess] = {}
        self.retired: list[GameProcess] = []
        # This process's children from before: not the games' to kill (a notebook's or a test's own).
        self.bystanders = set(sandbox.children())

    def play(self, pending: list[GameTask]) -> Iterator[Finished]:
        """Play ``pending`` (last first; the list is emptied), yielding each result as it ends."""
        while pending or any(game.task for game in self.slots.values()):
            self._hand_out(pending)
            if not pending:
                self._retire_idle()
            yield from self._collect()
            yield from self._stalled()

    def _start(self, slot: int) -> GameProcess:
        """A new game process for ``slot``."""
        parent_end, child_end = self.context.Pipe()
        progress = GameProgress(self.context, self.cells)
        # The agents' users may enter their own directories in it, not list it.
        scratch = Scratch(f"slot{slot}", mode=0o711)
        # Not a daemon: its agents may start processes of their own (multiprocessing forbids
        # children to daemons); it dies with the runner instead (PR_SET_PDEATHSIG).
        process = self.context.Process(  # type: ignore[attr-defined] # a fork context's
            target=serve,
            args=(child_end, slot, self.limits, progress, scratch.path, self.shares[slot]),
            daemon=False,
        )
        process.start()
        child_end.close()
        return GameProcess(process, parent_end, slot, progress, scratch)

    def _discard(self, game: GameProcess) -> None:
        """Kill a game process and whatever its game left behind; its slot gets a fresh one."""
        del self.slots[game.slot]
        game.process.kill()
        game.process.join()
        game.conn.close()
        sandbox.kill_descendants(
            spare={other.process.pid for other in self.slots.values() if other.process.pid} | self.bystanders
        )
        game.scratch.close()

    def _hand_out(self, pending: list[GameTask]) -> None:
        """Give every slot without a game the next of ``pending``, starting its game process if it
        has none (one that died between two games is discarded, and the next round starts another)."""
        for slot in self.numbers:
            if not pending:
                return
            game = self.slots.get(slot)
            if game is None:
                game = self.slots[slot] = self._start(slot)
            if game.task is None:
                task = pending[-1]
                game.progress.start(task)
                try:
                    game.conn.send(task)
                except OSError:
                    self._discard(game)
                    continue
                game.task, game.started = pending.pop(), time.monotonic()

    def _retire_idle(self) -> None:
        """Tell every game process without a game, now that no game is left, to stop."""
        for game in [game for game in self.slots.values() if game.task is None]:
            del self.slots[game.slot]
            with contextlib.suppress(OSError):
                game.conn.send(STOP)
            self.retired.append(game)

    def _collect(self) -> Iterator[Finished]:
        """Wait up to a second for replies, and yield the result of each game that ended: its record,
        the referee's failure, or the forfeit of the agent to move when its game process died."""
        busy: dict[Connection, GameProcess] = {g.conn: g for g in self.slots.values() if g.task is not None}
        for conn in wait(list(busy), timeout=1.0):
            game = busy[conn]  # type: ignore[index] # wait returns the connections it was given
            task = game.task
            assert task is not None
            reply = game.reply()
            if reply is not None:
                game.task = None
                if isinstance(reply, Played):
                    yield reply.record
                else:
                    yield GameFailed(f"game {task.game_id}: the referee failed:\n{reply.traceback}")
                continue
            game.process.join(timeout=5)
            code = game.process.exitcode
            self._discard(game)
            yield game.lost(
                Termination.ERROR,
                "its process died before the first move",
                f"the game process died (exit code {code}) during mark {{turn}}'s move",
            )

    def _stalled(self) -> Iterator[Finished]:
        """Kill every game process whose turn has lasted longer than :func:`stall_limit`, and yield the
        forfeit of the agent to move (:meth:`GameProcess.lost`)."""
        now = time.monotonic()
        for game in list(self.slots.values()):
            task = game.task
            if task is None or now - game.progress.stamp <= stall_limit(task):
                continue
            self._discard(game)
            yield game.lost(
                Termination.TIMEOUT,
                "stuck before the first move; killed",
                f"mark {{turn}} held the game process for {now - game.progress.stamp:.0f} s; killed",
            )

    def close(self) -> None:
        """Stop every game process: one between games is told to stop, one still playing (the caller
        stopped early) is killed; then wait for each and remove its scratch directory."""
        for game in self.slots.values():
            if game.task is None:
                with contextlib.suppress(OSError):
                    game.conn.send(STOP)
            else:
                game.process.kill()
        for game in [*self.slots.values(), *self.retired]:
            game.process.join()
            game.conn.close()
            game.scratch.close()
