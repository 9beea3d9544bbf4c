"""Calling an agent the way Kaggle does: :func:`call` times it, catches what it raises and rules on
its answer; :class:`Call` is the result, with the overage bank it leaves; :func:`bank_left` is the bank
after a line of moves.

Every place an agent plays goes through here: the referee's games (:mod:`tournament.game`), the
terminal (``connectx play``), the web board's tables and the RL environments' opponent. Kaggle's
``Agent.act`` (``kaggle_environments/agent.py``) times the call around it and catches any
``Exception`` as the agent's ERROR; ``Environment.step`` (``core.py``) then charges the time beyond
``actTimeout`` to the agent's ``remainingOverageTime``. The ruling on the answer, in the
tournament's words, is :func:`tournament.rules.rule_on`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agents.engine.board import Board
from agents.kit.adapter import Agent, as_player
from agents.kit.clock import Clock
from tournament.rules import Ruling, rule_on

__all__ = ["Call", "Timer", "ask", "bank_left", "call"]

Timer = Callable[[], float]
"""A clock read in seconds, ``time.perf_counter`` unless a caller (a test) injects another."""


@dataclass(frozen=True, slots=True)
class Call:
    """One call of an agent to move on ``board``: its ``answer`` (the action it returned, or the
    exception it raised), the ``seconds`` it took, the ``clock`` it had (``actTimeout`` and the bank
    left before it) and the ``ruling`` on it (:func:`tournament.rules.rule_on`: the column, or the
    forfeit)."""

    board: Board
    answer: object
    seconds: float
    clock: Clock
    ruling: Ruling

    @property
    def bank(self) -> float:
        """Seconds left in the overage bank after the call: the bank before it less the time beyond
        ``actTimeout``, never below 0.

        >>> call(lambda: 3, Board(), Clock(2.0, 60.0), timer=iter([0.0, 2.5]).__next__).bank
        59.5
        """
        return max(0.0, self.clock.overage - max(0.0, self.seconds - self.clock.act_timeout))

    def again(self, seconds: float) -> Ruling:
        """The ruling on this call had it taken ``seconds`` instead (the referee's own measure)."""
        return rule_on(self.board.mark, self.board, self.answer, seconds=seconds, clock=self.clock)


def call(
    asked: Callable[[], object], board: Board, clock: Clock, *, timer: Timer = time.perf_counter
) -> Call:
    """Call ``asked()``, the agent's move on ``board`` (the mover is ``board.mark``) with ``clock``,
    as Kaggle calls an agent: timed by ``timer`` around the call, any ``Exception`` it raises taken
    as its answer (its ERROR), and the answer ruled on by :func:`tournament.rules.rule_on`.

    >>> call(lambda: 3, Board(), Clock()).ruling
    3
    >>> call(lambda: 1 / 0, Board(), Clock()).ruling.detail
    'division by zero'
    """
    began = timer()
    answer: object
    try:
        answer = asked()
    except Exception as error:  # noqa: BLE001 - the agent's ERROR, as kaggle's Agent.act catches it
        answer = error
    seconds = timer() - began
    ruling = rule_on(board.mark, board, answer, seconds=seconds, clock=clock)
    return Call(board, answer, seconds, clock, ruling)


def ask(agent: Agent, board: Board, clock: Clock, *, timer: Timer = time.perf_counter) -> Call:
    """:func:`call` of ``agent(obs, config)`` shown ``board`` and ``clock`` as Kaggle shows them
    (:func:`agents.kit.adapter.as_player`; the agent gets a copy of the board)."""
    return call(lambda: as_player(agent).play(board.copy(), clock).column, board, clock, timer=timer)


def bank_left(clock: Clock, seconds: Iterable[float]) -> float:
    """Seconds left in a bank of ``clock.overage`` after calls that took ``seconds`` each: the time
    of each beyond ``clock.act_timeout`` drawn from it, never below 0.

    >>> bank_left(Clock(2.0, 60.0), [1.0, 3.5, 2.5])
    58.0
    """
    return max(0.0, clock.overage - sum(max(0.0, s - clock.act_timeout) for s in seconds))
