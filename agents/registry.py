"""Agent specs: the names the command line takes, and the agents they stand for.

A spec is one of

* ``NAME`` or ``NAME:key=value[,key=value]`` -- one of our agents (:data:`BUILTIN`), e.g.
  ``minimax:depth=2``; values are read as int, float, ``true``/``false`` or else text (a text
  naming an existing file, such as ``weights=runs/lms/lms.npz``, becomes its absolute path: agents
  play in a sandbox whose working directory is another), and must
  be parameters of the agent, of the type it annotates (a float must be finite; an int is a valid
  float); a value may be a path (``lms:weights=runs/lms/lms.npz``), not one holding a comma;
* ``kaggle-random`` / ``kaggle-negamax`` -- kaggle-environments' own built-in agents;
* a path to a file (a text ending in ``.py`` or ``.pkl``, or holding a path separator, unless the
  part before its first ``:`` names one of our agents): a ``.py`` file is loaded the way Kaggle
  loads a submission (executed at the agent's first move, the last callable it defines is the
  agent); a ``.pkl`` file holds a callable pickled by value (``connectx.entrants`` writes them from
  a notebook cell's functions), which only a tournament's host plays: it unpickles it at the
  agent's first move (:mod:`tournament.sandbox.loading`). Nothing here unpickles (:func:`load_agent`
  refuses a pickle).

:func:`parse_spec` checks a spec without playing (unknown name, bad parameter, missing file raise
:class:`SpecError`, a ``ValueError``, in one line; a mistyped agent or parameter name gets the
closest known one, by :func:`difflib.get_close_matches`, and an unknown parameter the list of the
agent's); :func:`load_agent` turns a checked spec into something ``kaggle_environments`` accepts in
``env.run``. :func:`files_of` and :func:`with_paths` find and
replace the files a spec reads, for playing it on another machine (:mod:`tournament.cluster`).
An agent's parameters are declared once, where they are taken: by its player class, whose signature
its module's ``make_agent`` carries (:func:`agents.kit.adapter.agent_factory`), or, for an agent
without one, by ``make_agent`` itself. The registry reads them there, through ``make_agent``'s
signature: :func:`parameters` and :func:`summary` describe an agent from its code (its parameters,
the module docstring), for ``connectx agents``.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import math
import os
import pickletools
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

BUILTIN: dict[str, str] = {
    "random": "agents.random_agent",
    "leftmost": "agents.leftmost",
    "middle": "agents.middle",
    "one_step": "agents.one_step",
    "minimax": "agents.minimax",
    "negamax": "agents.negamax",
    "network": "agents.network",
    "mcts": "agents.mcts",
    "value_net": "agents.value_net",
    "q_net": "agents.q_net",
    "lms": "agents.lms",
    "td": "agents.td",
    "ppo": "agents.ppo",
}
"""Our agents: spec name -> module exposing ``make_agent(**params)`` and ``agent``. Imported by name,
lazily: every one lies in :mod:`agents`."""

KAGGLE_BUILTIN: dict[str, str] = {"kaggle-random": "random", "kaggle-negamax": "negamax"}
"""kaggle-environments' ConnectX agents: spec name -> the name ``env.run`` knows them by."""

QUICK: dict[str, str] = {"network": "network:search=none", "td": "td:depth=3"}
"""The variants of the default round-robin for agents whose default thinks for all of ``actTimeout``
every move: the network alone, ``td`` at a fixed depth."""

DEFAULT_ENTRANTS = (
    *(QUICK.get(name, name) for name in BUILTIN if name != "mcts"),
    *KAGGLE_BUILTIN,
)
"""The default round-robin: every agent but ``mcts``, with the :data:`QUICK` variants. ``mcts``, the
network's default PUCT search and ``td``'s time-managed search think for all of ``actTimeout`` on
every move: with them the default run would take several times as long."""


_KINDS = {"an integer": int, "a finite number": float, "true or false": bool, "text": str}
"""What a spec parameter may hold, by the type ``make_agent`` annotates it with."""


PICKLED = ".pkl"
"""How the name of a file agent that holds a pickled callable ends."""


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


@dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter a spec may give one of our agents: its ``name``, what it takes (``kind``: int,
    float, bool or text, or ``"any"`` when ``make_agent`` does not annotate it) and ``default``
    as a spec writes it (``true``/``false``, a number, a text's ``repr``; ``"unset"`` for None,
    ``""`` when the parameter has no default)."""

    name: str
    kind: str
    default: str

    def __str__(self) -> str:
        """As ``connectx agents`` and spec errors show it: ``depth: int = 3``, ``weights: text =
        unset``, or ``name: kind (required)`` without a default."""
        return f"{self.name}: {self.kind}" + (f" = {self.default}" if self.default else " (required)")


def module(name: str) -> ModuleType:
    """The module of our agent ``name`` (a key of :data:`BUILTIN`), imported by its name: the one import
    of an agent by name (every one lies in :mod:`agents`); ``KeyError`` for another name."""
    return importlib.import_module(BUILTIN[name])


def parameters(name: str) -> tuple[Parameter, ...]:
    """The keyword parameters of our agent ``name`` (a key of :data:`BUILTIN`), from the signature
    of its module's ``make_agent`` (its player class's, where it has one); ``KeyError`` for another
    name."""
    make_agent = module(name).make_agent
    out = []
    for parameter in inspect.signature(make_agent, eval_str=True).parameters.values():
        allowed = set(typing.get_args(parameter.annotation)) or {parameter.annotation}
        kinds = [kind.__name__.replace("str", "text") for kind in (int, float, bool, str) if kind in allowed]
        default = parameter.default
        if default is inspect.Parameter.empty:
            default = ""
        elif default is None:
            default = "unset"
        else:
            default = str(default).lower() if isinstance(default, bool) else repr(default)
        out.append(Parameter(parameter.name, " or ".join(kinds) or "any", default))
    return tuple(out)


def summary(name: str) -> str:
    """One line on our agent ``name``: the first line of its module's docstring, without reST
    markup (double backticks, roles such as ``:mod:``) or a leading ``name:``; ``KeyError`` for a
    name not in :data:`BUILTIN`."""
    lines = (module(name).__doc__ or "").strip().splitlines()
    line = re.sub(r":\w+:`~?([^`]+)`", r"\1", (lines[0] if lines else "").replace("``", ""))
    return line.removeprefix(f"{name}:").strip()


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
    name = text.partition(":")[0]
    if _is_file(text):
        if not os.path.isfile(text):
            raise SpecError(f"agent file not found: {text}")
        return AgentSpec(text, "file", os.path.abspath(text))
    if name in KAGGLE_BUILTIN:  # with a colon: Kaggle's agents take nothing
        raise SpecError(f"{name} is kaggle-environments' own agent and takes no parameters: {text!r}")
    if name not in BUILTIN:
        raise SpecError(_unknown_agent(name))
    params = {key: _value(value) for key, value in _items(text)}
    for key, value in params.items():  # agents play in a sandbox with another working directory
        params[key] = _file(value) or value
    make_agent = module(name).make_agent
    signature = inspect.signature(make_agent, eval_str=True)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    for key in params:
        if key not in signature.parameters and not takes_any:
            raise SpecError(_unknown_parameter(key, name))
    try:
        signature.bind(**params)
        for key, value in params.items():
            _check_type(key, value, signature.parameters[key].annotation)
        make_agent(**params)
    except (TypeError, ValueError) as error:
        raise SpecError(f"bad parameters for {name!r}: {error}") from None
    return AgentSpec(text, "builtin", name, params)


def _close(word: str, known: list[str]) -> str | None:
    """The one name of ``known`` closest to ``word`` (:func:`difflib.get_close_matches`, its default
    cutoff 0.6; a name differing only in case first), or None when none is close."""
    same_but_case = [name for name in known if name.lower() == word.lower()]
    close = same_but_case or difflib.get_close_matches(word, known, n=1)
    return close[0] if close else None


def _unknown_agent(name: str) -> str:
    """The one-line error for spec name ``name``, not an agent of ours nor Kaggle's: the closest
    name when one is close, else every name.

    >>> _unknown_agent("negamx")
    "unknown agent 'negamx': did you mean 'negamax'? (`connectx agents` lists every agent)"
    """
    guess = _close(name, [*BUILTIN, *KAGGLE_BUILTIN])
    if guess is not None:
        return f"unknown agent {name!r}: did you mean {guess!r}? (`connectx agents` lists every agent)"
    known = ", ".join((*BUILTIN, *KAGGLE_BUILTIN))
    return f"unknown agent {name!r} (known: {known}, or a path to a .py file)"


def _unknown_parameter(key: str, name: str) -> str:
    """The one-line error for parameter ``key``, which our agent ``name`` does not take: the closest
    parameter when one is close, and every parameter it takes, as ``connectx agents`` lists them.

    >>> _unknown_parameter("seeds", "random")
    "unknown parameter 'seeds' for 'random': did you mean 'seed'? random takes seed: int = unset"
    """
    known = parameters(name)
    if not known:
        return f"unknown parameter {key!r} for {name!r}: {name} takes no parameters"
    guess = _close(key, [p.name for p in known])
    hint = f" did you mean {guess!r}?" if guess is not None else ""
    return f"unknown parameter {key!r} for {name!r}:{hint} {name} takes {', '.join(map(str, known))}"


def _is_file(text: str) -> bool:
    """True when the (stripped) spec ``text`` is a file agent's path, by the rule of the module docstring."""
    name = text.partition(":")[0]
    named = text.endswith((".py", PICKLED)) or os.sep in text
    return name not in BUILTIN and text not in KAGGLE_BUILTIN and named


