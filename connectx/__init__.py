"""ConnectX (Connect Four) for Kaggle: the Python API, and the ``connectx`` command over it.

The API, each name loaded on first use (so ``import connectx`` stays cheap and the command line loads
none of it):

* :func:`tournament`, :func:`sprt`, :func:`analyze` and their :class:`Result` (pandas DataFrames,
  drawn inline in a notebook), :class:`TournamentError`, :class:`RunInterrupted`
  (:mod:`connectx.tournaments`);
* :class:`Board` and :func:`solve`, a position that draws itself and its perfect-play solution, and
  a board to play on (:mod:`connectx.boards`);
* ``build`` and ``check``, a Kaggle submission of an agent (``connectx/submitting.py``), and ``Ladder``
  (``connectx/ladders.py``);
* ``entrant_spec`` and ``AgentError``, an agent from a notebook cell (``connectx/entrants.py``).

>>> import connectx
>>> result = connectx.tournament(["leftmost", "random"], games=1)  # doctest: +SKIP

The command (:mod:`connectx.cli` lists its subcommands) is the top floor: it parses options, turns bad
input into one line and exit status 2, shows progress, and hands the work to the packages below it
(:mod:`agents`, :mod:`tournament`, :mod:`reports`, :mod:`submissions`, :mod:`training`), none of which
imports it. A module here holds one subcommand's options and output, or what several share
(:mod:`connectx.options`, :mod:`connectx.runs`), or the terminal's own player and board.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# kaggle-environments appends .../envs/lux_ai_s3 (holding an ``agents.py``) to sys.path when
# imported; import our package first so every later ``import agents...`` finds it.
import agents  # noqa: F401

if TYPE_CHECKING:  # for mypy: the names as the API loads them
    from connectx.boards import Board, solve
    from connectx.entrants import AgentError, entrant_spec
    from connectx.ladders import Ladder
    from connectx.submitting import build, check
    from connectx.tournaments import Result, RunInterrupted, TournamentError, analyze, sprt, tournament

_HOMES = {
    "tournament": "connectx.tournaments",
    "sprt": "connectx.tournaments",
    "analyze": "connectx.tournaments",
    "Result": "connectx.tournaments",
    "TournamentError": "connectx.tournaments",
    "RunInterrupted": "connectx.tournaments",
    "Board": "connectx.boards",
    "solve": "connectx.boards",
    "build": "connectx.submitting",
    "check": "connectx.submitting",
    "Ladder": "connectx.ladders",
    "entrant_spec": "connectx.entrants",
    "AgentError": "connectx.entrants",
}
"""Each name of the API and the module that defines it."""

__all__ = [
    "AgentError", "Board", "Ladder", "Result", "RunInterrupted", "TournamentError", "analyze", "build",
    "check", "entrant_spec", "solve", "sprt", "tournament",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    """The API's ``name``, imported from its module on first use (then kept as this module's)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'connectx' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names and the API's."""
    return sorted({*globals(), *__all__})
