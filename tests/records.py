"""Hand-built game records for the tests: :func:`game_record` takes the task's fields and the outcome's
side by side, as a test writes them."""

from __future__ import annotations

import dataclasses
from typing import Any

from tournament.record import GameRecord
from tournament.schedule import GameTask

_TASK = {field.name for field in dataclasses.fields(GameTask)}


def game_record(**fields: Any) -> GameRecord:
    """A :class:`GameRecord` from the fields of its task (``rows``, ``columns``, ``inarow`` default to
    6, 7, 4, ``act_timeout`` to 2 s, ``hang_limit`` to None) and of its outcome."""
    task = {"rows": 6, "columns": 7, "inarow": 4, "act_timeout": 2.0, "hang_limit": None, "seed": 0}
    task |= {name: fields.pop(name) for name in _TASK & fields.keys()}
    return GameRecord(GameTask(**task), **fields)
