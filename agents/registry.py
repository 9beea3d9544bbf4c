"""Agent specs: the names the command line takes, and the agents they stand for.

A spec is one of

* ``NAME`` or ``NAME:key=value[,key=value]`` -- one of our agents (:data:`BUILTIN`), e.g.
  ``minimax:depth=2``; values are read as int, float, ``true``/``false`` or else text, and must
  be keyword parameters of the module's ``make_agent``;
* ``kaggle-random`` / ``kaggle-negamax`` -- kaggle-environments' own built-in agents;
* a path to a ``.py`` file -- loaded the way Kaggle loads a submission: executed at the agent's
  first move, the last callable it defines is the agent.

:func:`parse_spec` checks a spec without playing (unknown name, bad parameter, missing file raise
:class:`SpecError`, a ``ValueError``); :func:`load_agent` turns a checked spec into something
``kaggle_environments`` accepts in ``env.run``.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

BUILTIN: dict[str, str] = {
    "random": "agents.random_agent",
    "leftmost": "agents.leftmost",
    "middle": "agents.middle",
    "one_step": "agents.one_step",
    "minimax": "agents.minimax",
    "negamax": "agents.negamax",
    "network": "agents.network",
}
"""Our agents: spec name -> module exposing ``make_agent(**params)`` and ``agent``."""

KAGGLE_BUILTIN: dict[str, str] = {"kaggle-random": "random", "kaggle-negamax": "negamax"}
"""kaggle-environments' ConnectX agents: spec name -> the name ``env.run`` knows them by."""

DEFAULT_ENTRANTS = (*BUILTIN, *KAGGLE_BUILTIN)


class SpecError(ValueError):
    """An agent spec that names no agent, has a bad parameter, or points to a missing file."""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """A checked agent spec. ``kind`` is ``"builtin"``, ``"kaggle"`` or ``"file"``; ``name`` is the
    registry name, or the absolute path of a file agent; ``text`` is the spec as written."""

    text: str
    kind: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)


def _value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(text: str) -> AgentSpec:
    """Check ``text`` and return its :class:`AgentSpec`; raises :class:`SpecError` on any problem."""
    text = text.strip()
    if text in KAGGLE_BUILTIN:
        return AgentSpec(text, "kaggle", text)
    if text.endswith(".py") or os.sep in text:
        if not os.path.isfile(text):
            raise SpecError(f"agent file not found: {text}")
        return AgentSpec(text, "file", os.path.abspath(text))
    name, _, param_text = text.partition(":")
    if name not in BUILTIN:
        known = ", ".join(DEFAULT_ENTRANTS)
        raise SpecError(f"unknown agent {name!r} (known: {known}, or a path to a .py file)")
    params: dict[str, Any] = {}
    for item in filter(None, param_text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SpecError(f"bad parameter {item!r} in {text!r}: expected key=value")
        params[key.strip()] = _value(value.strip())
    make_agent = importlib.import_module(BUILTIN[name]).make_agent
    try:
        inspect.signature(make_agent).bind(**params)
        make_agent(**params)
    except (TypeError, ValueError) as error:
        raise SpecError(f"bad parameters for {name!r}: {error}") from None
    return AgentSpec(text, "builtin", name, params)


def load_agent(spec: AgentSpec, *, seed: int | None = None) -> Callable[..., Any] | str:
    """What ``kaggle_environments`` plays for ``spec``.

    Our agents come back as a fresh callable (``seed`` goes to ``make_agent`` when it takes one);
    Kaggle's built-ins as their name and files as their path, both for
    ``kaggle_environments.agent.build_agent`` to resolve exactly as Kaggle does.
    """
    if spec.kind == "kaggle":
        return KAGGLE_BUILTIN[spec.name]
    if spec.kind == "file":
        return spec.name
    make_agent = importlib.import_module(BUILTIN[spec.name]).make_agent
    params = dict(spec.params)
    if seed is not None and "seed" in inspect.signature(make_agent).parameters and "seed" not in params:
        params["seed"] = seed
    return make_agent(**params)
