"""A function written in a notebook cell (or any module) as a single-file submission, by its source.

Kaggle's loader executes the file in an empty namespace and plays its **last callable**
(``kaggle_environments.agent.get_last_callable``), so :func:`build_function` writes, top to bottom:

1. the imports the function and its helpers name -- a module bound to a name becomes
   ``import numpy as np``, a function or class of a module ``from math import sqrt as sqrt`` --
   numpy and the standard library only (``sys.stdlib_module_names``), as Kaggle's image holds them
   and a submission is one file; anything else is a :class:`~submissions.inline.BuildError` naming
   the module;
2. the values it refers to as constants, by source: numbers, strings, bytes, ``None``, and tuples,
   lists, sets and dicts of those; numpy arrays (and numpy scalars) are embedded as ``np.save``
   bytes, zlib-compressed and base64-encoded, at most :data:`MAX_DATA` bytes of them in a file;
3. the source of every helper function and class it refers to, recursively (from the function's
   globals and closure: a closure's variables become the file's module-level names);
4. the function itself, last.

Its source, and the names it refers to, come from :mod:`submissions.sources`.

What cannot be written as source or run from one file -- an open file, a lock, an object of any other
class, a lambda that shares its line with another, a function whose ``nonlocal`` needs its enclosing
function, an ``import`` of a module other than numpy and the standard library in its body -- is a
:class:`~submissions.inline.BuildError`: one sentence naming the object. Values are written as they
are when the file is built (a global the function changes starts at its current value).
"""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import types
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from submissions.build import Submission, header
from submissions.inline import BuildError
from submissions.sources import allowed, class_source, function_source, loaded_names, methods, screen

__all__ = ["MAX_DATA", "build_function"]

MAX_DATA = 4 * 2**20
"""Bytes of embedded arrays (base64 text) a built file may hold: with its code it stays under the 5 MB
above which uploads are reported to fail (:data:`submissions.verdict.SIZE_WARNING`)."""

ARRAY_LINE = 88
"""Characters of base64 a line of the file holds."""

ARRAY_LOADER = "_connectx_array"
"""The name of the function in the file that turns embedded text back into an array."""

_LOADER_SOURCE = f'''def {ARRAY_LOADER}(text):
    """The numpy array embedded as ``text`` (np.save bytes, zlib, base64), written by connectx build."""
    import base64
    import io
    import zlib

    import numpy

    data = zlib.decompress(base64.b64decode(text))
    return numpy.load(io.BytesIO(data), allow_pickle=False)
'''

OBJECT_MAKER = "_connectx_object"
"""The name of the function in the file that makes an object of the user's class from its attributes."""

_OBJECT_SOURCE = f'''def {OBJECT_MAKER}(cls, attributes):
    """An object of ``cls`` with ``attributes``, made as pickle makes it (no __init__), by connectx build."""
    made = cls.__new__(cls)
    made.__dict__.update(attributes)
    return made
'''

_SCALARS = (int, float, complex, bool, str, bytes, type(None))


def _lookup(module: str, qualname: str) -> Any:
    """The object at ``module``'s ``qualname`` (None when there is none)."""
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


