"""JupyterLab for the notebook's browser test and its screenshot: a server on 127.0.0.1 of this
interpreter (:func:`jupyterlab`), and a notebook opened in it and run, Run > Run All Cells, as a user
runs it (:func:`run_all`).

The server takes a free port and a random token, opens no browser, and keeps its settings, workspaces
and runtime files in a folder of its own; its user settings (:data:`SETTINGS`) start a notebook's
kernel without asking and keep JupyterLab from the network. The page is driven by Playwright
(:mod:`benchmarks.browser`). It sits here, the floor below ``scripts``, so that the tests
(``tests/test_notebooks_browser.py``) and ``python -m scripts.notebook`` share it. Sources:
https://jupyter-server.readthedocs.io (``ServerApp`` options), JupyterLab's settings schemas.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

__all__ = ["SETTINGS", "jupyterlab", "run_all"]


SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
"""JupyterLab's user settings in :func:`jupyterlab`: a notebook opens with its kernel started, not a
dialog that asks which; no question about fetching Jupyter's news, no call to the network for it."""


_SERVER = """import sys
from tournament.refusal import refusing
with refusing(("rfc3987_syntax",)):
    from jupyterlab.labapp import main
sys.exit(main())"""
"""What :func:`jupyterlab` runs (``python -c``): ``python -m jupyterlab``, but without the module that
``jupyter_events``' jsonschema would import for its ``iri`` format, which no event schema uses: it
builds a grammar at import, 1.1 s of CPU of the server's start (as in :mod:`tournament.refusal`)."""


@contextlib.contextmanager
def jupyterlab(root: Path, home: Path, *, timeout: float = 120) -> Iterator[str]:
    """A JupyterLab server of this interpreter (:data:`_SERVER`) on 127.0.0.1 (a free port, a random
    token, no browser) serving ``root``, its settings, workspaces and runtime files in ``home``:
    yields its address with the token (``http://127.0.0.1:PORT/lab?token=...``); stopped (SIGTERM,
    then SIGKILL) after. Its log goes to ``home/server.log``. Raises ``RuntimeError`` when it does not
    start within ``timeout`` seconds."""
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
        sys.executable, "-c", _SERVER, "--no-browser", "--allow-root",
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


KERNEL_READY = """() =>
  document.querySelector('.jp-Toolbar-kernelName')?.textContent === 'Python 3 (ipykernel)'
  && document.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status === 'idle'"""
"""The notebook's kernel is started and idle (JupyterLab's toolbar)."""

ALL_RUN = """() => {
  const prompts = Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt'));
  return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent))
    && document.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status === 'idle';
}"""
"""Every code cell has run (its prompt numbered) and the kernel is idle."""


def run_all(page: Page, url: str, notebook: str, *, timeout: float = 600) -> None:
    """Open ``notebook`` (a path under the server's root) on ``page`` from the server at ``url``
    (:func:`jupyterlab`'s), wait for its kernel, and run every cell from the menu, Run > Run All
    Cells; return when every cell has run. Raises ``RuntimeError``, with the end of what the notebook
    shows, when they have not within ``timeout`` seconds (a cell that raised stops the others)."""
    page.goto(url.replace("/lab?", f"/lab/tree/{notebook}?reset&"))
    page.wait_for_function(KERNEL_READY, timeout=120_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()
    try:
        page.wait_for_function(ALL_RUN, timeout=timeout * 1000, polling=500)
    except Exception as error:
        shown = page.evaluate("document.querySelector('.jp-Notebook').innerText")
        raise RuntimeError(
            f"{notebook} did not run to its end in JupyterLab; it shows:\n{shown[-4000:]}"
        ) from error
