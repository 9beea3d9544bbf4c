"""Offline making of the network that :mod:`agents.network` plays (JAX, flax, optax; never shipped).

* :mod:`training.network.data`: positions from noisy tactical games, labelled by the solver (shards);
* :mod:`training.network.examples`: policy / value targets and extra examples from those labels;
* :mod:`training.network.model`: the flax network (its numpy twin is :mod:`agents.network.numpy_forward`);
* :mod:`training.network.evaluate`: games of the network alone and the training curves;
* :mod:`training.network.train`: the resumable training run (``python -m training.network.train``).
"""
