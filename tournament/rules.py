"""Kaggle's rules on an agent's call, in words a person reads: :func:`rule_on`, and :func:`invalid_action`.

One call of an agent ends in a column played or a forfeit (:class:`~tournament.record.Forfeit`):
INVALID, TIMEOUT or ERROR, with what happened. :func:`rule_on` rules on every call, in the order
kaggle-environments checks them, wherever an agent plays: :func:`tournament.call.call` makes the
call and rules on it, for the referee's games (before the referee uses the action), the terminal,
the web board and the RL environments.
:func:`invalid_action` says why an action is INVALID, with columns counted from 1 as the replays, the
move lists and ``connectx play`` count them; the import of Kaggle's episodes uses it too.
"""

from __future__ import annotations

import numpy as np

from agents.engine.board import Board, ColumnFullError, GameOverError, NotAColumnError
from agents.kit.clock import Clock
from tournament.record import Forfeit, Termination
from tournament.replies import Unreadable

__all__ = ["Ruling", "invalid_action", "rule_on"]

Ruling = int | Forfeit
"""What :func:`rule_on` rules on one call of an agent: the column it plays (0-based), or its forfeit."""


def rule_on(mark: int, board: Board, answer: object, *, seconds: float, clock: Clock) -> Ruling:
    """The column that ``mark``, to move on ``board``, plays with ``answer``, or its forfeit, by
    Kaggle's rules.

    ``answer`` is what the call gave: the action returned (as the referee gets it,
    :func:`tournament.replies.decode`), or the exception raised; kaggle's ``DeadlineExceeded`` is no
    answer in time (the sandbox's proxy returns one when it gives up on a move). ``seconds`` is how
    long the call took and ``clock`` the time it had: ``actTimeout`` and the overage bank left
    before the call. Kaggle checks, in this order (``kaggle_environments/agent.py``, ``Agent.act``;
    ``core.py``, ``Environment.step``; ``envs/connectx/connectx.py``, ``interpreter``):

    1. TIMEOUT: no answer in time, or a call that overdrew the bank (``seconds - actTimeout`` above
       the bank left);
    2. ERROR: the agent raised (the detail is the exception's message: the proxy's says what);
    3. INVALID: anything but a Python ``int`` naming a column that is not full
       (:func:`invalid_action` says why). ``None`` is Kaggle's default action, column 0.

    Kaggle's own type check is a JSON schema, ``"type": "integer"``, which counts a whole float such
    as ``3.0`` as an integer (jsonschema's draft 2020-12, the validator ``jsonschema.validate``
    picks); its interpreter then indexes the board with it and crashes (``list indices must be
    integers or slices, not float``), ending the episode in an error of its own. Here every float is
    INVALID, as a fractional one is on Kaggle, so the game is a forfeit like any other.

    >>> rule_on(1, Board(), 3, seconds=0.1, clock=Clock())
    3
    >>> rule_on(1, Board(), 3.0, seconds=0.1, clock=Clock()).termination
    <Termination.INVALID: 'invalid'>
    >>> rule_on(2, Board.from_moves("4"), 3, seconds=62.5, clock=Clock(2.0, 60.0)).detail
    'mark 2 took 62.5 s, over its 62.0 s (actTimeout 2 s and 60.0 s left in its bank)'
    """
    if isinstance(answer, BaseException):
        # Imported here: it imports kaggle_environments (1.6 s), which a caller holding an agent's
        # answer has imported already (the referee, the sandbox), and the episodes' import need not.
        from tournament.environments import DeadlineExceeded

        if isinstance(answer, DeadlineExceeded):
            return Forfeit(mark, Termination.TIMEOUT, str(answer) or f"mark {mark} did not return in time")
    if seconds - clock.act_timeout > clock.overage:
        limit = clock.act_timeout + clock.overage
        parts = f"actTimeout {clock.act_timeout:g} s and {clock.overage:.1f} s left in its bank"
        return Forfeit(
            mark, Termination.TIMEOUT, f"mark {mark} took {seconds:.1f} s, over its {limit:.1f} s ({parts})"
        )
    if isinstance(answer, BaseException):
        return Forfeit(mark, Termination.ERROR, str(answer) or f"mark {mark} raised {type(answer).__name__}")
    column = 0 if answer is None else answer
    if type(column) is int and board.can_play(column):
        return column
    return Forfeit(mark, Termination.INVALID, invalid_action(mark, answer, board))


def invalid_action(mark: int, action: object, board: Board) -> str:
    """One line saying why ``action``, returned by ``mark`` to move on ``board``, is INVALID on Kaggle,
    with columns counted from 1 as the replays, the move lists and ``connectx play`` count them (an
    agent counts from 0). ``action`` is as the referee got it (:func:`tournament.replies.decode`).

    Which actions are invalid is Kaggle's rule (:class:`tournament.record.Termination`): anything but
    a Python ``int`` (a ``bool``, ``str``, ``float``, numpy scalar, any object), and an ``int`` that the
    board refuses (:meth:`Board.push`: no such column, a full column). ``None`` is Kaggle's default
    action, column 0. An action the board takes was ruled INVALID for another reason, and says so.

    >>> board = Board.from_moves("444444")
    >>> invalid_action(1, 3, board)
    'mark 1 chose column 4, which is full (it returned 3, counting from 0)'
    >>> invalid_action(2, 7, Board.from_moves("4"))
    'mark 2 returned 7: there is no column 8 on a 7-column board (columns are 0-6 to the agent, 1-7 here)'
    >>> invalid_action(1, "3", board)
    "mark 1 returned '3' (a str; an agent must return a Python int)"
    """
    columns = board.geo.columns
    counting = f"columns are 0-{columns - 1} to the agent, 1-{columns} here"
    if isinstance(action, Unreadable):
        kind = action.type_name.removeprefix("builtins.")
        return f"mark {mark} returned {action.text} (a {kind}; an agent must return a Python int)"
    if isinstance(action, np.generic):
        kind = next((k for t, k in _NUMPY_KINDS if isinstance(action, t)), "numpy scalar")
        shown = f"numpy.{type(action).__name__} {action.item()!r}"
        return f"mark {mark} returned {shown} (a {kind}; an agent must return a Python int, e.g. int(column))"
    if action is not None and type(action) is not int:
        kind = type(action).__name__ if type(action).__module__ == "builtins" else repr(type(action))
        return f"mark {mark} returned {action!r} (a {kind}; an agent must return a Python int)"
    if action is None:  # Kaggle plays its default action instead
        column, said = 0, f"mark {mark} returned None: Kaggle played its default action, column 1,"
    else:
        column, said = action, f"mark {mark} returned {action}:"
    try:
        board.copy().push(column)  # the board's own rules
    except NotAColumnError:
        if column < 0:
            return f"{said} a column is never negative ({counting})"
        return f"{said} there is no column {column + 1} on a {columns}-column board ({counting})"
    except ColumnFullError:
        if action is None:
            return f"{said} which is full"
        return f"mark {mark} chose column {column + 1}, which is full (it returned {column}, counting from 0)"
    except GameOverError:
        return f"{said} the game was already won"
    where = "" if action is None else f" column {column + 1},"
    return f"{said}{where} a legal move here: the referee ruled it INVALID for another reason"


_NUMPY_KINDS = ((np.bool_, "numpy bool"), (np.integer, "numpy integer"), (np.floating, "numpy float"))
"""What :func:`invalid_action` calls a numpy scalar, by its type."""
