"""Kaggle's rules on an agent's action, in words a person reads: :func:`invalid_action`.

Which actions are INVALID is :class:`tournament.record.Termination`'s rule (kaggle-environments'
ConnectX interpreter, ``kaggle_environments/envs/connectx/connectx.py``); this module says why, with
columns counted from 1 as the replays, the move lists and ``connectx play`` count them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.engine.board import Board, ColumnFullError, GameOverError, NotAColumnError
from tournament.replies import Unreadable

__all__ = ["invalid_action"]


def invalid_action(mark: int, action: Any, board: Board) -> str:
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
