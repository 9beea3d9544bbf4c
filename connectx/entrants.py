"""Agents as the Python API takes them -- a spec, a file, or a callable from a notebook cell -- turned
into the spec strings a tournament plays (:func:`entrant_spec`, :func:`entrant_specs`).

A spec string (``"negamax"``, ``"minimax:depth=2"``) or a path (``str`` or :class:`~pathlib.Path`,
to a ``.py`` file or a ``.pkl`` file written here) is checked by
:func:`agents.registry.parse_spec` and played as it is. A callable -- a function defined in a cell
(its closures, the module globals and numpy arrays it refers to, the modules imported in the cell
included), a callable object, a :func:`functools.partial`, a bound method -- is pickled **by value**
with cloudpickle (as Ray sends a task's function) into ``folder/agents/NAME.pkl``, and its spec is
that path: a file agent, played as a file is, in a sandboxed host, which unpickles it at its first
move, once confined (:mod:`tournament.sandbox.loading`). It never runs in this process during a
game, and this process never unpickles it.

What is sent by value and what by name:

* the callable, what it refers to (globals, closure cells, defaults, attributes) and the functions
  and classes of ``__main__`` (a notebook's cells) are sent by value;
* a module that no installed distribution provides -- ``helper.py`` beside the notebook, a folder put
  on ``sys.path`` -- is sent by value too (:func:`cloudpickle.register_pickle_by_value`, for the one
  pickling), since the host, which sees only the Python installation and its packages
  (:func:`tournament.sandbox.isolation.python_folders`), could not import it;
* modules of the standard library and of installed distributions (numpy; this toolkit's
  ``agents``, from an editable install too) are sent by name, and the host imports them: it runs
  this same Python. (Telling an editable install of another project from a module beside the
  notebook asks every installed distribution, :func:`importlib.metadata.packages_distributions`:
  about a second, once a process.)

``NAME`` is the callable's ``__name__`` (a callable object's class name; a partial's function's;
a bound method's, the same method of the same object being one callable),
made safe for a file name; two different callables of one call that share a name get ``NAME_2``,
``NAME_3``... in their order. The spec depends on nothing else, so calling again with the same
folder gives the same specs, and a tournament stored there resumes (its identity is its entrants'
spec texts: :class:`tournament.schedule.Settings`); the pickle is rewritten each call, as a file
agent's file may change between runs. The same spec plays the saved callable again from the command
line: ``connectx run --agents folder/agents/NAME.pkl negamax``.

What cannot be pickled -- an open file, a socket, a lock, a generator, or a lambda closing over
one -- raises :class:`AgentError` before any game, in one sentence naming the object and how the
callable reaches it, e.g. ``my_agent cannot be sent to its sandbox: it refers to an open file
<_io.TextIOWrapper name='log.txt' mode='w' encoding='UTF-8'> (global 'log')``; nothing is written then.

Example::

    >>> import numpy as np
    >>> weights = np.arange(7)
    >>> def my_agent(obs, config):
    ...     return int(np.argmax(weights))
    >>> entrant_spec(my_agent, Path("runs/mine"))  # doctest: +SKIP
    'runs/mine/agents/my_agent.pkl'

Source: cloudpickle's documentation, "Overriding pickle's serialization mechanism for importable
constructs" (https://github.com/cloudpipe/cloudpickle).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import site
import socket
import sys
import sysconfig
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, TypeAlias

import cloudpickle

import agents
from agents.registry import PICKLED, SpecError, parse_spec

__all__ = ["Agent", "AgentError", "entrant_spec", "entrant_specs"]

Agent: TypeAlias = str | os.PathLike[str] | Callable[..., Any]
"""What the Python API takes as an agent: a spec string, a path, or a callable ``agent(obs, config)``."""

_LOCKS = (type(threading.Lock()), type(threading.RLock()))
_GENERATORS = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)


class AgentError(ValueError):
    """An agent the API cannot play: a spec :func:`~agents.registry.parse_spec` refuses, a missing
    file, something that is no agent, or a callable that cannot be sent to its sandbox (the message
    names the object that cannot be pickled and how the callable reaches it). One sentence."""


def entrant_spec(agent: Agent, folder: Path) -> str:
    """The spec string a tournament plays for ``agent`` (module docstring): a spec or path as
    checked, or for a callable the path of its pickle, written to ``folder/agents/NAME.pkl``.

    Raises :class:`AgentError` (nothing written) for an agent that cannot be played or sent.

    >>> entrant_spec("minimax:depth=2", Path("unused"))
    'minimax:depth=2'
    """
    return entrant_specs([agent], folder)[0]


def entrant_specs(agents: Sequence[Agent], folder: Path) -> list[str]:
    """:func:`entrant_spec` of each of ``agents``, in order, with different callables that share a
    name told apart (``NAME``, ``NAME_2``, ...; the same callable twice gets the same spec). Every
    agent is checked and pickled before any file is written: an :class:`AgentError` writes nothing."""
    specs: list[str] = []
    pickles: dict[str, tuple[object, bytes]] = {}
    for agent in agents:
        if isinstance(agent, str | os.PathLike):
            specs.append(_checked(agent))
            continue
        if not callable(agent):
            raise AgentError(
                f"{_short(agent)} is not an agent: give a spec such as 'negamax', the path of an agent's "
                "file, or a callable agent(obs, config)"
            )
        base, number = _file_name(agent), 1
        name = base
        while name in pickles and not _same(pickles[name][0], agent):
            number += 1
            name = f"{base}_{number}"
        if name not in pickles:
            pickles[name] = (agent, _dumps(agent))
        specs.append(str(Path(folder) / "agents" / f"{name}{PICKLED}"))
    for name, (_, data) in pickles.items():
        _write(Path(folder) / "agents" / f"{name}{PICKLED}", data)
    return specs


def _dumps(agent: Callable[..., Any]) -> bytes:
    """``agent`` pickled by value with cloudpickle, the modules it reaches that no installed
    distribution provides included (module docstring); :class:`AgentError` naming the object that
    cannot be pickled."""
    hidden = {_top(name) for name in _modules(agent) if not _installed(name)} - {"__main__"}
    registered = set(cloudpickle.list_registry_pickle_by_value())
    added = [sys.modules[name] for name in sorted(hidden - registered) if name in sys.modules]
    try:
        for module in added:
            cloudpickle.register_pickle_by_value(module)
        try:
            data: bytes = cloudpickle.dumps(agent)
            return data
        except Exception as error:  # noqa: BLE001 - any failure to pickle is told as one sentence
            raise AgentError(_why(agent, error)) from None
    finally:
        for module in added:
            cloudpickle.unregister_pickle_by_value(module)


def _checked(agent: str | os.PathLike[str]) -> str:
    """The spec text of a spec string or path, checked; a path is a file even without ``.py`` or ``/``."""
    text = os.fspath(agent).strip()
    if not isinstance(agent, str) and os.sep not in text:
        text = os.path.join(os.curdir, text)
    try:
        return parse_spec(text).text
    except SpecError as error:
        raise AgentError(str(error)) from None


def _same(one: object, other: object) -> bool:
    """Whether two agents are one callable: the same object, or the same method of the same object
    (each ``obj.method`` is a new bound method)."""
    return one is other or (isinstance(one, types.MethodType) and one == other)


def _name(agent: object) -> str:
    """The name an agent is shown by: a function's ``__name__``, a partial's function's, a callable
    object's class name."""
    while isinstance(agent, functools.partial):
        agent = agent.func
    if isinstance(agent, types.FunctionType | types.MethodType | types.BuiltinFunctionType | type):
        return str(agent.__name__)
    return type(agent).__name__


