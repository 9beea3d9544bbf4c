"""kaggle-environments, the referee, as the tournament imports it: without the OpenSpiel games it does
not need here.

``import kaggle_environments`` registers every environment it ships, and its OpenSpiel bridge
imports ``pyspiel`` and ``pokerkit``: 130 of the process's 187 MB, and most of the import's 1.6 s.
Every game process and every agent process is forked from the runner, and a fork copies the page
tables of all that memory (about 7 ms a fork, against 2 ms without it). So the runner imports the
package with those three top-level modules refused; kaggle skips the environment that needs them
(its loader catches the failure; the note it prints is swallowed) and ConnectX, its interpreter and
its agents are untouched. The refusal ends with the import: an agent may still import OpenSpiel.

If ``kaggle_environments`` was imported before this module, nothing changes.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import io
import sys

_UNNEEDED = ("pyspiel", "open_spiel", "pokerkit")


class _Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in _UNNEEDED:
            raise ImportError(f"{name} is not needed by the ConnectX referee")


if "kaggle_environments" not in sys.modules:
    _finder = _Refuse()
    sys.meta_path.insert(0, _finder)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import kaggle_environments  # noqa: F401
    finally:
        sys.meta_path.remove(_finder)

from kaggle_environments import environments, make  # noqa: E402
from kaggle_environments.agent import build_agent  # noqa: E402
from kaggle_environments.core import Environment  # noqa: E402
from kaggle_environments.errors import DeadlineExceeded  # noqa: E402
from kaggle_environments.utils import structify  # noqa: E402

BUILTIN_AGENTS = environments["connectx"]["agents"]
"""ConnectX's built-in agents by name (``random``, ``negamax``): the functions of every
``make("connectx").agents``, which ``build_agent`` resolves a name to."""

__all__ = ["BUILTIN_AGENTS", "DeadlineExceeded", "Environment", "build_agent", "make", "structify"]