def pickled(spec: AgentSpec) -> bool:
    """Whether ``spec`` is a file agent whose file holds a pickled callable (its name ends in
    :data:`PICKLED`), which only a tournament's host plays (module docstring)."""
    return spec.kind == "file" and spec.name.endswith(PICKLED)


def _file(value: Any) -> str | None:
    """The absolute path of a parameter value naming an existing file, else None."""
    return os.path.abspath(value) if isinstance(value, str) and os.path.isfile(value) else None


def _items(text: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` parameters of one of our agents' spec ``text``, both stripped, as written;
    :class:`SpecError` for an item that is not ``key=value``."""
    items = []
    for item in filter(None, text.partition(":")[2].split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError(f"bad parameter {item!r} in {text!r}: expected key=value")
        items.append((key.strip(), value.strip()))
    return items


def uses_solver(text: str) -> bool:
    """Whether the agent of spec ``text`` may call the compiled solver (numba's) while it plays, so
    that the process that forks its host should compile it first
    (:func:`agents.engine.solver.warm_up`): one of ours whose module says so (``USES_SOLVER =
    True``), or a file agent whose source imports this package (``import agents...`` or ``from
    agents... import``), read with :mod:`ast`; never kaggle-environments' agents, a file that does
    not parse, nor a spec that :func:`parse_spec` refuses (that agent's games fail without playing).

    Why not always compile: the compiled solver and numba hold about 45 MB of the forking
    process's memory, which every host forked from it copies the page tables of and tears down
    again; for agents that never search it is a cost per game and nothing more
    (``python -m benchmarks.runner_overhead`` measures it).

    >>> uses_solver("negamax"), uses_solver("minimax:depth=2"), uses_solver("kaggle-negamax")
    (True, False, False)
    """
    try:
        spec = parse_spec(text)
    except SpecError:
        return False
    if spec.kind == "builtin":
        return bool(getattr(module(spec.name), "USES_SOLVER", False))
    if spec.kind == "kaggle":
        return False
    if pickled(spec):
        return _pickle_names_agents(spec.name)
    try:
        with open(spec.name, "rb") as file:
            tree = ast.parse(file.read(), spec.name)
    except (OSError, SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        if any(name.partition(".")[0] == "agents" for name in names):
            return True
    return False


def _pickle_names_agents(path: str) -> bool:
    """Whether the pickle at ``path`` names this package or one of its modules (``agents``,
    ``agents.…``) in one of its texts, as a pickle by reference does (a module a pickled function
    imports, a function of ours it calls), read with :func:`pickletools.genops`, which runs nothing
    of the pickle; False for a file that is unreadable or no pickle. A text that merely names one
    (a string constant) counts too: the cost of a wrong True is one compilation of the solver."""
    try:
        with open(path, "rb") as file:
            for _, argument, _ in pickletools.genops(file):
                if isinstance(argument, str) and re.split(r"[. ]", argument)[0] == "agents":
                    return True
    except (OSError, ValueError):
        return False
    return False


def files_of(text: str) -> dict[str, str]:
    """The files agent spec ``text`` reads, as ``{as written in text: absolute path}``: a file agent's
    own path, and every parameter value naming an existing file (``lms:weights=runs/w.npz`` gives
    ``{"runs/w.npz": "/…/runs/w.npz"}``); empty for a spec that reads none. Raises
    :class:`SpecError` as :func:`parse_spec` does.

    >>> files_of("minimax:depth=2")
    {}
    """
    spec = parse_spec(text)
    if spec.kind == "file":
        return {spec.text: spec.name}
    if spec.kind == "kaggle":
        return {}
    files = {value: _file(_value(value)) for _, value in _items(spec.text)}
    return {value: path for value, path in files.items() if path is not None}


def with_paths(text: str, paths: dict[str, str]) -> str:
    """Agent spec ``text`` with each file written as a key of ``paths`` (see :func:`files_of`) replaced
    by its value: the spec that plays the same agent from copies of its files, e.g. on another
    machine. Reads the text only (the files need not exist here); other parts keep their values.

    >>> with_paths("td:weights=runs/w.npz,depth=3", {"runs/w.npz": "/tmp/copy/w.npz"})
    'td:weights=/tmp/copy/w.npz,depth=3'
    """
    text = text.strip()
    if _is_file(text) or text in KAGGLE_BUILTIN:
        return paths.get(text, text)
    items = _items(text)
    if not items:
        return text
    name = text.partition(":")[0]
    return f"{name}:" + ",".join(f"{key}={paths.get(value, value)}" for key, value in items)


def _check_type(key: str, value: Any, annotation: Any) -> None:
    """Raise ``ValueError`` unless ``value`` (as :func:`_value` read it) fits the parameter's annotation:
    ``bool`` takes true/false, ``int`` an integer, ``float`` a finite number, ``str`` any text."""
    allowed = (set(typing.get_args(annotation)) or {annotation}) & set(_KINDS.values())
    if not allowed:  # not annotated, or with a type no spec text gives: make_agent checks the value
        return
    if isinstance(value, bool):
        fits = bool in allowed
    elif isinstance(value, int):
        fits = int in allowed or float in allowed
    elif isinstance(value, float):
        fits = float in allowed and math.isfinite(value)
    else:
        fits = str in allowed
    if not fits:
        kinds = [kind for kind, wanted in _KINDS.items() if wanted in allowed]
        raise ValueError(f"{key} must be {' or '.join(kinds)}, got {value!r}")


def load_agent(spec: AgentSpec, *, seed: int | None = None) -> Callable[..., Any] | str:
    """What ``kaggle_environments`` plays for ``spec``.

    Our agents come back as a fresh callable (``seed`` goes to ``make_agent`` when it takes one);
    Kaggle's built-ins as their name and files as their path, both for
    ``kaggle_environments.agent.build_agent`` to resolve exactly as Kaggle does. A pickled callable
    (:func:`pickled`) raises :class:`SpecError`: nothing here unpickles it.
    """
    if spec.kind == "kaggle":
        return KAGGLE_BUILTIN[spec.name]
    if pickled(spec):
        raise SpecError(f"{spec.text} is a pickled callable: only a tournament's sandboxed host plays it")
    if spec.kind == "file":
        return spec.name
    make_agent = module(spec.name).make_agent
    params = dict(spec.params)
    if seed is not None and "seed" in inspect.signature(make_agent).parameters and "seed" not in params:
        params["seed"] = seed
    agent: Callable[..., Any] = make_agent(**params)
    return agent
