"""Jupyter kernels for the notebook tests: the notebooks of ``examples/`` executed with nbclient on an
ipykernel kernel of this interpreter, here or as in a hosted notebook's container (:mod:`tests.hosted`),
and the processes a kernel leaves.

The kernel is this interpreter's (``sys.executable -m ipykernel_launcher``, from a kernel spec written
in a temporary folder), whatever kernel specs the machine holds, so a fresh virtual environment (CI's)
needs nothing installed. Source: https://nbclient.readthedocs.io, https://jupyter-client.readthedocs.io.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HOSTED = ROOT / "tests" / "hosted.py"

__all__ = ["EXAMPLES", "descendants", "execute", "jupyterlab", "kernel_manager", "outputs", "text"]


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


def execute(
    notebook: Path,
    folder: Path,
    *,
    hosted: bool = False,
    probes: dict[str, str] | None = None,
    timeout: int = 300,
) -> Any:
    """The notebook at ``notebook`` executed, every cell in order, by a kernel whose working directory is
    ``folder`` (:func:`kernel_manager`), then each of ``probes`` (code by cell id, run as cells after
    the notebook's, in the same kernel): its ``NotebookNode`` with the outputs. Raises nbclient's
    ``CellExecutionError`` at a cell that raises, ``CellTimeoutError`` at one that runs over ``timeout``
    seconds."""
    book = nbformat.read(notebook, as_version=4)
    for name, code in (probes or {}).items():
        book.cells.append(nbformat.v4.new_code_cell(code, id=name))
    with tempfile.TemporaryDirectory(prefix="kernels-") as specs:
        manager = kernel_manager(Path(specs), hosted=hosted)
        client = NotebookClient(
            book, km=manager, timeout=timeout, resources={"metadata": {"path": str(folder)}}
        )
        client.execute()
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


SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
"""JupyterLab's user settings in :func:`jupyterlab`: a notebook opens with its kernel started, not a
dialog that asks which; no question about fetching Jupyter's news, no call to the network for it."""


@contextlib.contextmanager
def jupyterlab(root: Path, home: Path, *, timeout: float = 120) -> Iterator[str]:
    """A JupyterLab server of this interpreter on 127.0.0.1 (a free port, a random token, no browser)
    serving ``root``, its settings, workspaces and runtime files in ``home``: yields its address with
    the token (``http://127.0.0.1:PORT/lab?token=...``); stopped (SIGTERM, then SIGKILL) after. Its
    log goes to ``home/server.log``. Raises ``RuntimeError`` when it does not start within
    ``timeout`` seconds."""
    token = secrets.token_hex(16)
    runtime = home / "runtime"
    for name, values in SETTINGS.items():
        path = home / "settings" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", "--ServerApp.port=0", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    with open(home / "server.log", "w", encoding="utf-8") as log:
        server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while (info := _server_info(runtime)) is None:
            if server.poll() is not None or time.monotonic() > deadline:
                said = (home / "server.log").read_text(encoding="utf-8")
                raise RuntimeError(f"JupyterLab did not start within {timeout:.0f} s:\n{said}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{info['port']}/lab?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _server_info(runtime: Path) -> dict[str, Any] | None:
    """What a Jupyter server wrote of itself in ``runtime`` (``jpserver-PID.json``: its port, its
    URL), once it is there whole; else None."""
    for path in runtime.glob("jpserver-*.json"):
        with contextlib.suppress(OSError, ValueError):
            return dict(json.loads(path.read_text(encoding="utf-8")))
    return None
