"""Which modules a built file must carry: the agent module and, transitively, what it imports.

The sources are read and parsed (``ast``), never executed, and every ``import`` statement anywhere
in a module -- at the top, inside functions, under ``if TYPE_CHECKING`` -- is classified:

* a module of the agent's own top-level package (``agents``): inlined, with its parent packages;
  ``from agents import board`` inlines ``agents.board`` when that is a submodule;
* ``__future__``, the standard library (``sys.stdlib_module_names``) or :data:`ALLOWED_THIRD_PARTY`
  (numpy, which Kaggle's image provides): left to Python's import;
* anything else -- another package of this project (``tournament``), ``kaggle_environments``,
  ``torch``... -- is a :class:`BuildError`: a Kaggle submission is one file and may rely on nothing
  else.

Data files: ``<package>.resources`` is not inlined; the builder generates a replacement. Its users
must call ``resources.read("literal-name")`` (or ``read("literal-name")`` imported from it) with a
string literal, which is how the names to embed are found here; any other use of that module is a
:class:`BuildError`, as is a module using ``__file__`` (there is no package directory in a built
file). Imports made by calling ``importlib.import_module`` cannot be seen and are not supported.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

ALLOWED_THIRD_PARTY = frozenset({"numpy"})
"""Top-level non-stdlib modules a submission may import (present on Kaggle's image)."""

RESOURCES = "resources"
"""Name of the data-file module inside the agent's package (``agents.resources``)."""


class BuildError(ValueError):
    """The agent cannot be turned into one file; the message says which module, line and why."""


@dataclass(frozen=True, slots=True)
class ModuleSource:
    """One module to inline: dotted ``name``, whether it ``is_package`` (an ``__init__.py``), its
    ``source`` text exactly as in the package (universal newlines) and its ``path`` on disk."""

    name: str
    is_package: bool
    source: str
    path: Path


@dataclass(frozen=True, slots=True)
class Inlining:
    """What :func:`collect` found: ``modules`` in dependency order (a module after every module it
    imports and after its parent package; ties by name) -- including the package's own resources
    module when some module imports it (the builder replaces its source) -- and the sorted data-file
    names passed to ``resources.read`` (``resources``). ``uses_resources``: the resources module is
    among ``modules``.
    """

    modules: tuple[ModuleSource, ...]
    resources: tuple[str, ...]
    uses_resources: bool


def _read(name: str) -> ModuleSource:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise BuildError(f"cannot inline {name!r}: it is not a pure-Python module of the package")
    path = Path(spec.origin)
    with tokenize.open(path) as handle:  # honours a coding cookie; universal newlines
        source = handle.read()
    if not source.endswith("\n"):
        source += "\n"
    return ModuleSource(name, spec.submodule_search_locations is not None, source, path)


def _is_submodule(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent that is a module, not a package
        return False


class _ModuleScan:
    """Imports and resource reads of one parsed module."""

    def __init__(self, module: ModuleSource, top: str) -> None:
        self.module = module
        self.top = top
        self.resources_name = f"{top}.{RESOURCES}"
        self.inlined: set[str] = set()
        self.resource_names: set[str] = set()
        self.tree = ast.parse(module.source, filename=str(module.path))
        self._module_aliases: set[str] = set()  # names bound to the resources module
        self._read_aliases: set[str] = set()  # names bound to resources.read

    def where(self, node: ast.AST) -> str:
        return f"{self.module.name} (line {getattr(node, 'lineno', '?')})"

    def _absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = self.module.name if self.module.is_package else self.module.name.rpartition(".")[0]
        return importlib.util.resolve_name("." * node.level + (node.module or ""), package)

    def _classify(self, name: str, node: ast.AST) -> bool:
        """True when ``name`` belongs to the inlined package; raises BuildError when not allowed."""
        top = name.partition(".")[0]
        if top == self.top:
            return True
        if top == "__future__" or top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY:
            return False
        allowed = ", ".join(sorted(ALLOWED_THIRD_PARTY))
        raise BuildError(
            f"{self.where(node)} imports {name!r}, which is neither the standard library, {allowed}, "
            f"nor part of the {self.top!r} package: a Kaggle submission is a single file and may "
            f"import only those"
        )

    def _add(self, name: str) -> None:
        self.inlined.add(name)

    def scan(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if self._classify(alias.name, node):
                        self._add(alias.name)
                        if alias.name == self.resources_name and alias.asname:
                            self._module_aliases.add(alias.asname)
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(node)
                if not self._classify(base, node):
                    continue
                self._add(base)
                for alias in node.names:
                    bound = alias.asname or alias.name
                    full = f"{base}.{alias.name}"
                    if full == self.resources_name:
                        self._add(full)
                        self._module_aliases.add(bound)
                    elif base == self.resources_name:
                        if alias.name != "read":
                            raise BuildError(
                                f"{self.where(node)} imports {alias.name!r} from {base}: a submission's "
                                f"resources module offers only read(name)"
                            )
                        self._read_aliases.add(bound)
                    elif alias.name != "*" and _is_submodule(full):
                        self._add(full)
            elif isinstance(node, ast.Name) and node.id == "__file__":
                raise BuildError(
                    f"{self.where(node)} uses __file__: a built file has no package directory; read "
                    f"data files through {self.resources_name}.read('name')"
                )
        self._scan_reads()

    def _scan_reads(self) -> None:
        targets = [[alias] for alias in self._module_aliases] + [self.resources_name.split(".")]
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and _dotted(node.value) in targets and node.attr != "read":
                raise BuildError(
                    f"{self.where(node)} uses resources.{node.attr}: a submission's resources module "
                    f"offers only read(name)"
                )
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            is_read = (isinstance(func, ast.Name) and func.id in self._read_aliases) or (
                isinstance(func, ast.Attribute) and func.attr == "read" and _dotted(func.value) in targets
            )
            if not is_read:
                continue
            args = node.args
            if (
                len(args) != 1
                or node.keywords
                or not isinstance(args[0], ast.Constant)
                or not isinstance(args[0].value, str)
            ):
                raise BuildError(
                    f"{self.where(node)} calls resources.read with something other than one string "
                    f"literal: the builder finds the data files to embed by those literals"
                )
            self.resource_names.add(args[0].value)


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _parents(name: str) -> list[str]:
    bits = name.split(".")
    return [".".join(bits[:i]) for i in range(1, len(bits))]


def collect(entry: str) -> Inlining:
    """Find every module the built file for agent module ``entry`` (e.g. ``"agents.minimax"``) needs.

    Raises :class:`BuildError` for a forbidden import, a module that is not pure Python, a use of
    ``__file__``, or a ``resources`` use other than ``read("literal")``; ``SyntaxError`` for a module
    that does not parse.
    """
    top = entry.partition(".")[0]
    resources_name = f"{top}.{RESOURCES}"
    deps: dict[str, set[str]] = {}
    sources: dict[str, ModuleSource] = {}
    resource_names: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in deps:
            continue
        if name == resources_name:  # replaced by the builder's generated module: not scanned
            sources[name] = _read(name)
            deps[name] = set(_parents(name))
            todo.extend(deps[name])
            continue
        module = _read(name)
        scan = _ModuleScan(module, top)
        scan.scan()
        sources[name] = module
        resource_names |= scan.resource_names
        deps[name] = (scan.inlined | set(_parents(name))) - {name}
        for dep in sorted(deps[name]):
            todo.extend([*_parents(dep), dep])
    order: list[str] = []
    state: dict[str, bool] = {}  # False: on the DFS stack (import cycle), True: done

    def visit(name: str) -> None:
        if name in state:
            return
        state[name] = False
        for dep in sorted(deps[name]):
            visit(dep)
        state[name] = True
        order.append(name)

    visit(entry)
    modules = tuple(sources[name] for name in order if name in sources)
    return Inlining(modules, tuple(sorted(resource_names)), resources_name in sources)
