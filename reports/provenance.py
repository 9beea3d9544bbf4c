"""Where the toolkit running now comes from: its version and git commit, for reports and stored runs.

A run records this when it creates its tournament (:attr:`tournament.schedule.Settings.toolkit`), so a
report rewritten later still names the code that played the games.
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

__all__ = ["toolkit_version"]

DISTRIBUTION = "connectx-toolkit"

_ROOT = Path(__file__).resolve().parents[1]
"""The directory holding the ``reports`` package: the repository root of a source checkout."""


def toolkit_version() -> str:
    """``0.1.0 (git c61f79a)``: the installed version and the checkout's commit.

    The commit gets ``+changes`` when tracked files differ from it, and reads ``no git`` when the
    package is not in a git checkout (an installed wheel) or git is missing; the version reads
    ``unknown`` when the distribution is not installed. Never raises.
    """
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = _git("rev-parse", "--short", "HEAD")
    if commit is None:
        return f"{version} (no git)"
    if _git("status", "--porcelain", "--untracked-files=no"):
        commit += "+changes"
    return f"{version} (git {commit})"


def _git(*args: str) -> str | None:
    """Output of ``git -C ROOT ARGS`` stripped, or None when git fails or is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(_ROOT), *args], capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()
