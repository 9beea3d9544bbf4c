"""One game process of the runner (:mod:`tournament.runner`): its loop, the messages on its pipe, and
the runner's handle on it.

The runner sends a game process a :class:`~tournament.schedule.GameTask` at a time, or :data:`STOP`
(None) when it has no game left for it, and the game process answers each task with a
:data:`Reply`: :class:`Played` (the game's record) or :class:`RefereeFailed` (the referee's
traceback). Messages are pickled by ``multiprocessing`` between two processes of ours (no agent
code runs in either). While a game is played, the game process notes each turn in a
:class:`GameProgress`, memory it shares with the runner, so that a move costs no message and the runner
knows whose move it was when the game process dies or stalls (:meth:`GameProcess.lost`).
"""

from __future__ import annotations

import ctypes
import functools
import multiprocessing
import multiprocessing.context
import multiprocessing.process
import os
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection

from tournament import sandbox
from tournament.game import Environments, play_episode
from tournament.limits import Limits
from tournament.record import Forfeit, GameFailed, GameRecord, Termination
from tournament.sandbox.confinement import close_all_but
from tournament.schedule import GameTask
from tournament.scratch import Scratch

__all__ = ["STOP", "GameProcess", "Order", "Played", "GameProgress", "RefereeFailed", "Reply", "serve"]


@dataclass(frozen=True, slots=True)
class Played:
    """A game process's reply: the game was played, and this is its record."""

    record: GameRecord


@dataclass(frozen=True, slots=True)
class RefereeFailed:
    """A game process's reply: the referee raised on the game (not an agent: their failures are
    forfeits); ``traceback`` is Python's, formatted."""

    traceback: str


Reply = Played | RefereeFailed
"""What a game process sends the runner for each task it received."""

STOP = None
"""What the runner sends a game process that has no game left to play: it ends the processes its
last game left, and exits."""

Order = GameTask | None
"""What the runner sends a game process: the next game to play, or :data:`STOP`."""


class GameProgress:
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
        self._moves[: len(task.opening)] = list(task.opening)
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
        return float(self._stamp.value)

    def forfeit(self, task: GameTask, started: float, termination: Termination, detail: str) -> GameRecord:
        """The record of a game whose process died or stalled while an agent was to move (:attr:`turn`
        not 0): that agent forfeits, with the moves played so far."""
        return GameRecord.ended(
            task,
            self._moves[: self._count.value],
            forfeit=Forfeit(self.turn, termination, detail),
            duration=time.monotonic() - started,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )

    @property
    def turn(self) -> int:
        """The mark whose turn it is, 0 before the first agent's move."""
        return int(self._turn.value)


def serve(
    conn: Connection, slot: int, limits: Limits, progress: GameProgress, scratch: str, cpus: set[int]
) -> None:
    """A game process: play each :data:`Order` received on ``conn`` until :data:`STOP`, replying
    with a :data:`Reply` (module docstring). It, its zygote and its agents' hosts run on ``cpus``
    (:func:`tournament.runner.cpu_share`). The hosts come from a zygote of its own
    (:class:`~tournament.sandbox.Zygote`), started again if it died; their working directories go in
    ``scratch``, which the runner removes when the game process ends. It keeps its environment from
    game to game (:class:`~tournament.game.Environments`). Never returns: it exits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    sandbox.become_game_process()
    # None of the runner's descriptors but the pipe: the run's lock above all (an flock, shared with
    # every process that holds it: a run killed with -9 would keep its directory locked until its game
    # processes died too), the store's database, a Ray worker's connections.
    close_all_but(conn.fileno())
    os.sched_setaffinity(0, cpus)  # inherited by the zygote, and by the hosts it forks
    tempfile.tempdir = scratch
    zygote = sandbox.Zygote()
    environments = Environments()
    try:
        while (task := _order(conn)) is not STOP:
            if not zygote.alive():  # killed: what its hosts left goes too
                zygote.close()
                sandbox.kill_descendants()
                zygote = sandbox.Zygote()
            reply: Reply
            try:
                record = play_episode(
                    task,
                    on_turn=functools.partial(progress.on_turn, columns=task.columns),
                    slot=slot,
                    limits=limits,
                    zygote=zygote,
                    environments=environments,
                )
                reply = Played(record)
            except BaseException:  # noqa: BLE001 - reported to the runner, which decides
                reply = RefereeFailed(traceback.format_exc())
            conn.send(reply)
    finally:
        zygote.close()  # which clears up after its hosts (their cgroups)
        sandbox.kill_descendants()
        os._exit(0)


def _order(conn: Connection) -> Order:
    """The next :data:`Order` the runner sent on ``conn`` (waiting for it)."""
    order = conn.recv()
    assert order is STOP or isinstance(order, GameTask), f"not an order: {order!r}"
    return order


@dataclass
class GameProcess:
    """The runner's handle on one game process: its process, the runner's end of its pipe, its slot
    and :class:`GameProgress`, its scratch directory, and the game it plays (``task``, None between
    games; ``started``: when, ``time.monotonic``)."""

    process: multiprocessing.process.BaseProcess
    conn: Connection
    slot: int
    progress: GameProgress
    scratch: Scratch
    task: GameTask | None = None
    started: float = 0.0

    def reply(self) -> Reply | None:
        """The game process's reply to its task (waiting for it), or None when it died (its pipe
        closed or broke)."""
        try:
            reply = self.conn.recv()
        except (EOFError, OSError):
            return None
        assert isinstance(reply, Played | RefereeFailed), f"not a reply: {reply!r}"
        return reply

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
