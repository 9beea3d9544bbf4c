"""Tournaments of ConnectX agents through the official kaggle-environments referee.

Modules, one job each: :mod:`~tournament.driver` (a whole round-robin, gauntlet or SPRT, resumable),
:mod:`~tournament.schedule` (who plays whom: round-robin, gauntlet),
:mod:`~tournament.game` (play one game through the referee, :func:`~tournament.game.play_episode`),
:mod:`~tournament.rules` (Kaggle's rules on an agent's answer),
:mod:`~tournament.runner` (games in parallel, each in a long-lived game process of its own:
:mod:`~tournament.game_process`), :mod:`~tournament.sandbox`
(each agent in a host process of its own, a package: :mod:`~tournament.sandbox.confinement` confines it,
:mod:`~tournament.replies` carries its moves), :mod:`~tournament.store` (SQLite, a package;
:mod:`~tournament.schema` its layout), :mod:`~tournament.episodes` (episodes played on Kaggle, a
package: :mod:`~tournament.episodes.fields` reads their JSON, :mod:`~tournament.episodes.replay` checks
their games).
The command line is ``connectx`` (:mod:`connectx.cli`).
"""

# kaggle-environments appends .../envs/lux_ai_s3 to sys.path when imported, and that directory holds
# a module named ``agents``. Import our package first so every later ``import agents...`` finds it.
import agents  # noqa: E402, F401
