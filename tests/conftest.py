"""Shared pytest configuration.

Tests marked ``jax`` (training the network) run after every other test. JAX starts threads once it is
imported, and forking a threaded process can deadlock the child (JAX warns on every ``os.fork()``); the
runner, the sandbox and the submission checker all fork, so their tests must run in a process that has
not imported JAX yet. Shared builders live in helper modules, not here: :mod:`tests.records` (game
records), :mod:`tests.boards` (random positions), :mod:`tests.course_reference` (the course's agents).
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests marked ``jax`` to the end, keeping the order within both groups."""
    items.sort(key=lambda item: item.get_closest_marker("jax") is not None)
