"""Shared pytest configuration and fixtures.

Tests that start a Ray cluster (marked ``ray``; it leaves threads in this process) run after every
other test but those that load JAX, which -- marked ``jax``, or using the :func:`random_weights`
fixture -- run last. JAX starts threads once it is
imported, and forking a threaded process can deadlock the child (JAX warns on every ``os.fork()``); the
runner, the sandbox and the submission checker all fork, so their tests must run in a process that has
not imported JAX yet. Shared builders live in helper modules, not here: :mod:`tests.records` (game
records), :mod:`tests.boards` (random positions), :mod:`tests.course_reference` (the course's agents).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

# Agent files that the tests load as data (hostile, broken or public submissions): never import them
# while collecting (pytest runs with --doctest-modules, which imports every module it collects).
collect_ignore = ["data", "misbehaving", "cheats", "compat"]


def _group(item: pytest.Item) -> int:
    """0 for most tests, 1 for those that start Ray, 2 for those that load JAX."""
    if item.get_closest_marker("jax") is not None or "random_weights" in getattr(item, "fixturenames", ()):
        return 2
    return 1 if item.get_closest_marker("ray") is not None else 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests that start Ray, then those that load JAX, to the end, keeping the order within
    each group."""
    items.sort(key=_group)


@pytest.fixture(scope="session")
def random_weights() -> Callable[..., tuple]:
    """``random_weights(channels=8, blocks=2, seed=0) -> (flax module, flax parameters, numpy export)``:
    a small policy/value net (:class:`training.network.model.PolicyValueNet`) whose kernels are all
    random and non-zero, cached per arguments. Skips the test when JAX is missing."""
    jax = pytest.importorskip("jax")
    from training.network.model import PolicyValueNet, export_weights

    @functools.cache
    def make(channels: int = 8, blocks: int = 2, seed: int = 0) -> tuple:
        net = PolicyValueNet(channels=channels, blocks=blocks)
        params = net.init(jax.random.PRNGKey(seed), np.zeros((1, 6, 7, 3), np.float32))["params"]
        rng = np.random.default_rng(seed)
        params = jax.tree_util.tree_map(lambda a: rng.normal(0, 0.3, a.shape).astype(np.float32), params)
        return net, params, export_weights(params)

    return make
