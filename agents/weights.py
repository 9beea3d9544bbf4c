"""Weights files of the learned agents: one ``.npz`` format, read and written in one place.

A weights file is a numpy ``.npz`` archive of named float arrays plus three integer scalars,
``rows``, ``columns`` and ``inarow``: the board the weights were trained on. Agents read their
shipped file through :func:`agents.resources.read` (so that a submission embeds it) and a user's
file from a path (the ``weights=PATH`` spec parameter).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.engine.board import Geometry, geometry
from agents.files import replace_atomically

__all__ = ["BOARD_KEYS", "Layers", "board_of", "layers", "load", "require", "save"]

BOARD_KEYS = ("rows", "columns", "inarow")
"""The integer scalars naming the board a weights file was trained on."""


def require(path: str | None) -> None:
    """Raise ``FileNotFoundError`` unless ``path`` is None (the shipped weights) or a file: the check
    agents make when they are made, before reading the file at their first move."""
    if path is not None and not os.path.isfile(path):
        raise FileNotFoundError(f"weights file not found: {path}")


def load(path: str | None, shipped: Callable[[], bytes]) -> dict[str, np.ndarray]:
    """The arrays of the weights file at ``path``, or of ``shipped()`` (the bytes of the agent's own
    file) when ``path`` is None. Raises ``FileNotFoundError`` for a missing file and ``ValueError``
    for a file that is not an ``.npz`` archive with the board keys."""
    require(path)
    data = shipped() if path is None else Path(path).read_bytes()
    try:
        with np.load(io.BytesIO(data)) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except Exception as error:  # np.load raises several kinds for a damaged file
        raise ValueError(f"not a weights file (.npz): {path or 'shipped weights'}: {error}") from error
    missing = [key for key in BOARD_KEYS if key not in arrays]
    if missing:
        raise ValueError(f"weights file {path or '(shipped)'} lacks {', '.join(missing)}")
    return arrays


Layers = list[tuple[np.ndarray, np.ndarray]]
"""A network's dense layers, first first: ``(weight (inputs, outputs), bias (outputs,))``, float32."""


def layers(arrays: Mapping[str, np.ndarray]) -> Layers:
    """The dense layers stored as ``w0, b0, w1, b1, ...`` in a loaded weights file, as float32.
    Raises ``ValueError`` when there is no ``w0``/``b0`` or the shapes do not chain."""
    out: Layers = []
    while f"w{len(out)}" in arrays and f"b{len(out)}" in arrays:
        i = len(out)
        out.append((np.asarray(arrays[f"w{i}"], np.float32), np.asarray(arrays[f"b{i}"], np.float32)))
    if not out:
        raise ValueError("the weights file has no layer w0, b0")
    for i, (w, b) in enumerate(out):
        if w.ndim != 2 or b.shape != (w.shape[1],) or (i and w.shape[0] != out[i - 1][0].shape[1]):
            raise ValueError(f"layer {i} of the weights file has shapes {w.shape} and {b.shape}")
    return out


def board_of(arrays: Mapping[str, np.ndarray]) -> Geometry:
    """The board a loaded weights file was trained on."""
    return geometry(*(int(arrays[key]) for key in BOARD_KEYS))


def save(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], geo: Geometry) -> None:
    """Write ``arrays`` (float arrays, names without the board keys) and the board ``geo`` as a
    weights file at ``path``, atomically (:func:`agents.files.replace_atomically`)."""
    contents: dict[str, Any] = {name: np.asarray(value) for name, value in arrays.items()}
    contents |= {"rows": geo.rows, "columns": geo.columns, "inarow": geo.inarow}

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:
            np.savez(handle, **contents)  # Any: numpy's stub would match the arrays to allow_pickle

    replace_atomically(path, write)
