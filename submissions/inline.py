"""Which modules a built file must carry: the agent module and, transitively, what it imports.

The sources are read and parsed (``ast``), never executed, and every ``import`` statement anywhere
in a module -- at the top, inside functions, under ``if TYPE_CHECKING`` -- is classified:

* a module of the agent's own top-level package (``agents``): inlined, with its parent packages;
  ``from agents import board`` inlines ``agents.engine.board`` when that is a submodule;
* ``__future__``, the standard library (``sys.stdlib_module_names``) or :data:`ALLOWED_THIRD_PARTY`
  (numpy, which Kaggle's image provides): left to Python's import;
* :data:`ACCELERATORS` (numba and its llvmlite, on Kaggle's image too): left to Python's import in a
  module that the package itself imports only optionally (see below), and forbidden elsewhere: the
  built file then compiles where they import and runs the package's fallback where they do not;
* anything else -- another package of this project (``tournament``), ``kaggle_environments``,
  ``torch``... -- is a :class:`BuildError`: a Kaggle submission is one file and may rely on nothing
  else.

An import inside the body of a ``try`` whose handler catches ``ImportError`` (or
``ModuleNotFoundError``, ``Exception``, ``BaseException``, a bare ``except``) is *optional*: the code
copes without the module (e.g. an accelerator tried first, with a plain-Python fallback). A
forbidden optional import is skipped, and an optional module of the package is inlined only when it
and everything it needs can be; otherwise it is left out with a note, and the built file raises
``ModuleNotFoundError`` there -- caught by that handler, exactly as the package behaves where the
module cannot be imported.

Data files: ``<package>.resources`` is not inlined; the builder generates a replacement. Its users
must call ``resources.read("literal-name")`` (or ``read("literal-name")`` imported from it) with a
string literal, which is how the names to embed are found here; any other use of that module is a
:class:`BuildError`. A module using ``__file__`` gets a note: in a built file ``__file__`` is a
pseudo path such as ``<submission>/agents/engine/book.py`` with nothing on disk below it (harmless for a
default output path, fatal for reading data that way). Imports made by calling
``importlib.import_module`` cannot be seen and are not supported.
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

ACCELERATORS = frozenset({"numba", "llvmlite"})
"""Top-level modules that only an optional module of the package may import: Kaggle's image has them
(Kaggle/docker-python's ``installed_cpu_packages.txt``: numba 0.65.1, llvmlite 0.47.0), a machine
without them gets the package's own fallback (the import fails inside its ``try/except ImportError``)."""

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
    imports and after its parent package, ties by name; an import cycle -- e.g. a package importing
    its own submodules -- is cut where the walk from the entry first meets it), including the
    package's own resources module when some module imports it (the builder replaces its source);
    ``resources``: the sorted data-file names passed to ``resources.read``; ``uses_resources``: the
    resources module is among ``modules``; ``notes``: what the user should know (optional modules
    left out, ``__file__``).
    """

    modules: tuple[ModuleSource, ...]
    resources: tuple[str, ...]
    uses_resources: bool
    notes: tuple[str, ...] = ()


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


_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((_dotted(kind) or [""])[-1] in _IMPORT_ERRORS for kind in kinds)


def _guarded_imports(tree: ast.AST) -> set[int]:
    """``id`` of every import statement in the body of a ``try`` that catches ``ImportError``."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try | ast.TryStar) and any(map(_catches_import_error, node.handlers)):
            for statement in node.body:
                for inner in ast.walk(statement):
                    if isinstance(inner, ast.Import | ast.ImportFrom):
                        guarded.add(id(inner))
    return guarded


