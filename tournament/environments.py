"""kaggle-environments, the referee, as the tournament imports it: without the modules it does not
need here (:mod:`tournament.refusal`: 0.4 s and 55 MB instead of 1.9 s and 187 MB).

Every game process and every agent process is forked from the runner, and a fork copies the page
tables of all the parent's memory (about 7 ms a fork with OpenSpiel imported, against 2 ms
without). The refusal ends with the import: an agent may still import OpenSpiel.

If ``kaggle_environments`` was imported before this module, nothing changes.
"""

from __future__ import annotations

import contextlib
import io
import sys

from tournament.refusal import refusing

if "kaggle_environments" not in sys.modules:
    with refusing(), contextlib.redirect_stdout(io.StringIO()):  # kaggle prints the skipped environment
        import kaggle_environments  # noqa: F401

from kaggle_environments import environments, make  # noqa: E402
from kaggle_environments.agent import build_agent  # noqa: E402
from kaggle_environments.core import Environment  # noqa: E402
from kaggle_environments.errors import DeadlineExceeded  # noqa: E402
from kaggle_environments.utils import structify  # noqa: E402

BUILTIN_AGENTS = environments["connectx"]["agents"]
"""ConnectX's built-in agents by name (``random``, ``negamax``): the functions of every
``make("connectx").agents``, which ``build_agent`` resolves a name to."""

__all__ = ["BUILTIN_AGENTS", "DeadlineExceeded", "Environment", "build_agent", "make", "structify"]
