"""Offline work: what makes the agents' data, never what plays.

The opening book, the policy/value network (JAX, flax, optax) and the classic learners (LMS, TD,
value and Q networks) are trained or generated here, and written as the data files the agents of
:mod:`agents` read; ``connectx train`` trains a learner, scoring it against fixed opponents as it
goes. Nothing in :mod:`agents` imports this package, so a single-file submission inlines the agents
alone (``lint-imports`` checks it).
"""
