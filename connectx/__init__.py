"""The ``connectx`` command: every tool of the project as one subcommand.

It sits above the packages it drives (:mod:`agents`, :mod:`tournament`, :mod:`reports`,
:mod:`submissions`); none of them imports it. Modules, one job each: :mod:`~connectx.cli` (the
parser and dispatch, ``main``), :mod:`~connectx.options` (one-line errors, numeric bounds, the
board), :mod:`~connectx.match` (``run``, ``sprt``), :mod:`~connectx.judge` (the SPRT of an ``sprt``
match as games end), :mod:`~connectx.play` (``play``: a person against an agent at the terminal,
with :mod:`~connectx.human`, the person as a player, and :mod:`~connectx.drawing`, the board),
:mod:`~connectx.results` (``table``, ``report``), :mod:`~connectx.submission` (``build``,
``check``), :mod:`~connectx.solve` (``solve``), :mod:`~connectx.listing` (``agents``).
"""

# kaggle-environments appends .../envs/lux_ai_s3 (holding an ``agents.py``) to sys.path when
# imported; import our package first so every later ``import agents...`` finds it.
import agents  # noqa: F401
