"""Kaggle's package versions on this machine: the virtual environment in which ``connectx check
--kaggle-packages`` plays a file (:func:`submissions.check.check_file`'s ``python``).

The versions are pinned in ``submissions/data/kaggle-packages.txt``, which names its source
(Kaggle/docker-python's ``installed_cpu_packages.txt``): numba and llvmlite, numpy, scipy and
kaggle-environments as Kaggle's image has them. :func:`environment` makes the environment once, in
the user's cache folder (:mod:`submissions.cache`), under
``connectx/kaggle-packages/py<major>.<minor>-<hash of the pins>``, and reuses it afterwards; other
pins, or another Python, make another. It is built in a temporary folder beside that one
(``python -m venv``, then pip installs the pins from the package index pip is set up with: about
2 GB, kaggle-environments 1.29.3 brings OpenSpiel and more) and renamed into place once pip has
finished and the packages import, so an interrupted or failed install leaves nothing half made.
The interpreter is this machine's (Kaggle's image has a Python of its own version).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from submissions.cache import folder

__all__ = ["PINS", "Environment", "KagglePackagesError", "environment", "pins"]

PINS = "kaggle-packages.txt"
"""The data file of :mod:`submissions` (``submissions/data/``) with Kaggle's pins."""

READY = "connectx-ready.json"
"""Written in an environment once its packages import: their versions."""

IMPORTS = ("numba", "llvmlite", "numpy", "scipy", "kaggle_environments")
"""What must import in the environment before it is used."""


class KagglePackagesError(RuntimeError):
    """The environment could not be made: the message says which step failed and pip's last words."""


@dataclass(frozen=True, slots=True)
class Environment:
    """A ready environment: its ``python`` and the ``versions`` of :data:`IMPORTS` there."""

    python: Path
    versions: dict[str, str]

    def describe(self) -> str:
        """``numba 0.65.1, llvmlite 0.47.0, ...`` (the versions that import there)."""
        return ", ".join(f"{name.replace('_', '-')} {version}" for name, version in self.versions.items())


def pins() -> list[str]:
    """The pip requirements of :data:`PINS`, in order (comments and blank lines left out)."""
    text = resources.files("submissions").joinpath("data", PINS).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def location(cache: Path | None = None) -> Path:
    """Where the environment of these pins and this Python lives (made or not)."""
    key = hashlib.sha256("\n".join(pins()).encode()).hexdigest()[:12]
    return folder(cache) / "kaggle-packages" / f"py{sys.version_info[0]}.{sys.version_info[1]}-{key}"


def _python(home: Path) -> Path:
    return home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def environment(cache: Path | None = None, *, say: Callable[[str], object] = print) -> Environment:
    """The environment with Kaggle's pins (the module docstring), made now if it is not yet; ``say``
    tells the user that it is being made (minutes, once). Raises :class:`KagglePackagesError` when
    ``venv`` or pip fails or the packages do not import."""
    home = location(cache)
    ready = home / READY
    if ready.is_file():
        return Environment(_python(home), json.loads(ready.read_text(encoding="utf-8")))
    home.parent.mkdir(parents=True, exist_ok=True)
    say(f"making the environment of Kaggle's packages ({', '.join(pins())}) in {home}, once: minutes")
    work = Path(tempfile.mkdtemp(prefix=f"{home.name}.making-", dir=home.parent))
    try:
        versions = _make(work)
        (work / READY).write_text(json.dumps(versions), encoding="utf-8")
        try:
            work.rename(home)
        except OSError:  # another check made it meanwhile: use that one
            if not ready.is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Environment(_python(home), versions)


def _make(work: Path) -> dict[str, str]:
    """Make the environment in ``work`` and return the versions that import there."""
    _run([sys.executable, "-m", "venv", str(work)], "python -m venv")
    python = str(_python(work))
    requirements = work / "requirements.txt"
    requirements.write_text("\n".join(pins()) + "\n", encoding="utf-8")
    _run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", str(requirements)],
        "pip install",
    )
    script = (
        "import importlib, importlib.metadata, json\n"
        f"names = {list(IMPORTS)!r}\n"
        "for name in names: importlib.import_module(name)\n"
        "print(json.dumps({n: importlib.metadata.version(n.replace('_', '-')) for n in names}))\n"
    )
    out = _run([python, "-I", "-c", script], "importing the packages")
    versions: dict[str, str] = json.loads(out.strip().splitlines()[-1])
    return versions


def _run(command: list[str], step: str) -> str:
    """Run ``command``; its stdout, or :class:`KagglePackagesError` naming ``step`` and its last words."""
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise KagglePackagesError(f"{step} failed (exit status {done.returncode}): {tail}")
    return done.stdout
