"""The ``connectx`` command: every tool of the project as one subcommand (:mod:`connectx.cli` lists
them), and the terminal around them.

It is the top floor: it parses options, turns bad input into one line and exit status 2, shows
progress, and hands the work to the packages below it (:mod:`agents`, :mod:`tournament`,
:mod:`reports`, :mod:`submissions`, :mod:`training`), none of which imports it. What a subcommand
does lives in those packages; a module here holds one subcommand's options and output, or what
several share (:mod:`connectx.options`), or the terminal's own player and board (``connectx play``).
"""

# kaggle-environments appends .../envs/lux_ai_s3 (holding an ``agents.py``) to sys.path when
# imported; import our package first so every later ``import agents...`` finds it.
import agents  # noqa: F401

__all__ = ["Board", "solve"]

_LAZY = {"Board": "connectx.boards", "solve": "connectx.boards"}
"""The Python API's names and their modules, imported at first use, so that ``import connectx`` (and
the command line) stays cheap."""


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'connectx' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
