"""The time a move may use: :class:`Clock`, with Kaggle's defaults.

Kaggle gives each ConnectX move ``actTimeout`` seconds; time beyond it is drawn from the agent's
overage bank, which starts at ``remainingOverageTime`` (kaggle_environments/envs/connectx/connectx.json;
core.py draws on it). :func:`agents.kit.adapter.clock_from_obs` reads a clock from Kaggle's
observation.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_ACT_TIMEOUT", "DEFAULT_OVERAGE", "Clock"]

DEFAULT_ACT_TIMEOUT = 2.0
"""Kaggle's ``actTimeout`` for ConnectX: seconds a move may take before the bank is drawn on."""
DEFAULT_OVERAGE = 60.0
"""Kaggle's initial ``remainingOverageTime``: the seconds of each agent's overage bank."""


@dataclass(frozen=True, slots=True)
class Clock:
    """Time a move may use, in seconds: ``act_timeout`` free, then ``overage`` from the bank.
    The default is Kaggle's: 2 s a move and a 60 s bank."""

    act_timeout: float = DEFAULT_ACT_TIMEOUT
    overage: float = DEFAULT_OVERAGE
