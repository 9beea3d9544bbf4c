"""Each tab's game: a :class:`Table` plays its agents' moves in sandboxed hosts, as a tournament does.

A tab that shows the board page opens a table (:meth:`OpenTables.open`) and closes it when it goes: the
page sends a beacon when it is hidden for good (``pagehide``), and a table that has had no sign of life
for :data:`EXPIRY` seconds is closed anyway (:meth:`OpenTables.expire`: a tab that crashed, a lost beacon).

An agent's move runs where a tournament's does. The table has a zygote of its own
(:class:`tournament.sandbox.Zygote`), forked by the server's fork server (:mod:`web.forkserver`),
a clean process started before the server built anything, so that no host holds a copy of the
server's objects; the zygote forks each agent's host; the host loads the agent, confines itself and
answers through :class:`tournament.sandbox.AgentProcess`, the referee's proxy, so a user's file never
runs in the server. It is called and its answer judged as in a tournament
(:func:`tournament.call.ask`): a column, or a forfeit (INVALID, TIMEOUT, ERROR) in the tournament's
words. Each agent has ``actTimeout`` and an overage bank of Kaggle's 60 s, drawn on by the moves of
the line on the board (so undoing a slow move gives its time back), as ``connectx play`` charges it
(:func:`tournament.call.bank_left`). Where the server runs as root, the table claims a game slot of
its own (:func:`tournament.sandbox.claim_slots`), so that its agents have users no
other game on the machine has.

Changing an agent, a forfeit, cancelling a move (undo, a new game while an agent thinks) and closing
the table end its hosts: the zygote is closed, and its hosts with it; the fork server, their parent,
kills and reaps whatever they left. The next move forks a fresh zygote. No wait of a table has no end:
the fork server and the zygote answer within :data:`web.forkserver.ANSWER` seconds or the move fails,
and closing a table whose move is stuck kills its zygote, which ends the move at once.

The table keeps the time of every move its agents made and every forfeit, by position: a game saved
from the tab (:mod:`web.saving`) takes its agents' times and its forfeit from here, not from the page.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agents.engine.board import Board
from agents.kit.clock import DEFAULT_OVERAGE, Clock
from tournament import sandbox
from tournament.call import Timer, ask, bank_left
from tournament.record import Forfeit
from web.forkserver import ForkServer, ServedZygote

__all__ = ["EXPIRY", "MAX_TABLES", "Cancelled", "Closed", "Reply", "OpenTables", "Table"]

EXPIRY = 180.0
"""Seconds without a sign of life after which a table is closed. The page pings every 20 s; a hidden
tab's timers may run once a minute only (Chromium's intensive throttling), hence the margin."""

STUCK = 0.5
"""Seconds :meth:`Table.close` waits for a move to let go of the table before it kills the zygote."""

MAX_TABLES = 32
"""Tables open at once; one more is refused (each holds a zygote and up to two agents)."""

Key = tuple[int, int, int, float, int, str]
"""What a move's time is kept under, with the moves before it: rows, columns, inarow, actTimeout,
the agent's mark, its spec."""


class Cancelled(Exception):  # noqa: N818 - an event, like the tournament's statuses
    """The move was cancelled while the agent thought (:meth:`Table.cancel`); it counts for nothing."""


