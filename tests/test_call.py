"""Kaggle's call of an agent has one home (:mod:`tournament.call`): the same misbehaving agents played
through its four callers (the referee's games, ``connectx play``, the web board's tables, the RL
environments' opponent) get the same ruling, in the same words, and leave the same bank.

The agents' time is an injected clock that the agents themselves advance ("sleep" on), so a call's
seconds are the agent's, whatever the machine's load: over ``actTimeout`` by 1 s, or over the bank.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.engine.board import Board
from agents.kit.adapter import observation
from agents.kit.clock import Clock
from agents.registry import parse_spec
from connectx.play import AgentSide, Forfeited, _bank
from tests.records import game_task
from tournament.call import Call, ask, bank_left, call
from tournament.environments import DeadlineExceeded, structify
from tournament.game import _REFUSED, _Judged
from tournament.record import Forfeit, Termination
from tournament.rules import Ruling
from training.envs.opponent import Opponent, kaggle_callable
from web.tables import Table

MISBEHAVING = Path(__file__).parent / "misbehaving"
BOARD = Board.from_moves("444444")  # mark 1 to move; column 4 (3 to an agent) is full
CLOCK = Clock(2.0, 60.0)  # Kaggle's: 2 s a move, a 60 s bank (the web board's bank is always 60 s)


class FakeTime:
    """A clock the agents advance: ``sleep(s)`` moves it on ``s`` seconds at once."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _file(name: str) -> Callable[..., Any]:
    """The agent of ``tests/misbehaving/NAME``, loaded as Kaggle loads a file."""
    return kaggle_callable(parse_spec(str(MISBEHAVING / name)), seed=None)


def _sleeper(seconds: float, column: int = 0) -> Callable[[FakeTime], Callable[..., Any]]:
    def make(now: FakeTime) -> Callable[..., Any]:
        def agent(obs: Any, config: Any) -> int:
            now.sleep(seconds)
            return column

        return agent

    return make


def _gives_up(now: FakeTime) -> Callable[..., Any]:
    """What the sandbox's proxy does when the agent never answers: it waits out the move's limit
    and returns kaggle's ``DeadlineExceeded`` (:class:`tournament.sandbox.AgentProcess`)."""

    def agent(obs: Any, config: Any) -> object:
        now.sleep(64.5)
        return DeadlineExceeded("mark 1 did not return within 64.5 s")

    return agent


# name -> (the agent on a fake clock, the ruling, the bank left after the call)
AGENTS: dict[str, tuple[Callable[[FakeTime], Callable[..., Any]], Ruling, float]] = {
    "returns_str": (
        lambda now: _file("returns_str.py"),
        Forfeit(1, Termination.INVALID, "mark 1 returned '3' (a str; an agent must return a Python int)"),
        60.0,
    ),
    "full_column": (
        _sleeper(0.0, 3),
        Forfeit(
            1, Termination.INVALID, "mark 1 chose column 4, which is full (it returned 3, counting from 0)"
        ),
        60.0,
    ),
    "out_of_range": (
        lambda now: _file("out_of_range.py"),
        Forfeit(
            1,
            Termination.INVALID,
            "mark 1 returned 7: there is no column 8 on a 7-column board (columns are 0-6 to the agent, "
            "1-7 here)",
        ),
        60.0,
    ),
    "raises": (lambda now: _file("raises.py"), Forfeit(1, Termination.ERROR, "boom"), 60.0),
    "over_time": (_sleeper(3.0), 0, 59.0),  # 1 s over actTimeout: played, drawn from the bank
    "over_the_bank": (
        _sleeper(62.5),
        Forfeit(
            1,
            Termination.TIMEOUT,
            "mark 1 took 62.5 s, over its 62.0 s (actTimeout 2 s and 60.0 s left in its bank)",
        ),
        0.0,
    ),
    "never_returns": (_gives_up, Forfeit(1, Termination.TIMEOUT, "mark 1 did not return within 64.5 s"), 0.0),
}