def _file_name(agent: object) -> str:
    """:func:`_name` made a safe file name: letters, digits and ``_`` only (``<lambda>``: ``lambda``)."""
    return re.sub(r"[^A-Za-z0-9_]+", "_", _name(agent)).strip("_") or "agent"


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file beside it, renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            part.unlink()


# What the callable reaches: for the modules to send by value, and to name what cannot be pickled.


def _children(obj: object) -> Iterator[tuple[str, object]]:
    """What pickling ``obj`` by value pickles with it, each with how it is reached (``global 'log'``)."""
    if isinstance(obj, functools.partial):
        yield "its function", obj.func
        yield from ((f"argument {i}", value) for i, value in enumerate(obj.args))
        yield from ((f"keyword {key!r}", value) for key, value in obj.keywords.items())
    elif isinstance(obj, types.MethodType):
        yield "its object", obj.__self__
        yield "its function", obj.__func__
    elif isinstance(obj, types.FunctionType):
        if _installed(obj.__module__) and "<locals>" not in obj.__qualname__:
            return  # pickled by name: its globals stay where they are
        code = obj.__code__
        yield from ((f"global {n!r}", obj.__globals__[n]) for n in _names(code) if n in obj.__globals__)
        for name, cell in zip(code.co_freevars, obj.__closure__ or (), strict=False):
            with contextlib.suppress(ValueError):  # an empty cell
                yield f"closure variable {name!r}", cell.cell_contents
        defaults = obj.__defaults__ or ()
        names = code.co_varnames[code.co_argcount - len(defaults) : code.co_argcount]
        yield from ((f"default of {n!r}", v) for n, v in zip(names, defaults, strict=True))
        yield from ((f"default of {n!r}", v) for n, v in (obj.__kwdefaults__ or {}).items())
    elif isinstance(obj, type):
        if not _installed(obj.__module__):
            for name, value in vars(obj).items():
                value = getattr(value, "__func__", value)  # a staticmethod's or classmethod's function
                yield f"{name!r} of class {obj.__name__}", value
    elif isinstance(obj, types.ModuleType):
        if not _installed(obj.__name__):
            yield from ((f"{k!r} of module {obj.__name__}", v) for k, v in vars(obj).items() if k[:2] != "__")
    elif isinstance(obj, list | tuple | set | frozenset):
        yield from ((f"item {i}", value) for i, value in enumerate(obj))
    elif isinstance(obj, dict):
        yield from ((f"key {key!r}", value) for key, value in obj.items())
    else:
        yield from ((f"attribute {key!r}", value) for key, value in getattr(obj, "__dict__", {}).items())
        yield "its class", type(obj)


