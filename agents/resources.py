"""Data files the agents carry (opening book, network weights), read in one way everywhere.

In the package, ``read(name)`` returns the bytes of ``agents/data/<name>``. A single-file Kaggle
submission has no package directory: the submission builder replaces this module by one whose
``read`` returns the same bytes embedded in the file. Agents therefore read data only through
``resources.read("literal-name")`` -- the builder finds the names to embed by those literals.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"


def read(name: str) -> bytes:
    """The bytes of data file ``name``; raises ``FileNotFoundError`` naming the missing file."""
    path = DATA_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"agent data file missing: {path}")
    return path.read_bytes()