def _referee(agent: Callable[..., Any], now: FakeTime) -> tuple[Ruling, float]:
    """The referee's games (:mod:`tournament.game`): the agent as kaggle-environments calls it, with
    kaggle's observation; the referee gets the column or what stands for the forfeit."""

    class Proxy:
        mark = 1

        def __call__(self, obs: Any, config: Any) -> Any:
            return agent(obs, config)

    judged = _Judged(Proxy(), game_task(act_timeout=CLOCK.act_timeout), timer=now)  # type: ignore[arg-type]
    obs, config = observation(BOARD, CLOCK)
    given = judged(structify(obs), structify(config))
    assert judged.last is not None
    ruling = judged.last.ruling
    if isinstance(ruling, int):
        assert given == ruling
    elif ruling.termination is Termination.INVALID:
        assert given is _REFUSED
    else:  # kaggle's DeadlineExceeded for a TIMEOUT, an exception for an ERROR, in the ruling's words
        expected = DeadlineExceeded if ruling.termination is Termination.TIMEOUT else RuntimeError
        assert type(given) is expected and str(given) == ruling.detail
    return ruling, judged.last.bank


def _terminal(agent: Callable[..., Any], now: FakeTime) -> tuple[Ruling, float]:
    """``connectx play``: the agent's side of the game at the terminal; the bank as the session
    charges it from the moves' times."""
    side = AgentSide(agent, "agent", say=lambda line: None, timer=now)
    try:
        made = side.play(BOARD, CLOCK)
    except Forfeited as forfeited:
        ruling: Ruling = forfeited.forfeit
        seconds = forfeited.seconds
    else:
        ruling, seconds = made.column, made.seconds
    return ruling, _bank([0.0] * BOARD.ply + [seconds], 1, CLOCK)


def _table(agent: Callable[..., Any], now: FakeTime) -> tuple[Ruling, float]:
    """The web board: a table's move, its agent seated in this process instead of a host."""
    table = Table("t", seed=1, timer=now)
    table._seat = lambda spec, mark: agent  # type: ignore[method-assign,assignment]
    try:
        reply = table.move("agent", BOARD, CLOCK.act_timeout)
    finally:
        table.close()
    ruling = reply.forfeit if reply.forfeit is not None else reply.column
    assert ruling is not None
    return ruling, reply.bank


def _opponent(agent: Callable[..., Any], now: FakeTime) -> tuple[Ruling, float]:
    """The RL environments: the fixed opponent's move, its bank charged."""
    opponent = Opponent(agent, clock=CLOCK, timer=now)
    opponent.new_game(seed=1, mark=1)
    return opponent.move(BOARD), opponent.bank


CALLERS = {"referee": _referee, "terminal": _terminal, "table": _table, "opponent": _opponent}


@pytest.mark.parametrize("name", AGENTS)
def test_the_four_callers_rule_alike_in_the_same_words_and_charge_the_same_bank(name):
    make, expected, bank = AGENTS[name]
    seen = {}
    for caller, play in CALLERS.items():
        now = FakeTime()
        seen[caller] = play(make(now), now)
    assert seen == dict.fromkeys(CALLERS, (expected, bank))


def test_a_call_is_timed_around_the_agent_and_judged_again_with_another_measure():
    now = FakeTime()
    made = ask(_sleeper(2.5)(now), BOARD, CLOCK, timer=now)
    assert isinstance(made, Call)
    assert (made.ruling, made.seconds, made.bank, made.answer) == (0, 2.5, 59.5, 0)
    late = made.again(62.6)  # the referee's own measure of the same call
    assert isinstance(late, Forfeit) and late.termination is Termination.TIMEOUT
    raised = call(lambda: {}["x"], BOARD, CLOCK, timer=now)
    assert isinstance(raised.answer, KeyError) and raised.ruling == Forfeit(1, Termination.ERROR, "'x'")


def test_the_bank_is_drawn_by_the_time_beyond_act_timeout_and_never_below_zero():
    assert bank_left(CLOCK, []) == 60.0
    assert bank_left(CLOCK, [1.0, 2.0, 2.5, 30.0]) == pytest.approx(31.5)
    assert bank_left(CLOCK, [40.0, 40.0]) == 0.0
