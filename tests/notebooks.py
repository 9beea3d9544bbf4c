"""Jupyter kernels for the notebook tests: the notebooks of ``examples/`` executed with nbclient on an
ipykernel kernel of this interpreter, here or as in a hosted notebook's container (:mod:`tests.hosted`),
and the processes a kernel leaves.

The kernel is this interpreter's (``sys.executable -m ipykernel_launcher``, from a kernel spec written
in a temporary folder), whatever kernel specs the machine holds, so a fresh virtual environment (CI's)
needs nothing installed. Source: https://nbclient.readthedocs.io, https://jupyter-client.readthedocs.io.

nbformat is imported without ``rfc3987_syntax`` (:mod:`tournament.refusal`), whatever was imported
before: nbformat's ``jsonschema`` would import it to check the ``iri`` format, which no notebook
schema uses, and it builds a grammar at import, 1.1 s of CPU in each pytest process that collects
this module (``python -X importtime``). Imported lazily instead, the cost would still fall on the
process running the notebook tests unless kaggle-environments, which refuses it too, came first.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from tournament.refusal import refusing

with refusing(("rfc3987_syntax",)):  # see the module docstring
    import nbformat
    from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HOSTED = ROOT / "tests" / "hosted.py"

__all__ = ["EXAMPLES", "descendants", "execute", "kernel_manager", "load", "nbformat", "outputs", "text"]


def kernel_manager(folder: Path, *, hosted: bool = False) -> KernelManager:
    """A manager of a kernel of this interpreter, its spec written in ``folder``; with ``hosted``, the
    kernel runs as in a hosted notebook's container (:mod:`tests.hosted`)."""
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    if hosted:
        argv = [sys.executable, str(HOSTED), *argv]
    name = "hosted" if hosted else "here"
    spec = folder / "kernels" / name
    spec.mkdir(parents=True, exist_ok=True)
    kernel = {"argv": argv, "display_name": name, "language": "python", "env": {"PYTHONUNBUFFERED": "1"}}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(folder / "kernels")], ensure_native_kernel=False)
    return KernelManager(kernel_name=name, kernel_spec_manager=specs)


def load(notebook: Path) -> Any:
    """The notebook at ``notebook``, read as nbformat 4 and validated against its schema (nbformat's
    ``ValidationError`` when it does not hold)."""
    book = nbformat.read(notebook, as_version=4)
    nbformat.validate(book)
    return book


def execute(
    notebook: Path,
    manager: KernelManager,
    folder: Path,
    *,
    probes: dict[str, str] | None = None,
    timeout: int = 300,
) -> Any:
    """The notebook at ``notebook`` executed, every cell in order, by the kernel of ``manager``
    (:func:`kernel_manager`; started in the working directory ``folder`` unless it runs already, and
    left running), then each of ``probes`` (code by cell id, run as cells after the notebook's, in the
    same kernel): its ``NotebookNode`` with the outputs. Raises nbclient's ``CellExecutionError`` at
    a cell that raises, ``CellTimeoutError`` at one that runs over ``timeout`` seconds."""
    book = load(notebook)
    for name, code in (probes or {}).items():
        book.cells.append(nbformat.v4.new_code_cell(code, id=name))
    client = NotebookClient(book, km=manager, timeout=timeout, resources={"metadata": {"path": str(folder)}})
    try:
        client.execute()
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    return book


def outputs(book: Any) -> dict[str, list[Any]]:
    """The outputs of each code cell of an executed notebook, by cell id."""
    return {cell.id: cell.outputs for cell in book.cells if cell.cell_type == "code"}


def text(cell_outputs: list[Any], kind: str = "text/plain") -> str:
    """What a cell showed as ``kind`` (its result, the displays and, for ``text/plain``, what it
    printed), joined."""
    parts = []
    for output in cell_outputs:
        if output.output_type == "stream" and kind == "text/plain":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data") and kind in output.data:
            parts.append(output.data[kind])
    return "\n".join(parts)


def descendants(pid: int) -> list[int]:
    """The pids of every living process descended from ``pid`` (from ``/proc``), zombies left out."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found
