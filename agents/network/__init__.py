"""``network``: the trained policy/value network, searching with PUCT (``network:search=none``: alone).

Inference is numpy only (:mod:`agents.network.numpy_forward`); training lives outside the package
(:mod:`training.network`, JAX/flax/optax) and is never imported by the agent. See :mod:`agents.network.agent`.
"""

from agents.network.agent import agent, make_agent

__all__ = ["USES_SOLVER", "agent", "make_agent"]

USES_SOLVER = True
"""The solved stage searches with the compiled solver (:func:`agents.registry.uses_solver`)."""