class _Writer:
    """The file's parts for one agent function, gathered depth first (module docstring)."""

    def __init__(self, home: str) -> None:
        self.home = home  # the agent's module: its functions and classes are written by source
        self.imports: dict[str, str] = {}  # name -> import statement
        self.blocks: list[str] = []  # constants and definitions, each after what it needs
        self.bound: dict[str, Any] = {}  # name -> the object it stands for
        self.data: list[tuple[str, int]] = []  # (array's name, bytes embedded)
        self.modules: dict[str, None] = {}
        self.scopes: list[tuple[str, dict[str, Any]]] = []  # (file, globals) of each function written

    def bind(self, name: str, value: Any, user: str) -> bool:
        """Claim ``name`` for ``value``: False when it is bound to it already; :class:`BuildError` when
        it stands for something else (two helpers' globals, or a global and a closure variable)."""
        if name in self.bound:
            if self.bound[name] is value:
                return False
            raise BuildError(
                f"the name {name!r} stands for two different objects ({user} uses one of them): rename one"
            )
        self.bound[name] = value
        return True

    def value(self, name: str, value: Any, user: str) -> None:
        """Write ``name = value`` in the file the way its kind allows (module docstring)."""
        if isinstance(value, types.ModuleType):
            self._module(name, value, user)
        elif isinstance(value, types.FunctionType | type) and self._ours(value):
            if self.bind(name, value, user):
                self.function(name, value) if isinstance(value, types.FunctionType) else self._class(
                    name, value
                )
        elif isinstance(wrapped := getattr(value, "__wrapped__", None), types.FunctionType) and self._ours(
            wrapped
        ):
            if self.bind(name, value, user):  # a decorated function: its source has the decorators
                self.function(name, wrapped)
        elif (
            callable(value) and not self._ours(type(value)) and not isinstance(value, np.ndarray | np.generic)
        ):
            self._imported(name, value, user)
        elif self.bind(name, value, user):
            text = self._expression(value, name, user, set())
            if len(text) > MAX_DATA:  # a long list of numbers, say; an array is compressed
                raise BuildError(
                    f"{user} refers to {name}, which takes {len(text) / 2**20:.1f} MB as source, over the "
                    f"{MAX_DATA / 2**20:g} MB a submission may embed: make it a numpy array"
                )
            self.blocks.append(f"{name} = {text}\n")

    def _ours(self, value: types.FunctionType | type) -> bool:
        """Whether ``value`` is the user's code, written by its source: defined in a cell or the
        agent's own module."""
        return value.__module__ in (self.home, "__main__")

    def _helper(self, name: str, source: str) -> None:
        """Put the file's own helper function ``name`` first in the file (once)."""
        if name not in self.bound:
            self.bound[name] = None
            self.blocks.insert(0, source)

    def _module(self, name: str, module: types.ModuleType, user: str) -> None:
        if not allowed(module.__name__):
            raise BuildError(
                f"{user} uses the module {module.__name__!r} (as {name}), which a submission cannot "
                "import: Kaggle loads one file, with numpy and the standard library only"
            )
        if self.bind(name, module, user):
            plain = name == module.__name__
            self.imports[name] = f"import {module.__name__}" + ("" if plain else f" as {name}")
            self.modules[module.__name__] = None

    def _imported(self, name: str, value: Any, user: str) -> None:
        module = getattr(value, "__module__", None) or ("numpy" if isinstance(value, np.ufunc) else "")
        qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", "")
        if not module or not qualname or _lookup(module, qualname) is not value or "." in qualname:
            kind = f"{type(value).__module__}.{type(value).__qualname__}"
            raise BuildError(f"{user} refers to {name}, a {kind} object, which cannot be written as source")
        if not allowed(module):
            raise BuildError(
                f"{user} uses {name} from the module {module!r}, which a submission cannot import: Kaggle "
                "loads one file, with numpy and the standard library only; define it in the notebook"
            )
        if self.bind(name, value, user):
            self.imports[name] = f"from {module} import {qualname}" + (
                "" if name == qualname else f" as {name}"
            )
            self.modules[module] = None

    def function(self, name: str, function: types.FunctionType) -> None:
        """Write ``function`` as ``name``: what it refers to first, then its source."""
        source = function_source(function, name)
        where = function.__qualname__
        if function.__name__ not in ("<lambda>", name):
            self.bind(function.__name__, function, where)
        screen(source, where)
        self.scopes.append((function.__code__.co_filename, function.__globals__))
        cells = dict(zip(function.__code__.co_freevars, function.__closure__ or (), strict=True))
        for ref in loaded_names(source, where):
            if ref in cells:
                try:
                    value = cells[ref].cell_contents
                except ValueError:
                    raise BuildError(f"{where} refers to {ref}, which has no value yet") from None
            elif ref in function.__globals__:
                value = function.__globals__[ref]
            else:
                continue  # a builtin, or a name the function itself would not find either
            self.value(ref, value, where)
        self.blocks.append(source)

    def _class(self, name: str, cls: type) -> None:
        self.scopes += [(method.__code__.co_filename, method.__globals__) for method in methods(cls)]
        source, scope = class_source(cls, self.scopes[::-1])
        if name != cls.__name__:
            self.bind(cls.__name__, cls, cls.__qualname__)
            source = f"{source.rstrip()}\n{name} = {cls.__name__}\n"
        screen(source, f"class {cls.__qualname__}")
        for ref in loaded_names(source, cls.__qualname__):
            if ref in scope and scope[ref] is not cls:
                self.value(ref, scope[ref], f"class {cls.__qualname__}")
        self.blocks.append(source)

    def _expression(self, value: Any, name: str, user: str, seen: set[int]) -> str:
        """Source that evaluates to ``value`` (module docstring); :class:`BuildError` naming ``name``."""
        if isinstance(value, np.ndarray | np.generic):
            return self._array(value, name, user)
        if type(value) in _SCALARS:
            text = repr(value)
            return text if text not in ("nan", "inf", "-inf") else f"float({text!r})"
        if type(value) in (tuple, list, set, frozenset, dict):
            if id(value) in seen:
                raise BuildError(f"{user} refers to {name}, which contains itself")
            seen = seen | {id(value)}
            if isinstance(value, dict):
                items = ", ".join(
                    f"{self._expression(k, name, user, seen)}: {self._expression(v, name, user, seen)}"
                    for k, v in value.items()
                )
                return "{" + items + "}"
            parts = [self._expression(item, name, user, seen) for item in value]
            if isinstance(value, tuple):
                return f"({parts[0]},)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"
            if isinstance(value, list):
                return "[" + ", ".join(parts) + "]"
            return f"{type(value).__name__}([" + ", ".join(parts) + "])"
        if self._ours(type(value)) and isinstance(getattr(value, "__dict__", None), dict):
            if id(value) in seen:
                raise BuildError(f"{user} refers to {name}, which contains itself")
            cls = type(value)
            self.value(cls.__name__, cls, user)
            self._helper(OBJECT_MAKER, _OBJECT_SOURCE)
            attributes = self._expression(vars(value), name, user, seen | {id(value)})
            return f"{OBJECT_MAKER}({cls.__name__}, {attributes})"
        what = "an open file" if isinstance(value, io.IOBase) else f"a {type(value).__module__}."
        what += "" if isinstance(value, io.IOBase) else f"{type(value).__qualname__} object"
        raise BuildError(f"{user} refers to {name}, {what}, which cannot be written as source")

    def _array(self, value: np.ndarray | np.generic, name: str, user: str) -> str:
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise BuildError(
                f"{user} refers to {name}, a numpy array of Python objects, which cannot be embedded"
            )
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        text = base64.b64encode(zlib.compress(buffer.getvalue(), 9)).decode("ascii")
        total = sum(size for _, size in self.data) + len(text)
        if total > MAX_DATA:
            raise BuildError(
                f"{user} refers to {name}, whose arrays take {total / 2**20:.1f} MB in the file, over the "
                f"{MAX_DATA / 2**20:g} MB a submission may embed (uploads over 5 MB are reported to fail): "
                "make them smaller (float32, fewer weights)"
            )
        self.data.append((name, len(text)))
        self._helper(ARRAY_LOADER, _LOADER_SOURCE)
        lines = "".join(f'\n    "{text[i : i + ARRAY_LINE]}"' for i in range(0, len(text), ARRAY_LINE))
        scalar = "[()]" if isinstance(value, np.generic) else ""
        return f"{ARRAY_LOADER}({lines}\n){scalar}"


