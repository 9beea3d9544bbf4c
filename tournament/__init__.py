"""Tournaments of ConnectX agents through the official kaggle-environments referee.

Modules, one job each: :mod:`~tournament.schedule` (who plays whom: round-robin, gauntlet),
:mod:`~tournament.game` (play one game, return a :class:`~tournament.record.GameRecord`),
:mod:`~tournament.runner` (games in parallel, each in its own process), :mod:`~tournament.sandbox`
(each agent in a host process of its own, a package: :mod:`~tournament.sandbox.confinement` confines it,
:mod:`~tournament.replies` carries its moves), :mod:`~tournament.store` (SQLite;
:mod:`~tournament.schema` its layout). The command line is ``connectx`` (:mod:`connectx.cli`).
"""

# kaggle-environments appends .../envs/lux_ai_s3 to sys.path when imported, and that directory holds
# a module named ``agents``. Import our package first so every later ``import agents...`` finds it.
import agents  # noqa: E402, F401
