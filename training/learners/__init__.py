"""The classic learners: what each one is, and the interface the training driver drives.

Each ``METHOD`` has two halves:

* ``agents/METHOD.py`` -- the runtime agent (numpy only, inlined by submissions): ``make_agent(weights:
  str | None = None, ...)`` loads a weights file (``.npz``; None: the shipped
  ``agents/data/METHOD.npz`` through :func:`agents.resources.read`) and plays any board;
* ``training/learners/METHOD.py`` -- a :class:`Learner` (numpy, JAX/flax/optax), which
  ``connectx train METHOD`` drives.

:data:`LEARNERS` maps each method to its trainer module, which defines ``Learner``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Protocol

from agents.engine.board import Geometry

__all__ = ["LEARNERS", "Learner", "learner"]

LEARNERS: dict[str, str] = {
    "value_net": "training.learners.value_net",
    "q_net": "training.learners.q_net",
    "lms": "training.learners.lms",
    "td": "training.learners.td",
}
"""``connectx train`` methods -> the module whose ``Learner`` class trains them."""


class Learner(Protocol):
    """A trainer, made as ``Learner(geo, seed)`` for the board ``geo``; everything it draws comes
    from generators seeded by ``seed``.

    The driver calls :meth:`train` with the next chunk of games, writes :meth:`save` to a weights
    file and evaluates the agent that file makes, and checkpoints :meth:`state` (restored with
    :meth:`load_state` when a run resumes). Training games are played with
    :func:`training.selfplay.play`. A learner whose agent searches until the clock sets
    ``EVAL_PARAMS``, the agent parameters evaluations use (e.g. ``{"depth": 3}``): evaluation games
    are untimed.
    """

    def train(self, games: int) -> dict[str, float]:
        """Play ``games`` training games, learn from them, and return the chunk's metrics (name ->
        number, e.g. ``loss`` or ``good``), which the driver logs to the learning curve."""
        ...

    def save(self, path: Path) -> None:
        """Write the current weights as the ``.npz`` file ``agents/METHOD.py`` loads."""
        ...

    def state(self) -> dict[str, Any]:
        """Everything needed to resume (weights, optimiser, replay buffer, generator states), as
        picklable values."""
        ...

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""
        ...


def learner(method: str, geo: Geometry, seed: int) -> Learner:
    """A new trainer of ``method`` (a key of :data:`LEARNERS`; ``KeyError`` otherwise)."""
    module = importlib.import_module(LEARNERS[method])
    made: Learner = module.Learner(geo, seed)
    return made