def build_function(agent: Callable[..., Any]) -> Submission:
    """The single-file submission of ``agent``, a function ``agent(obs, config) -> int`` defined in a
    notebook cell or a module, or a callable object of a class defined in the notebook (written as
    its class's source and its attributes, made as pickle makes it, without ``__init__``), as the
    module docstring says. Its ``spec`` names the agent, ``modules`` the modules the file imports,
    ``data`` each embedded array's name and bytes. Raises :class:`~submissions.inline.BuildError` (a
    ``ValueError``, one sentence naming the object) for what cannot be written as source,
    ``TypeError`` for another kind of agent.
    """
    if isinstance(agent, types.FunctionType):
        name = "agent" if agent.__name__ == "<lambda>" else agent.__name__
        writer = _Writer(agent.__module__)
        writer.bind(name, agent, agent.__qualname__)
        writer.function(name, agent)
        label = f"{agent.__qualname__} (a function from {agent.__module__})"
    elif type(agent).__module__ == "__main__" and isinstance(getattr(agent, "__dict__", None), dict):
        name = "agent"
        writer = _Writer("__main__")
        label = f"a {type(agent).__qualname__} object (from __main__)"
        writer.value(name, agent, label)
    else:
        raise TypeError(
            f"a submission is written from source; {agent!r} is a {type(agent).__name__}: give a "
            "function def agent(obs, config), or an object of a class defined in the notebook"
        )
    imports = "\n".join(sorted(writer.imports.values()))
    parts = [
        f'"""ConnectX agent {label} as a single file for Kaggle, written from its source by '
        f'connectx build.\n\nKaggle plays the last callable defined here: {name}, at the end."""\n',
        *([imports + "\n"] if imports else []),
        *writer.blocks,
    ]
    body = "\n\n".join(part.rstrip("\n") + "\n" for part in parts)
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    text = header(label, writer.modules, writer.data, digest, plays="its last callable") + "\n" + body
    try:
        compile(text, "<built submission>", "exec", dont_inherit=True)
    except SyntaxError as error:  # e.g. two helpers' sources that clash
        raise BuildError(f"the file written from {label} does not compile: {error.msg}") from None
    return Submission(
        text=text, spec=label, entry=name, params={}, modules=tuple(writer.modules),
        data=tuple(writer.data), body_sha256=digest,
    )  # fmt: skip