def _is_submodule(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent that is a module, not a package
        return False


class _ModuleScan:
    """Imports and resource reads of one parsed module."""

    def __init__(self, module: ModuleSource, top: str, optional: bool = False) -> None:
        self.module = module
        self.top = top
        self.optional_module = optional  # imported by the package only inside try/except ImportError
        self.resources_name = f"{top}.{RESOURCES}"
        self.required: set[str] = set()
        self.optional: set[str] = set()
        self.notes: list[str] = []
        self.resource_names: set[str] = set()
        self.tree = ast.parse(module.source, filename=str(module.path))
        self._guarded = _guarded_imports(self.tree)
        self._node: ast.AST | None = None  # the import statement being classified
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
        """True when ``name`` belongs to the inlined package; raises BuildError when not allowed
        (unless the import is optional: then False, with a note)."""
        top = name.partition(".")[0]
        if top == self.top:
            return True
        if top == "__future__" or top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY:
            return False
        if top in ACCELERATORS and self.optional_module:
            self.notes.append(
                f"{self.where(node)}: {name!r} left to the interpreter ({self.module.name} is an optional "
                f"module: where {top} does not import, the package's fallback runs)"
            )
            return False
        if id(node) in self._guarded:
            self.notes.append(
                f"{self.where(node)}: optional import of {name!r} left to the interpreter "
                f"(it is inside try/except ImportError)"
            )
            return False
        allowed = ", ".join(sorted(ALLOWED_THIRD_PARTY))
        raise BuildError(
            f"{self.where(node)} imports {name!r}, which is neither the standard library, {allowed}, "
            f"nor part of the {self.top!r} package: a Kaggle submission is a single file and may "
            f"import only those"
        )

    def _add(self, name: str) -> None:
        (self.optional if id(self._node) in self._guarded else self.required).add(name)

    def scan(self) -> None:
        for node in ast.walk(self.tree):
            self._node = node
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
                self.notes.append(
                    f"{self.where(node)} uses __file__: in a built file it names no file on disk; "
                    f"data files must be read through {self.resources_name}.read('name')"
                )
        self.optional -= self.required
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


class _Graph:
    """Modules found so far: sources, import edges, resource names, notes (copied to try options)."""

    def __init__(self, top: str) -> None:
        self.top = top
        self.resources_name = f"{top}.{RESOURCES}"
        self.sources: dict[str, ModuleSource] = {}
        self.deps: dict[str, set[str]] = {}
        self.optional: dict[str, set[str]] = {}  # module -> its optional imports of the package
        self.resource_names: set[str] = set()
        self.notes: list[str] = []

    def copy(self) -> _Graph:
        other = _Graph(self.top)
        other.sources = dict(self.sources)
        other.deps = {name: set(deps) for name, deps in self.deps.items()}
        other.optional = {name: set(deps) for name, deps in self.optional.items()}
        other.resource_names = set(self.resource_names)
        other.notes = list(self.notes)
        return other

    def require(self, entry: str, optional: bool = False) -> None:
        """Add ``entry`` and everything it imports unconditionally; BuildError when impossible.
        ``optional``: the package imports ``entry`` only optionally, so it and the modules it brings
        may import :data:`ACCELERATORS`."""
        todo = [entry]
        while todo:
            name = todo.pop()
            if name in self.deps:
                continue
            module = _read(name)
            self.sources[name] = module
            if name == self.resources_name:  # replaced by the builder's generated module: not scanned
                self.deps[name] = set(_parents(name))
                self.optional[name] = set()
            else:
                scan = _ModuleScan(module, self.top, optional)
                scan.scan()
                self.resource_names |= scan.resource_names
                self.notes += scan.notes
                self.deps[name] = (scan.required | set(_parents(name))) - {name}
                self.optional[name] = scan.optional
            for dep in sorted(self.deps[name]):
                todo.extend([*_parents(dep), dep])

    def pending_optional(self) -> list[tuple[str, str]]:
        """``(module, importer)`` for optional imports not decided yet, sorted."""
        return sorted(
            (dep, name) for name, deps in self.optional.items() for dep in deps if dep not in self.deps
        )


def collect(entry: str) -> Inlining:
    """Find every module the built file for agent module ``entry`` (e.g. ``"agents.minimax"``) needs.

    Raises :class:`BuildError` for a forbidden import (outside ``try/except ImportError``), a module
    that is not pure Python, or a ``resources`` use other than ``read("literal")``; ``SyntaxError``
    for a module that does not parse.
    """
    graph = _Graph(entry.partition(".")[0])
    graph.require(entry)
    left_out: set[str] = set()
    while pending := [(dep, by) for dep, by in graph.pending_optional() if dep not in left_out]:
        dep, importer = pending[0]
        trial = graph.copy()
        try:
            trial.require(dep, optional=True)
        except BuildError as error:
            left_out.add(dep)
            graph.notes.append(
                f"{dep} left out: {error}. {importer} imports it inside try/except ImportError, so the built "
                f"file behaves as the package does where {dep} cannot be imported"
            )
        else:
            graph = trial
    order: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        if name in done:
            return
        done.add(name)  # marked first: an import cycle is cut here, as Python's import does
        edges = graph.deps[name] | {dep for dep in graph.optional[name] if dep in graph.deps}
        for dep in sorted(edges):
            visit(dep)
        order.append(name)

    visit(entry)
    return Inlining(
        modules=tuple(graph.sources[name] for name in order),
        resources=tuple(sorted(graph.resource_names)),
        uses_resources=graph.resources_name in graph.sources,
        notes=tuple(dict.fromkeys(graph.notes)),
    )
