"""The user's cache folder: where the toolkit keeps what it makes once and reuses.

``$XDG_CACHE_HOME/connectx``, else ``~/.cache/connectx`` (the XDG Base Directory Specification,
https://specifications.freedesktop.org/basedir-spec/latest/): the environment of Kaggle's packages
(:mod:`submissions.kaggle_packages`), the packed opening databases (:mod:`submissions.databases`)
and the training's compiled XLA programs (:mod:`training.compiled`).
Everything there can be deleted; it is made again when needed.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["folder"]


def folder(base: Path | None = None) -> Path:
    """The toolkit's cache folder under ``base`` (default: the user's cache folder, see the module
    docstring); not made here."""
    return (base or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")) / "connectx"