class Closed(Exception):  # noqa: N818 - an event
    """The table was closed (its tab went, or the server is stopping)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """An agent's move: the ``column`` it played (0-based) or its ``forfeit``, the ``seconds`` the
    call took, and the ``bank`` left after it (seconds)."""

    column: int | None
    forfeit: Forfeit | None
    seconds: float
    bank: float


def _key(board: Board, act_timeout: float, spec: str) -> Key:
    geo = board.geo
    return (geo.rows, geo.columns, geo.inarow, act_timeout, board.mark, spec)


class Table:
    """One tab's game (module docstring). ``seed`` seeds its agents as a tournament game's seed
    does; ``slot`` is its game slot (it picks the agents' users when the server is root);
    ``zygotes`` makes its zygote (:meth:`web.forkserver.ForkServer.zygote`; by default one forked
    from this process, for a caller with a single thread); ``timer`` times its agents' calls."""

    def __init__(
        self,
        table_id: str,
        seed: int,
        slot: int = 0,
        *,
        zygotes: Callable[[], sandbox.Zygote] = sandbox.Zygote,
        timer: Timer = time.perf_counter,
    ) -> None:
        self.id, self.seed, self.slot = table_id, seed, slot
        self._zygotes, self._timer = zygotes, timer
        self.touched = time.monotonic()
        self.closed = False
        self._lock = threading.Lock()
        self._zygote: sandbox.Zygote | None = None
        self._seats: dict[int, tuple[str, sandbox.AgentProcess]] = {}
        self._moves: dict[tuple[Key, tuple[int, ...]], tuple[int | None, float]] = {}
        self._forfeits: dict[tuple[Key, tuple[int, ...]], Forfeit] = {}
        self._thinking: sandbox.AgentProcess | None = None
        self._cancelled = False

    def move(self, spec: str, board: Board, act_timeout: float) -> Reply:
        """The move of agent ``spec`` (a checked spec) to move on ``board`` (game on), with
        ``act_timeout`` seconds and the bank its earlier moves on this line left it.

        Raises :class:`Cancelled` when :meth:`cancel` ended the move, :class:`Closed` when the table
        is closed, ``OSError`` when no host could be forked.
        """
        self.touched = time.monotonic()
        with self._lock:
            if self.closed:
                raise Closed
            if self._cancelled:  # a cancel since the last move may have killed a host that had answered
                self._end_hosts()
                self._cancelled = False
            key = _key(board, act_timeout, spec)
            clock = Clock(act_timeout, self.bank(key, board.moves))
            proxy = self._seat(spec, board.mark)
            self._thinking = proxy
            if self._cancelled:  # cancelled while its host was being made: never asked
                self._thinking = None
                self._end_hosts()
                self._cancelled = False
                raise Cancelled
            made = ask(proxy, board, clock, timer=self._timer)
            self._thinking = None
            if self._cancelled or self.closed:
                self._end_hosts()
                self._cancelled = False
                raise Closed if self.closed else Cancelled
            ruling, seconds = made.ruling, made.seconds
            self._moves[key, board.moves] = (None if isinstance(ruling, Forfeit) else ruling, seconds)
            if isinstance(ruling, Forfeit):
                self._forfeits[key, board.moves] = ruling
                self._end_hosts()  # a host that timed out may think on; one that failed may be broken
                return Reply(None, ruling, seconds, made.bank)
            return Reply(ruling, None, seconds, made.bank)

    def bank(self, key: Key, moves: tuple[int, ...]) -> float:
        """Seconds left in the bank of the agent ``key`` before its move after ``moves``: Kaggle's 60 s
        less what each of its moves on this line (timed here) took beyond ``actTimeout``."""
        act_timeout, mark = key[3], key[4]
        made = (self._moves.get((key, moves[:ply])) for ply in range(mark - 1, len(moves), 2))
        return bank_left(Clock(act_timeout, DEFAULT_OVERAGE), [m[1] for m in made if m is not None])

    def played(self, spec: str, board: Board, act_timeout: float) -> tuple[int | None, float] | None:
        """What the agent ``spec`` did on ``board`` here: ``(column, seconds)`` (the column None for a
        forfeit), or None if it was never asked there."""
        return self._moves.get((_key(board, act_timeout, spec), board.moves))

    def forfeited(self, spec: str, board: Board, act_timeout: float) -> Forfeit | None:
        """The forfeit agent ``spec`` made on ``board`` here, or None."""
        return self._forfeits.get((_key(board, act_timeout, spec), board.moves))

    def cancel(self) -> None:
        """End the move being thought, if any: its host is killed, so :meth:`move` returns at once
        (raising :class:`Cancelled`); a move still making its host is never asked. Takes no lock:
        :meth:`move` holds it meanwhile. A move that answered just before is not undone, but the
        next move starts with fresh hosts, since the kill may have hit that host after its answer."""
        self.touched = time.monotonic()
        if self._lock.locked():  # a move under way (set before its host is looked at: see move)
            self._cancelled = True
        thinking = self._thinking
        if thinking is not None:
            self._cancelled = True
            with contextlib.suppress(ProcessLookupError):
                if thinking.pid:  # the zygote's child, which only the zygote reaps: the pid is not reused
                    os.kill(thinking.pid, signal.SIGKILL)

    @property
    def zygote(self) -> int:
        """The pid of the table's zygote, 0 when it has none."""
        zygote = self._zygote
        return zygote.pid if zygote is not None else 0

    def close(self) -> None:
        """End the table: a move being thought is cancelled, then the zygote and every host go. A
        move still holding the table after :data:`STUCK` seconds (waiting for its zygote) is ended by
        killing the zygote."""
        self.closed = True
        self.cancel()
        if not self._lock.acquire(timeout=STUCK):
            zygote = self._zygote
            if zygote is not None:
                _kill(zygote)
            self._lock.acquire()
        try:
            self._end_hosts()
        finally:
            self._lock.release()

    def _seat(self, spec: str, mark: int) -> sandbox.AgentProcess:
        """The host of ``spec`` playing ``mark``: the one there, else a new one (a seat whose agent
        changed ends the table's hosts first)."""
        seated = self._seats.get(mark)
        if seated is not None and seated[0] == spec:
            return seated[1]
        if seated is not None:
            self._end_hosts()
        if self._zygote is None or not self._zygote.alive():
            self._zygote = self._zygotes()
        proxy = sandbox.AgentProcess(
            spec, mark, seed=self.seed + mark, global_seed=self.seed, slot=self.slot, zygote=self._zygote
        )
        self._seats[mark] = (spec, proxy)
        return proxy

    def _end_hosts(self) -> None:
        """Kill every host of the table and close its zygote (its parent reaps what they leave); the next move
        forks a fresh zygote. (Not :meth:`tournament.sandbox.Zygote.clear`: called again before the caller has
        taken the hosts the last call asked for, it kills those hosts too.)"""
        for _, proxy in self._seats.values():
            proxy.kill()
        self._seats.clear()
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None


class OpenTables:
    """The open tables, by id (an unguessable token). Where the server is root, each claims a game
    slot for as long as it is open (:func:`tournament.sandbox.claim_slots`). Their zygotes come from
    :attr:`forks`, a :class:`web.forkserver.ForkServer` (while None, they are forked from this
    process)."""

    def __init__(
        self, *, expiry: float = EXPIRY, limit: int = MAX_TABLES, forks: ForkServer | None = None
    ) -> None:
        self.expiry, self.limit, self.forks = expiry, limit, forks
        self._lock = threading.Lock()
        self._tables: dict[str, Table] = {}
        self._slots: dict[str, contextlib.ExitStack] = {}

    def open(self) -> Table:
        """A new table. Raises ``RuntimeError`` (one line) when :attr:`limit` tables are open or no game
        slot is free."""
        self.expire()
        with self._lock:
            if len(self._tables) >= self.limit:
                raise RuntimeError(
                    f"{self.limit} boards are open already: close a tab, or wait a few minutes"
                )
            stack = contextlib.ExitStack()
            slot = stack.enter_context(_slot()) if sandbox.isolating() else 0
            zygotes = self.forks.zygote if self.forks is not None else sandbox.Zygote
            table = Table(secrets.token_urlsafe(12), secrets.randbits(32), slot, zygotes=zygotes)
            self._tables[table.id] = table
            self._slots[table.id] = stack
        return table

    def get(self, table_id: str) -> Table:
        """The open table ``table_id``; ``KeyError`` when there is none (closed, expired, unknown)."""
        with self._lock:
            table = self._tables[table_id]
        table.touched = time.monotonic()
        return table

    def close(self, table_id: str) -> bool:
        """Close the table ``table_id``; False when there was none."""
        with self._lock:
            table = self._tables.pop(table_id, None)
            stack = self._slots.pop(table_id, None)
        if table is None:
            return False
        table.close()
        if stack is not None:
            stack.close()
        return True

    def expire(self, now: Callable[[], float] = time.monotonic) -> list[str]:
        """Close the tables that have had no sign of life for :attr:`expiry` seconds; their ids."""
        moment = now()
        with self._lock:
            stale = [t.id for t in self._tables.values() if moment - t.touched > self.expiry]
        return [table_id for table_id in stale if self.close(table_id)]

    def ids(self) -> list[str]:
        """The ids of the open tables."""
        with self._lock:
            return list(self._tables)

    def cancel_all(self) -> None:
        """Cancel the move being thought at every table (:meth:`Table.cancel`; no table lock is
        taken, so a signal handler may call it)."""
        with self._lock:
            tables = list(self._tables.values())
        for table in tables:
            table.cancel()

    def close_all(self) -> None:
        """Close every table (the server is stopping), several at once: each waits for its zygote to
        clear up and exit."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="closing") as pool:
            list(pool.map(self.close, self.ids()))


def _kill(zygote: sandbox.Zygote) -> None:
    """Kill ``zygote`` now, its hosts with it (no wait: its closing reaps it)."""
    if isinstance(zygote, ServedZygote):
        zygote.kill()
    elif zygote.pid:  # this process's child, not reaped before it is closed: its pid is its own
        with contextlib.suppress(ProcessLookupError):
            os.kill(zygote.pid, signal.SIGKILL)


@contextlib.contextmanager
def _slot() -> Iterator[int]:
    """One game slot no other runner on the machine holds (:func:`tournament.sandbox.claim_slots`)."""
    with sandbox.claim_slots(1) as slots:
        yield slots[0]
