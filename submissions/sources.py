"""The source of a function or class defined in a notebook cell or a module, and what it refers to.

``inspect.getsource`` reads a function's source through ``linecache``, where IPython registers each
cell's text under a name such as ``<ipython-input-3-...>`` or ``/tmp/ipykernel_12/123.py``; a class's
source is found through its methods' code, since ``inspect.getsource`` of a class defined in a cell
fails on Python 3.11 (``__main__`` has no file). The names a piece of source refers to are the global
loads of its compiled code (``LOAD_GLOBAL``/``LOAD_NAME``, nested code included), so attribute names
and local variables are never mistaken for them. :mod:`submissions.functions` writes a file of them.
"""

from __future__ import annotations

import ast
import dis
import inspect
import linecache
import sys
import textwrap
import types
from collections.abc import Iterator, Sequence
from typing import Any

from submissions.inline import BuildError

__all__ = ["allowed", "class_globals", "class_source", "function_source", "loaded_names", "methods", "screen"]


def allowed(module: str) -> bool:
    """Whether a submission may import ``module``: numpy or the standard library."""
    root = module.partition(".")[0]
    return root == "numpy" or root in sys.stdlib_module_names


def loaded_names(source: str, where: str) -> list[str]:
    """The global names ``source`` (a module-level ``def``, ``class`` or assignment) loads, in order of
    first use; :class:`BuildError` when it does not compile on its own."""
    try:
        code = compile(source, where, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise BuildError(
            f"the source of {where} does not compile on its own ({error.msg}, line {error.lineno}): "
            "define it at the top level of a cell"
        ) from None
    names: dict[str, None] = {}

    def walk(code: types.CodeType) -> None:
        for instruction in dis.get_instructions(code):
            name = str(instruction.argval)
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and not name.startswith("__"):
                names.setdefault(name, None)  # a class body's __name__ is its own module's
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)

    walk(code)
    return list(names)


def screen(source: str, where: str) -> None:
    """:class:`BuildError` for what ``source`` does that a single file cannot: import a module other
    than numpy and the standard library, or assign a variable of an enclosing function (nonlocal)."""
    try:
        nodes = list(ast.walk(ast.parse(source)))
    except SyntaxError:
        return  # loaded_names says why
    for node in nodes:
        if isinstance(node, ast.Nonlocal):
            raise BuildError(
                f"{where} assigns a variable of the function around it (nonlocal), which a single file "
                "cannot keep: make it a global, or an attribute"
            )
        modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module or ""]
        for module in modules:
            if not allowed(module):
                raise BuildError(
                    f"{where} imports the module {module!r}, which a submission cannot import: Kaggle "
                    "loads one file, with numpy and the standard library only"
                )


def function_source(function: types.FunctionType, name: str) -> str:
    """The source that defines ``function`` under ``name`` at module level: its ``def`` (dedented,
    with its decorators), then ``name = <its name>`` when they differ; a lambda as ``name = lambda
    ...`` when it is the only lambda on its lines."""
    try:
        text = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        raise BuildError(
            f"the source of {function.__qualname__} cannot be found (it was not defined in a file or a "
            "notebook cell)"
        ) from None
    if function.__name__ != "<lambda>":
        return text if name == function.__name__ else f"{text.rstrip()}\n{name} = {function.__name__}\n"
    try:
        lambdas = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Lambda)]
    except SyntaxError:  # a lambda inside a longer expression cut at its lines
        lambdas = []
    if len(lambdas) != 1:
        raise BuildError(
            f"the lambda {name} cannot be isolated from the source around it: define it with def"
        )
    return f"{name} = {ast.get_source_segment(text, lambdas[0])}\n"


def class_source(cls: type, hints: Sequence[tuple[str, dict[str, Any]]] = ()) -> tuple[str, dict[str, Any]]:
    """The ``class`` statement of ``cls`` and the globals its code sees, found in ``linecache``:
    through its methods' code; else, for a class whose methods are all generated (a dataclass), in
    the file of a function whose namespace binds the class's name to it (``hints``: (filename,
    globals) of the functions written), or in the one cell that defines a class of that name.
    :class:`BuildError` when it is not found, or is defined otherwise in several cells."""
    for method in methods(cls):
        code = method.__code__
        found = _class_in(code.co_filename, cls.__name__, code.co_firstlineno)
        if found:
            return found, method.__globals__
    scopes = [(filename, scope) for filename, scope in hints if scope.get(cls.__name__) is cls]
    for filename, scope in scopes:
        found = _class_in(filename, cls.__name__)
        if found:
            return found, scope
    cells = {_class_in(name, cls.__name__) for name in list(linecache.cache) if _is_cell(name)} - {None}
    if len(cells) == 1 and scopes:
        return cells.pop() or "", scopes[0][1]
    try:
        return textwrap.dedent(inspect.getsource(cls)), class_globals(cls)
    except (OSError, TypeError):
        several = f" ({len(cells)} cells define a class of that name)" if len(cells) > 1 else ""
        raise BuildError(f"the source of class {cls.__qualname__} cannot be found{several}") from None


def _is_cell(filename: str) -> bool:
    """Whether ``filename`` names a notebook cell's text in ``linecache`` (IPython's names)."""
    return filename.startswith("<ipython-input-") or "/ipykernel_" in filename


def _class_in(filename: str, name: str, line: int | None = None) -> str | None:
    """The source of the class statement ``name`` in ``filename``'s lines in ``linecache``: the one
    holding ``line``, or else the last at the top level; None when there is none."""
    lines = linecache.getlines(filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    nodes = ast.walk(tree) if line is not None else iter(tree.body)
    found = None
    for node in nodes:
        if isinstance(node, ast.ClassDef) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if line is None or first <= line <= (node.end_lineno or 0):
                found = textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))
    return found


def methods(cls: type) -> Iterator[types.FunctionType]:
    """The functions of ``cls``'s body: methods, static and class methods, properties' getters."""
    for value in vars(cls).values():
        value = getattr(value, "__func__", value)  # staticmethod, classmethod
        value = getattr(value, "fget", value)  # property
        if isinstance(value, types.FunctionType):
            yield value


def class_globals(cls: type) -> dict[str, Any]:
    """The globals the methods of ``cls`` see (its module's, or the cell's namespace)."""
    for method in methods(cls):
        return method.__globals__
    return vars(sys.modules.get(cls.__module__, types.ModuleType(cls.__module__)))
