"""The loader every built file carries: it runs the inlined package modules as private modules.

Everything below the ``COPY BELOW`` marker is copied verbatim into each built file by
:mod:`submissions.build` (so it is linted and tested here, never hand-kept in a template); it uses
the standard library only and must not contain ``from __future__`` imports (they would not be at
the top of the built file).

Why module objects and a private ``__import__`` rather than one rewritten namespace:

* each inlined module runs in its own ``types.ModuleType`` namespace, so two modules defining the
  same private name (``_search``, ``WIN``...) can never collide, and the module sources stay
  byte-for-byte the package's sources -- nothing is rewritten;
* the modules are compiled with file names such as ``<submission>/agents/engine/board.py`` and their
  lines are put in :mod:`linecache`, so a traceback in Kaggle's log shows the package file, line
  number and line text of the package source;
* ``import agents.x``, ``from agents.x import y``, ``from . import x`` and ``from .x import y`` are
  served by an ``__import__`` placed in the modules' own ``__builtins__``: names of the inlined
  package resolve to the inlined modules, everything else goes to Python's import. The real
  ``agents`` package -- present when the file is played inside our own tournament process, absent
  on Kaggle -- is never looked up or touched, and nothing is registered under its name;
* the modules are registered in ``sys.modules`` under a private prefix (``_connectx_<hash>.agents.
  board``), because ``dataclasses`` looks a class's module up there when it meets string
  annotations (``from __future__ import annotations``);
* modules execute on first import in Python's own order, exactly as from the package (circular
  imports behave the same); :func:`_load` returns the agent's module;
* once a process, as Python imports a module once: a module already executed under the same private
  name -- by an earlier load of the same file, since the prefix is a hash of every module's source
  and the baked parameters -- is taken as it is. Kaggle's loader executes the file anew for each
  agent it builds (both sides of the validation episode, a benchmark's fresh agent for every
  position); each still makes its own agent, but the solver's kernel, compiled at the first move
  (seconds where numba imports), is compiled once, and the data files are unpacked once.
"""

# ---- COPY BELOW: the built file's loader (standard library only) ----

import builtins
import linecache
import sys
import types


def _load(prefix: str, modules: tuple[tuple[str, bool, str], ...], entry: str) -> types.ModuleType:
    """Execute module ``entry`` of ``modules`` (tuples ``(name, is_package, source)``) and return it.

    The modules become ``types.ModuleType`` objects named ``prefix + "." + name`` (registered in
    ``sys.modules`` under that private name only, and taken from there by a later load in the same
    process); their ``import`` statements find each other through a private ``__import__``. Raises
    ``ModuleNotFoundError`` for a module of the inlined package that was not inlined, and whatever a
    module raises while executing.
    """
    return _Inlined(prefix, modules).module(entry)


class _Inlined:
    """The inlined modules of one file, each executed at its first import."""

    def __init__(self, prefix: str, modules: tuple[tuple[str, bool, str], ...]) -> None:
        self.prefix = prefix
        self.table = {name: (is_package, source) for name, is_package, source in modules}
        self.tops = {name.partition(".")[0] for name in self.table}
        self.loaded: dict[str, types.ModuleType] = {}
        self.builtins = dict(vars(builtins))
        self.builtins["__import__"] = self.import_

    def module(self, name: str) -> types.ModuleType:
        """Inlined module ``name``, executed (after its parent package) at its first import."""
        if name in self.loaded:
            return self.loaded[name]
        if name not in self.table:
            raise ModuleNotFoundError(f"No module named {name!r} in this submission", name=name)
        parent, _, child = name.rpartition(".")
        if parent:
            self.module(parent)
        is_package, source = self.table[name]
        filename = "<submission>/" + name.replace(".", "/") + ("/__init__.py" if is_package else ".py")
        done = sys.modules.get(f"{self.prefix}.{name}")
        if done is not None and getattr(done, "__file__", None) == filename:  # an earlier load ran it
            self.loaded[name] = done
            return done
        mod = types.ModuleType(f"{self.prefix}.{name}")
        mod.__dict__["__builtins__"] = self.builtins
        mod.__file__ = filename  # names no file on disk: data is read through the resources module
        mod.__package__ = name if is_package else parent
        if is_package:
            mod.__path__ = []
        self.loaded[name] = sys.modules[mod.__name__] = mod
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        try:
            exec(compile(source, filename, "exec", dont_inherit=True), mod.__dict__)
        except BaseException:
            del self.loaded[name]
            sys.modules.pop(mod.__name__, None)
            raise
        if parent:
            setattr(self.loaded[parent], child, mod)
        return mod

    def import_(
        self,
        name: str,
        globals: dict[str, object] | None = None,
        locals: dict[str, object] | None = None,
        fromlist: tuple[str, ...] = (),
        level: int = 0,
    ) -> types.ModuleType:
        """The modules' ``__import__``: the inlined package from here, the rest from Python's."""
        if level:
            package = str((globals or {}).get("__package__") or "")
            base = package.rsplit(".", level - 1)[0] if level > 1 else package
            name = f"{base}.{name}" if name else base
        elif name.partition(".")[0] not in self.tops:
            return builtins.__import__(name, globals, locals, fromlist, level)
        mod = self.module(name)
        if not fromlist:
            return self.loaded[name.partition(".")[0]]
        for attr in fromlist:
            if attr != "*" and not hasattr(mod, attr) and f"{name}.{attr}" in self.table:
                self.module(f"{name}.{attr}")
        return mod
