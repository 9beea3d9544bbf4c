"""Names stay true: no two public classes of the packages share a name, and every dotted name a
docstring gives -- a Sphinx role (``:func:``, ``:class:``, ``:mod:``, ``:meth:``, ``:attr:``,
``:data:``, ``:exc:``, ``:obj:``) or a double-backticked ``package.name`` of one of the packages --
names something that exists.

Names are resolved from the source, without importing it (the trainers import JAX and PyTorch, which
would cost seconds): a module's names are what it defines, assigns or imports, a class's are its
methods, class attributes, annotations, the ``self.NAME`` its methods assign, and its bases' names.
A name is tried as given, then relative to the module's packages and to the classes around the
docstring, as Sphinx does. A library's name that its source does not show (``math`` has none) is
looked up by importing the library, except the heavy ones (:data:`HEAVY`).
"""

from __future__ import annotations

import ast
import builtins
import collections
import functools
import importlib
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agents", "tournament", "reports", "submissions", "web", "connectx", "training")
ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj):`~?\.?([A-Za-z_][\w.]*)`")
TICKS = re.compile(r"``((?:" + "|".join(PACKAGES) + r")(?:\.\w+)+)``")
FILE = re.compile(r"\.(?:py|db|md|npz|json|jsonl|csv|js|mjs|html|css|txt|png|toml|log|pkl)$")
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
HEAVY = frozenset({"torch", "stable_baselines3", "sb3_contrib", "jax", "flax", "optax", "ray"})
"""Libraries too slow to import here: their names resolve from their source alone."""


