"""ConnectX for the RL ecosystem: a Gymnasium and a PettingZoo environment on the project's one board.

* :class:`~training.envs.single.ConnectXEnv` -- Gymnasium: one learner against a fixed opponent (any
  agent spec or callable, called and judged as in a tournament); registered on import as
  ``connectx/ConnectX-v0``, so that ``gymnasium.make("connectx/ConnectX-v0", opponent="one_step")``
  works after ``import training.envs``;
* :class:`~training.envs.aec.ConnectXAECEnv` and :func:`~training.envs.aec.env` -- PettingZoo AEC, two
  agents taking turns (self-play), in the shape of ``connect_four_v3``;
* :mod:`training.envs.view` (planes, action mask, text and picture), :mod:`training.envs.rewards` (the
  reward schemes, Kaggle's and the course's), :mod:`training.envs.opponent` (the fixed opponent).

They live in ``training/`` (the layer above ``agents`` and ``tournament``): the opponent is called and
its answers ruled on as in a tournament (:func:`tournament.call.ask`), and
:mod:`training.learners.ppo` trains through them. docs/rl.md has examples.
"""

from __future__ import annotations

import gymnasium

from training.envs.aec import ConnectXAECEnv, env
from training.envs.rewards import Rewards
from training.envs.single import ConnectXEnv

__all__ = ["ENV_ID", "ConnectXAECEnv", "ConnectXEnv", "Rewards", "env"]

ENV_ID = "connectx/ConnectX-v0"
"""The Gymnasium id of :class:`ConnectXEnv`."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="training.envs.single:ConnectXEnv")
