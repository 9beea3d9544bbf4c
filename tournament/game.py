"""Play one game through kaggle-environments and return its :class:`GameRecord`.

The referee is ``kaggle_environments.make("connectx").run`` itself: it runs the game, measures every
call and decides the result exactly as on Kaggle. It never runs agent code: each agent plays in a
host process of its own behind a proxy (:mod:`tournament.sandbox`), which also scores a move that
does not return within Kaggle's limit (``actTimeout`` plus the remaining overage bank, plus
:data:`~tournament.sandbox.GRACE`; or the tournament's ``hang_limit``) as ``TIMEOUT``, where Kaggle's
own ``env.run`` would wait forever.

Every call is made and judged by Kaggle's rules (:func:`tournament.call.call`) before the referee uses it
(:class:`_Judged`), as Kaggle's schema validation would: the referee gets the column, or for a
forfeit what it scores the same way. So an action that Kaggle's schema lets through and its
interpreter then crashes on, a whole float such as ``3.0``, is INVALID like any float, and its game
is stored instead of failing on every resume.

The configuration is Kaggle's, with ``actTimeout`` and its older alias ``timeout`` both set, since
public agents budget from either (:func:`configuration`).

How forfeits are scored: kaggle gives the misbehaving agent reward ``None`` and its opponent 0;
the record counts the game as a win for the opponent, with the kind of forfeit in
:attr:`GameRecord.termination` (see :class:`~tournament.record.Termination`). The record is
:meth:`GameRecord.ended` of the moves the referee played and, for a forfeit, of the offender's last
call judged with the referee's own measure of its time; its statuses and rewards must be the
referee's.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from agents.engine.board import Board
from agents.kit.clock import Clock
from tournament.call import Call, Timer, call
from tournament.environments import DeadlineExceeded, Environment, make
from tournament.limits import Limits
from tournament.record import FORFEIT_STATUSES, Forfeit, GameRecord, Termination
from tournament.rules import Ruling
from tournament.sandbox import AgentProcess, Zygote
from tournament.schedule import GameTask


def _moves(steps: list[Any], columns: int) -> tuple[int, ...]:
    """The columns played, read off the board changes between consecutive steps."""
    moves = []
    for before, after in zip(steps, steps[1:], strict=False):
        old, new = before[0].observation.board, after[0].observation.board
        changed = [i for i in range(len(new)) if old[i] != new[i]]
        if changed:
            moves.append(changed[0] % columns)
    return tuple(moves)


def configuration(task: GameTask) -> dict[str, int | float]:
    """Kaggle's ConnectX configuration of ``task``: its board, ``actTimeout`` (seconds) and ``timeout``.

    ``timeout`` is the alias older agents budget from. kaggle-environments never derives it: its
    ConnectX spec (``envs/connectx/connectx.json``) calls it an "obsolete copy of actTimeout", an
    integer, and sets both by hand to the same whole seconds (2 and 2; 5 and 5 in 0.2.3, 8 and 8 in
    0.3.4), and ``make`` leaves it at that default whatever ``actTimeout`` it is given, refusing a
    fraction (the schema's type is ``integer``). So it follows ``actTimeout`` as such a copy can:
    its whole seconds, and at least 1, the ``minimum`` of the field it replaced (0.1's ``timeout``,
    "Seconds an agent can run before timing out"), never the 0 that ``int(0.5)`` gave.

    >>> task = GameTask(game_id=0, pair_id=0, first="a", second="b", rows=6, columns=7, inarow=4,
    ...                 act_timeout=0.5, hang_limit=None, seed=1)
    >>> configuration(task)["timeout"]
    1
    """
    return {
        "rows": task.rows,
        "columns": task.columns,
        "inarow": task.inarow,
        "actTimeout": task.act_timeout,
        "timeout": max(1, int(task.act_timeout)),
    }


def _environment(task: GameTask) -> Environment:
    """A new ConnectX environment with ``task``'s configuration."""
    return make("connectx", configuration=configuration(task))


class _Refused:
    """What the referee gets for an action :func:`~tournament.rules.rule_on` ruled INVALID: not an
    integer, so Kaggle's schema refuses it and the referee scores the call INVALID
    (``Environment.step``), as it does every action that is not a column; the agent's own action
    never reaches the interpreter, which crashes on a whole float (``3.0``) that the schema lets
    through."""

    def __repr__(self) -> str:
        return "<an action ruled INVALID>"


_REFUSED = _Refused()


class _Judged:
    """The agent as the referee calls it: its proxy, each call made and judged by
    :func:`tournament.call.call` (timed by ``timer``) before the referee uses it (the module
    docstring). The referee gets the column, or for a forfeit :data:`_REFUSED` (INVALID), kaggle's
    ``DeadlineExceeded`` (TIMEOUT) or an exception (ERROR), each of which it scores as the forfeit
    it stands for. :meth:`ruling` judges the last call again with another measure of its time."""

    def __init__(self, proxy: AgentProcess, task: GameTask, *, timer: Timer = time.perf_counter) -> None:
        self.proxy, self.task, self.timer = proxy, task, timer
        self.last: Call | None = None

    def __call__(self, obs: Any, config: Any) -> int | _Refused | BaseException:
        """The referee's call with kaggle's observation and configuration (``structify``'d dicts)."""
        task, mark = self.task, self.proxy.mark
        board = Board.from_kaggle(obs.board, mark, rows=task.rows, columns=task.columns, inarow=task.inarow)
        clock = Clock(float(config.actTimeout), float(obs.remainingOverageTime))
        self.last = call(lambda: self.proxy(obs, config), board, clock, timer=self.timer)
        ruling = self.last.ruling
        if isinstance(ruling, int):
            return ruling
        if ruling.termination is Termination.INVALID:
            return _REFUSED
        if ruling.termination is Termination.TIMEOUT:
            late: BaseException = DeadlineExceeded(ruling.detail)  # kaggle's, untyped
            return late
        return RuntimeError(ruling.detail)

    def ruling(self, seconds: float) -> Ruling:
        """The last call judged again as taking ``seconds``."""
        assert self.last is not None, "the agent was never called"
        return self.last.again(seconds)


class Environments:
    """The environment of a process that plays game after game: made once, then played again while
    the configuration stays the same, as kaggle's own ``evaluate(..., num_episodes=N)`` plays its
    episodes (``Environment.run`` resets a finished environment itself).

    ``make(...).run`` resets twice (once in ``make``, again in ``run``, which resets an environment
    still at its first step), and ``make`` itself costs more than a game of two fast agents; a reused
    environment pays a single reset a game (``python -m benchmarks.runner_overhead`` measures it).
    """

    def __init__(self) -> None:
        self._key: tuple[int, int, int, float] | None = None
        self._env: Environment | None = None

    def take(self, task: GameTask) -> Environment:
        """An environment with ``task``'s configuration, ready for its opening (at its first step)
        or, without one, for ``run`` (finished: ``run`` resets it): the kept one when its
        configuration matches, else a new one. Its ``logs`` hold this game's only."""
        key = (task.rows, task.columns, task.inarow, task.act_timeout)
        if key != self._key or self._env is None:
            self._key, self._env = key, _environment(task)
            return self._env
        env = self._env
        env.logs.clear()  # reset appends to them
        if task.opening or not env.done:
            env.reset()
        return env

    def forget(self) -> None:
        """Drop the kept environment: the next game gets a new one."""
        self._key, self._env = None, None


def play_episode(
    task: GameTask,
    on_turn: Callable[[int, list[int]], None] = lambda mark, board: None,
    *,
    slot: int = 0,
    limits: Limits = Limits(),  # noqa: B008 - immutable
    zygote: Zygote | None = None,
    environments: Environments | None = None,
) -> GameRecord:
    """Play ``task`` through ``kaggle_environments`` and return its record: one *episode*, in
    kaggle-environments' words (the in-process game loop of our own players is
    :func:`agents.kit.player.play_game`).

    The referee first plays ``task.opening`` for both sides (``env.step``, as if the agents had
    chosen those columns; no agent is called and no time is charged), then ``env.run`` plays the
    agents from there, each in its own host process (:class:`~tournament.sandbox.AgentProcess`,
    with ``limits``; ``slot``, the game's place among the runner's workers, picks the hosts'
    users). ``on_turn(mark, board)`` is called before each agent call with the board it is shown
    (the runner uses it to know whose move a crashed process was on, and the moves before it).
    The hosts' global ``random`` and numpy generators are seeded with ``task.seed`` (Kaggle's
    built-in agents use them); our agents get ``task.seed + mark``.
    Each answer is judged before the referee uses it (:class:`_Judged`).
    The hosts come from ``zygote`` when given (:class:`~tournament.sandbox.Zygote`, the runner's
    game processes), else this process forks them. They are killed when the game ends, not reaped
    (:meth:`AgentProcess.kill`): the zygote is told to kill and reap what is left of the game
    (:meth:`Zygote.clear`) while the caller goes on, and without one the caller reaps them.
    The environment comes from ``environments`` when given (:class:`Environments`, the runner's game
    processes), else it is made for this game.
    Raises whatever the referee itself raises (not the agents: their failures are forfeits), and
    ``RuntimeError`` when the referee's final statuses or rewards are not those Kaggle's rules give
    for the moves it played (:meth:`GameRecord.ended`).
    """
    random.seed(task.seed)
    np.random.seed(task.seed % 2**32)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.perf_counter()
    env = environments.take(task) if environments is not None else _environment(task)
    proxies: list[AgentProcess] = []
    try:
        _start_hosts(task, proxies, on_turn, slot=slot, limits=limits, zygote=zygote)
        _play_opening(env, task.opening)
        agents = [_Judged(proxy, task) for proxy in proxies]
        steps = env.run(agents)
    except BaseException:
        if environments is not None:
            environments.forget()  # whatever state the failure left it in is not reused
        raise
    finally:
        for proxy in proxies:
            proxy.kill()
        if zygote is not None:
            zygote.clear()
    return _record(task, env, steps, agents, duration=time.perf_counter() - clock, started_at=started_at)


def _start_hosts(
    task: GameTask,
    proxies: list[AgentProcess],
    on_turn: Callable[[int, list[int]], None],
    *,
    slot: int,
    limits: Limits,
    zygote: Zygote | None,
) -> None:
    """Start the hosts of ``task``'s agents, mark 1 then mark 2, appending each one's proxy to
    ``proxies`` as it starts (so the caller kills those started when a later one fails);
    :func:`play_episode` says what the arguments are."""
    for mark, spec in ((1, task.first), (2, task.second)):
        proxies.append(
            AgentProcess(
                spec,
                mark,
                seed=task.seed + mark,
                global_seed=task.seed,
                slot=slot,
                limits=limits,
                hang_limit=task.hang_limit,
                on_turn=on_turn,
                zygote=zygote,
            )
        )


def _play_opening(env: Environment, opening: tuple[int, ...]) -> None:
    """The referee plays ``opening`` (0-based columns) for both sides, as if the agents had chosen
    those columns (``env.step`` with the other side's action None): no agent is called and no time
    is charged."""
    for ply, column in enumerate(opening):
        actions: list[int | None] = [None, None]
        actions[ply % 2] = column
        env.step(actions)


def _record(
    task: GameTask,
    env: Environment,
    steps: list[Any],
    agents: list[_Judged],
    *,
    duration: float,
    started_at: str,
) -> GameRecord:
    """The record of ``task``, which the referee ``env`` played to its ``steps`` (kaggle's list of
    the two agents' states after each step) with ``agents``: :meth:`GameRecord.ended` of the moves
    the steps show, the seconds of every call its logs hold and, for a forfeit, the offender's last
    call judged as taking what the referee measured of it. ``duration`` (seconds) and ``started_at``
    (ISO 8601) are the record's.

    Raises ``RuntimeError`` when the referee's final statuses or rewards are not those Kaggle's rules
    give for the moves it played, or it ruled a forfeit on a legal move.
    """
    final = steps[-1]
    statuses = (final[0].status, final[1].status)
    rewards = (final[0].reward, final[1].reward)
    move_times = tuple(log["duration"] for step_logs in env.logs for log in step_logs if "duration" in log)
    forfeit = None
    offender = next((mark for mark in (1, 2) if statuses[mark - 1] in FORFEIT_STATUSES), None)
    if offender is not None:  # its last call, the game's last, as long as the referee timed it
        ruling = agents[offender - 1].ruling(move_times[-1])
        if not isinstance(ruling, Forfeit):
            raise RuntimeError(f"the referee ruled mark {offender} {statuses[offender - 1]}, on a legal move")
        forfeit = ruling
    moves = _moves(steps, task.columns)
    record = GameRecord.ended(task, moves, move_times, forfeit, duration=duration, started_at=started_at)
    if (record.statuses, record.rewards) != (statuses, rewards):
        raise RuntimeError(
            f"the referee ended the game with statuses {statuses} and rewards {rewards}, where Kaggle's "
            f"rules give {record.statuses} and {record.rewards}"
        )
    return record