def _names(code: types.CodeType) -> Iterator[str]:
    """The global names ``code`` and the code objects nested in it may read."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _modules(agent: object) -> set[str]:
    """The modules whose functions, classes or selves the callable reaches (by :func:`_children`)."""
    found: set[str] = set()
    seen: set[int] = set()
    stack = [agent]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, types.ModuleType):
            found.add(obj.__name__)
        elif isinstance(obj, types.FunctionType | type):
            found.add(obj.__module__)
        elif not isinstance(obj, list | tuple | set | frozenset | dict):
            found.add(type(obj).__module__)
        stack.extend(child for _, child in _children(obj))
    return found


def _why(agent: object, error: Exception) -> str:
    """The sentence saying why ``agent`` cannot be sent: the object that does not pickle, and how it
    is reached (the first found, depth first), else cloudpickle's error."""
    name = _name(agent)
    found = _culprit(agent, [], set())
    if found is None:
        return f"{name} cannot be sent to its sandbox: cloudpickle failed: {type(error).__name__}: {error}"
    obj, path, failure = found
    if not path:
        return f"{name} cannot be sent to its sandbox: it is {_what(obj, failure)}"
    return f"{name} cannot be sent to its sandbox: it refers to {_what(obj, failure)} ({' → '.join(path)})"


def _culprit(obj: object, path: list[str], seen: set[int]) -> tuple[object, list[str], Exception] | None:
    """The innermost object reached from ``obj`` that does not pickle, its path and the error."""
    try:
        cloudpickle.dumps(obj)
        return None
    except Exception as error:  # noqa: BLE001 - that is what is sought
        failure = error
    if id(obj) in seen:
        return None
    seen.add(id(obj))
    for how, child in _children(obj):
        found = _culprit(child, [*path, how], seen)
        if found is not None:
            return found
    return obj, path, failure


def _what(obj: object, failure: Exception) -> str:
    """``obj`` as the sentence names it: ``an open file <...>``, ``a lock <...>``..."""
    text = repr(obj)
    text = text if len(text) <= 240 else f"{text[:237]}..."
    if isinstance(obj, socket.socket):
        return f"a socket {text}"
    if isinstance(obj, io.IOBase):
        return f"an open file {text}"
    if isinstance(obj, _LOCKS):
        return f"a lock {text}"
    if isinstance(obj, _GENERATORS):
        return f"a generator {text}"
    return f"{text}, which cannot be pickled ({type(failure).__name__}: {failure})"


def _short(obj: object) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _top(name: str) -> str:
    return name.partition(".")[0]


def _installed(name: str) -> bool:
    """Whether module ``name`` is sent by name: of the standard library or an installed distribution
    (the host imports it), or not imported at all; ``__main__`` and other modules are sent by value."""
    if name == "__main__":
        return False
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if module is None or not file or _top(name) in sys.stdlib_module_names:
        return True
    real = os.path.realpath(file)
    if any(real.startswith(folder + os.sep) for folder in _installation()):
        return True
    top = getattr(sys.modules.get(_top(name)), "__file__", None) or ""
    beside_ours = _folder(_folder(top)) == _folder(_folder(agents.__file__ or ""))
    if os.path.basename(top).startswith("__init__.") and beside_ours:
        return True  # a package of this toolkit (an editable install: its repository)
    return _top(name) in _distributed()  # an editable install elsewhere: about a second, once


def _folder(path: str) -> str:
    return os.path.dirname(os.path.realpath(path))


@functools.cache
def _installation() -> tuple[str, ...]:
    """The folders of the Python installation and its site-packages, real paths."""
    paths = sysconfig.get_paths()
    folders = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    folders.update(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        folders.add(site.getusersitepackages())
    return tuple(os.path.realpath(folder) for folder in folders)


@functools.cache
def _distributed() -> frozenset[str]:
    """The top-level modules of the installed distributions, editable installs included (this
    toolkit's ``agents``, which lives in its repository):
    :func:`importlib.metadata.packages_distributions`."""
    return frozenset(metadata.packages_distributions())