def our_modules() -> Iterator[tuple[str, Path]]:
    """Each module of the packages, as (dotted name, path)."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


@functools.cache
def source(module: str) -> Path | None:
    """The Python source of ``module``, found without importing it; None when it has none."""
    top, *rest = module.split(".")
    if top in PACKAGES or top == "benchmarks":
        folder = ROOT / top
    else:
        spec = importlib.util.find_spec(top)
        if spec is None:
            return None
        if not spec.submodule_search_locations:
            origin = Path(spec.origin or "")
            return origin if not rest and origin.suffix == ".py" else None
        folder = Path(next(iter(spec.submodule_search_locations)))
    for part in rest:
        folder = folder / part
    for candidate in (folder / "__init__.py", folder.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def tree(module: str) -> ast.Module | None:
    path = source(module)
    return None if path is None else ast.parse(path.read_text(encoding="utf-8"))


def _bindings(body: list[ast.stmt]) -> Iterator[tuple[str, ast.AST]]:
    """The names a block binds (descending into ``if``/``try``/``with``), each with its statement."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield (alias.asname or alias.name.split(".")[0]), node
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from _bindings(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _bindings(handler.body)


def _self_attributes(cls: ast.ClassDef) -> set[str]:
    """The names ``self.NAME`` is assigned to in the methods of ``cls``."""
    names = set()
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for attribute in ast.walk(target):
                    if (
                        isinstance(attribute, ast.Attribute)
                        and isinstance(attribute.value, ast.Name)
                        and attribute.value.id == "self"
                    ):
                        names.add(attribute.attr)
    return names


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    path = source(module)
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if path is not None and path.name == "__init__.py" else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _in_module(module: str, parts: list[str], seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``parts`` names something inside ``module``, read from its source."""
    if not parts:
        return True
    if source(f"{module}.{parts[0]}") is not None and tree(module) is not None:
        return _in_module(f"{module}.{parts[0]}", parts[1:], seen)
    module_tree = tree(module)
    if module_tree is None:
        return _imported(module, parts)
    key = f"{module}:{'.'.join(parts)}"
    if key in seen:
        return False
    seen = seen | {key}
    name, rest = parts[0], parts[1:]
    found = [node for bound, node in _bindings(module_tree.body) if bound == name]
    stars = [
        node
        for node in module_tree.body
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]
    for node in found:
        if _follow(module, node, name, rest, seen):
            return True
    return any(_in_module(_absolute(module, node), parts, seen) for node in stars)


def _follow(module: str, node: ast.AST, name: str, rest: list[str], seen: frozenset[str]) -> bool:
    """Whether ``rest`` names something inside ``name``, bound in ``module`` by ``node``."""
    if isinstance(node, ast.ClassDef):
        return _in_class(module, node, rest, seen)
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (alias.asname or alias.name.split(".")[0]) == name:
                target = alias.name if alias.asname else alias.name.split(".")[0]
                return _in_module(target, rest, seen)
    if isinstance(node, ast.ImportFrom):
        origin = _absolute(module, node)
        for alias in node.names:
            if (alias.asname or alias.name) == name:
                return _in_module(origin, [alias.name, *rest], seen)
    return not rest  # a function or a value: nothing is known inside it


def _in_class(module: str, cls: ast.ClassDef, parts: list[str], seen: frozenset[str]) -> bool:
    if not parts:
        return True
    name, rest = parts[0], parts[1:]
    for bound, node in _bindings(cls.body):
        if bound == name and _follow(module, node, name, rest, seen):
            return True
    if not rest and name in _self_attributes(cls):
        return True
    for base in cls.bases:
        dotted = ast.unparse(base).split("[")[0].split(".")
        if _in_module(module, [*dotted, *parts], seen):
            return True
    return False


def _imported(module: str, parts: list[str]) -> bool:
    """Whether ``module`` has the attributes ``parts``, by importing it."""
    try:
        value: object = importlib.import_module(module)
    except ImportError:
        return False
    for part in parts:
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


def resolves(name: str) -> bool:
    """Whether the absolute dotted ``name`` names something."""
    parts = name.split(".")
    if len(parts) == 1:
        return hasattr(builtins, name) or source(name) is not None
    ours = parts[0] in (*PACKAGES, "benchmarks")
    for split in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:split])
        if source(module) is not None or (not ours and split == 1):
            if _in_module(module, parts[split:]):
                return True
            # a library may make names its source does not show (a C extension, ``__getattr__``)
            return not ours and parts[0] not in HEAVY and _imported(module, parts[split:])
    return source(name) is not None


def resolves_from(name: str, module: str, classes: list[str]) -> bool:
    """Whether ``name``, written in a docstring of ``module`` inside the classes ``classes`` (outer
    first), names something: as given, relative to the module and its packages, or to the classes."""
    package = module.split(".")
    candidates = [name] + [".".join([*package[:i], name]) for i in range(len(package), 0, -1)]
    candidates += [".".join([module, *classes[:i], name]) for i in range(len(classes), 0, -1)]
    return any(resolves(candidate) or hasattr(builtins, candidate) for candidate in candidates)


def docstring_names(module: str, path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """Each dotted name of the docstrings of ``module``: (line, name, enclosing classes)."""

    def visit(node: ast.AST, classes: list[str]) -> Iterator[tuple[int, str, list[str]]]:
        doc = ast.get_docstring(node, clean=False) if isinstance(node, DOCUMENTED) else None
        for name in ROLE.findall(doc or "") + TICKS.findall(doc or ""):
            if not FILE.search(name):
                yield getattr(node, "lineno", 1), name.rstrip("."), classes
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from visit(child, [*classes, child.name])
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from visit(child, classes)

    yield from visit(ast.parse(path.read_text(encoding="utf-8")), [])


def test_every_dotted_name_in_a_docstring_resolves() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for module, path in our_modules()
        for line, name, classes in docstring_names(module, path)
        if not resolves_from(name, module, classes)
    ]
    assert not wrong, "docstrings name what does not exist:\n" + "\n".join(wrong)


SHARED = {
    "Board": ["agents.engine.board", "connectx.boards"],
    "Ladder": ["tournament.ladder.driver", "connectx.ladders"],
}
"""The names two public classes may share: the Python API's (issue 56) ``connectx.Board`` (a position
that draws itself, named as python-chess names its own) wraps the engine's board, and
``connectx.Ladder`` the ladder's driver."""


def test_no_two_public_classes_share_a_name() -> None:
    homes = collections.defaultdict(list)
    for module, path in our_modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes[node.name].append(module)
    shared = {name: modules for name, modules in homes.items() if len(modules) > 1}
    assert shared == SHARED, f"public classes that share a name: {shared}"


def test_the_resolver_tells_a_name_from_a_wrong_one() -> None:
    assert resolves("agents.engine.board.Board")
    assert resolves("tournament.store.Store")
    assert not resolves("agents.engine.board.NoSuchName")
    assert not resolves("agents.engine.no_such_module.Board")
    assert resolves_from("Board.play", "agents.engine.board", [])
    assert not resolves_from("Board.no_such_method", "agents.engine.board", [])
    assert resolves_from("ply", "agents.engine.board", ["Board"])  # assigned to self in __init__
    assert not resolves_from("no_such_attribute", "agents.engine.board", ["Board"])
    assert resolves("os.replace") and not resolves("os.no_such_function")
    assert resolves("math.sqrt") and not resolves("math.no_such_function")  # math has no source
    assert resolves_from("IndexError", "agents.engine.board", [])
