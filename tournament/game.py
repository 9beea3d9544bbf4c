"""Play one game through kaggle-environments and return its :class:`GameRecord`.

The referee is ``kaggle_environments.make("connectx").run`` itself: it validates every action,
measures every call and decides the result exactly as on Kaggle. We add one thing it lacks, a
watchdog: Kaggle measures a move only after the agent returns, so an agent that never returns would
hang ``env.run`` (``shared/NOTES.md``). Each agent call runs in a daemon thread; when it has not
returned after Kaggle's own limit -- ``actTimeout`` plus the agent's remaining overage bank, plus
:data:`GRACE` -- (or after the tournament's ``hang_limit``, if smaller), the watchdog hands the
referee kaggle's ``DeadlineExceeded``, which it scores as ``TIMEOUT``. The stuck thread is left
behind; :mod:`tournament.runner` plays each game in its own process, which ends with the game.

How forfeits are scored: kaggle gives the misbehaving agent reward ``None`` and its opponent 0;
the record counts the game as a win for the opponent, with the kind of forfeit in
:attr:`GameRecord.termination` (see :class:`~tournament.record.Termination`).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np
from kaggle_environments import make
from kaggle_environments.agent import build_agent
from kaggle_environments.errors import DeadlineExceeded

from agents.registry import load_agent, parse_spec
from tournament.record import GameRecord, Termination
from tournament.schedule import GameTask

GRACE = 0.5
"""Seconds the watchdog waits beyond Kaggle's limit before it gives up on a call."""

_FORFEITS = {"INVALID": Termination.INVALID, "TIMEOUT": Termination.TIMEOUT, "ERROR": Termination.ERROR}


class _Watchdog:
    """Calls ``agent(obs, config)`` in a daemon thread and gives up after the move's limit."""

    def __init__(
        self, agent: Callable[..., Any], mark: int, hang_limit: float | None, on_turn: Callable[[int], None]
    ) -> None:
        self.agent = agent
        self.mark = mark
        self.hang_limit = hang_limit
        self.on_turn = on_turn
        self.last_action: Any = None
        self.note = ""

    def __call__(self, obs: Any, config: Any) -> Any:
        self.on_turn(self.mark)
        limit = float(config.actTimeout) + float(obs.remainingOverageTime) + GRACE
        if self.hang_limit is not None:
            limit = min(limit, self.hang_limit)
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["action"] = self.agent(obs, config)
            except BaseException as error:  # noqa: BLE001 - every failure is the agent's ERROR
                box["error"] = error

        thread = threading.Thread(target=call, name=f"agent-mark-{self.mark}", daemon=True)
        thread.start()
        thread.join(limit)
        if thread.is_alive():
            self.note = f"mark {self.mark} did not return within {limit:.1f} s"
            return DeadlineExceeded(self.note)
        if "error" in box:
            error = box["error"]
            self.note = f"mark {self.mark} raised {type(error).__name__}: {error}"
            if not isinstance(error, Exception):  # SystemExit, KeyboardInterrupt: still the agent's error
                error = RuntimeError(self.note)
            raise error
        self.last_action = box["action"]
        return self.last_action


def _resolve(spec_text: str, env: Any, seed: int) -> Callable[..., Any]:
    """The callable kaggle-environments would play for a spec (files load lazily, as on Kaggle)."""
    raw = load_agent(parse_spec(spec_text), seed=seed)
    if callable(raw):
        return raw
    agent, _ = build_agent(raw, env.agents, env.name)
    return agent


def _moves(steps: list[Any], columns: int) -> tuple[int, ...]:
    """The columns played, read off the board changes between consecutive steps."""
    moves = []
    for before, after in zip(steps, steps[1:], strict=False):
        old, new = before[0].observation.board, after[0].observation.board
        changed = [i for i in range(len(new)) if old[i] != new[i]]
        if changed:
            moves.append(changed[0] % columns)
    return tuple(moves)


def play_game(task: GameTask, on_turn: Callable[[int], None] = lambda mark: None) -> GameRecord:
    """Play ``task`` through ``kaggle_environments`` and return its record.

    The referee first plays ``task.opening`` for both sides (``env.step``, as if the agents had
    chosen those columns; no agent is called and no time is charged), then ``env.run`` plays the
    agents from there. ``on_turn(mark)`` is called before each agent call (the runner uses it to
    know whose move a crashed process was on). The global ``random`` and numpy generators are
    seeded with ``task.seed`` (Kaggle's built-in agents use them); our agents get
    ``task.seed + mark``.
    Raises whatever the referee itself raises (not the agents: their failures are forfeits).
    """
    random.seed(task.seed)
    np.random.seed(task.seed % 2**32)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.perf_counter()
    env = make(
        "connectx",
        configuration={
            "rows": task.rows,
            "columns": task.columns,
            "inarow": task.inarow,
            "actTimeout": task.act_timeout,
        },
    )
    watchdogs = [
        _Watchdog(_resolve(spec, env, task.seed + mark), mark, task.hang_limit, on_turn)
        for mark, spec in ((1, task.first), (2, task.second))
    ]
    env.reset()
    for ply, column in enumerate(task.opening):  # the referee plays the opening for both sides
        actions: list[Any] = [None, None]
        actions[ply % 2] = column
        env.step(actions)
    steps = env.run(watchdogs)
    final = steps[-1]
    statuses = (final[0].status, final[1].status)
    rewards = (final[0].reward, final[1].reward)
    move_times = tuple(log["duration"] for step_logs in env.logs for log in step_logs if "duration" in log)
    offender = next(
        (mark for mark, status in ((1, statuses[0]), (2, statuses[1])) if status in _FORFEITS), None
    )
    detail = ""
    if offender is not None:
        termination = _FORFEITS[statuses[offender - 1]]
        result = 0.0 if offender == 1 else 1.0
        watchdog = watchdogs[offender - 1]
        detail = watchdog.note
        if termination is Termination.INVALID:
            action = watchdog.last_action
            detail = (
                f"mark {offender} returned {action!r} ({type(action).__module__}.{type(action).__name__})"
            )
    elif rewards[0] == rewards[1]:
        termination, result = Termination.DRAW, 0.5
    else:
        termination, result = Termination.WIN, 1.0 if rewards[0] == 1 else 0.0
    return GameRecord(
        **task.identity(),
        moves=_moves(steps, task.columns),
        move_times=move_times,
        result=result,
        termination=termination,
        offender=offender,
        statuses=statuses,
        rewards=rewards,
        detail=detail,
        duration=time.perf_counter() - clock,
        started_at=started_at,
    )
