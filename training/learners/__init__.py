"""The classic learners: what each one is, and the interface the training driver drives.

Each ``METHOD`` has two halves:

* ``agents/METHOD.py`` -- the runtime agent (numpy only, inlined by submissions): ``make_agent(weights:
  str | None = None, ...)`` loads a weights file (``.npz``; None: the shipped
  ``agents/data/METHOD.npz`` through :func:`agents.resources.read`) and plays any board;
* ``training/learners/METHOD.py`` -- its trainer, a :class:`Learner` (numpy, JAX/flax/optax, or
  PyTorch for ``ppo``) named after the method (``TDLearner``), which ``connectx train METHOD`` drives.

:data:`LEARNERS` maps each method to its trainer class, by its dotted name. The class's module may
also define ``UNIT`` (what the driver counts: ``"game"``, the default, or ``"step"``, the learner's
moves, for a learner that trains a fixed number of moves at a time) and ``Parameters``, a frozen
dataclass of the learner's settings, each with a default (``connectx train --param NAME=VALUE``,
:func:`parameters`); ``Parameters.chunk()`` gives the learner's chunk in its unit.
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from agents.engine.board import Geometry

__all__ = ["LEARNERS", "Learner", "learner", "parameters", "unit"]

LEARNERS: dict[str, str] = {
    "value_net": "training.learners.value_net.ValueNetLearner",
    "q_net": "training.learners.q_net.QNetLearner",
    "lms": "training.learners.lms.LMSLearner",
    "td": "training.learners.td.TDLearner",
    "ppo": "training.learners.ppo.PPOLearner",
}
"""``connectx train`` methods -> the dotted name of the class that trains them (a :class:`Learner`)."""


class Learner(Protocol):
    """A trainer, made as ``TRAINER(geo, seed)`` for the board ``geo`` (``TRAINER(geo, seed,
    parameters)`` when its module defines ``Parameters``); everything it draws comes from generators
    seeded by ``seed``.

    The driver calls :meth:`train` with the next chunk of games (of steps when the module's ``UNIT``
    is ``"step"``: then always one whole chunk), writes :meth:`save` to a weights
    file and evaluates the agent that file makes, and checkpoints :meth:`state` (restored with
    :meth:`load_state` when a run resumes). The classic learners play their training games with
    :func:`training.selfplay.play`. A learner whose agent searches until the clock sets
    ``EVAL_PARAMS``, the agent parameters evaluations use (e.g. ``{"depth": 3}``: evaluation games
    are untimed; ``ppo`` scores its policy alone, ``{"tactics": False}``).
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


def unit(method: str) -> str:
    """What the driver counts of ``method``'s training: ``"game"`` or ``"step"`` (``KeyError`` for an
    unknown method; ``ImportError`` when the trainer needs what is not installed)."""
    unit_: str = getattr(_module(method), "UNIT", "game")
    return unit_


def parameters(method: str, given: Mapping[str, str]) -> Any:
    """``method``'s ``Parameters`` with the texts ``given`` (name -> text; a tuple's items joined by
    ``+``) in place of their defaults; None for a method without ``Parameters``. ``ValueError`` for an
    unknown name, a text that is not of the field's type, or a value ``Parameters`` refuses."""
    kind = getattr(_module(method), "Parameters", None)
    if kind is None:
        if given:
            raise ValueError(f"{method} takes no --param")
        return None
    types = typing.get_type_hints(kind)
    names = [field.name for field in dataclasses.fields(kind)]
    values: dict[str, Any] = {}
    for name, text in given.items():
        if name not in names:
            raise ValueError(f"{method} has no parameter {name!r} (known: {', '.join(names)})")
        values[name] = _parse(name, text, types[name])
    return kind(**values)


def _parse(name: str, text: str, kind: Any) -> Any:
    if typing.get_origin(kind) is tuple:
        return tuple(item for item in text.split("+") if item)
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name}={text}: not {'an integer' if kind is int else 'a number'}") from None


def learner(method: str, geo: Geometry, seed: int, given: Mapping[str, str] | None = None) -> Learner:
    """A new trainer of ``method`` (a key of :data:`LEARNERS`; ``KeyError`` otherwise), with the
    parameters ``given`` (:func:`parameters`)."""
    settings = parameters(method, given or {})
    extra = () if settings is None else (settings,)
    made: Learner = getattr(_module(method), LEARNERS[method].rpartition(".")[2])(geo, seed, *extra)
    return made


def _module(method: str) -> ModuleType:
    """The module of ``method``'s trainer class."""
    return importlib.import_module(LEARNERS[method].rpartition(".")[0])
