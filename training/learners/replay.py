"""The replay buffer of the network learners (:mod:`training.learners.value_net`,
:mod:`training.learners.q_net`) and the helpers their rows are made with.

A :class:`ReplayBuffer` is a ring of ``capacity`` rows of named fields, each field one numpy array
of ``capacity`` rows of a fixed shape and dtype: rows are appended at :attr:`ReplayBuffer.head` and,
once it is full, overwrite the oldest (DQN's replay memory; Mnih et al., *Nature* 518, 2015).
Minibatches are uniform draws of rows with replacement. The buffer is numpy only.

A position enters as its :func:`agents.features.planes` (``2 * rows * columns`` cells of 0 or 1)
packed to bits by :func:`pack`, ``ceil(2 * rows * columns / 8)`` bytes (:func:`packed_width`, 11 on
6x7), and leaves through :func:`unpack`. :func:`mirror_permutation` reflects such a cell vector left
to right (Connect Four's symmetry), which doubles the examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from agents.engine.board import Geometry

__all__ = ["Field", "ReplayBuffer", "mirror_permutation", "pack", "packed_width", "unpack"]

Field = tuple[tuple[int, ...], DTypeLike]
"""A field of a :class:`ReplayBuffer`: the shape of one row (``()`` for a scalar) and its dtype."""


def packed_width(count: int) -> int:
    """Bytes of ``count`` cells packed by :func:`pack`: ``ceil(count / 8)``."""
    return (count + 7) // 8


def pack(cells: np.ndarray) -> np.ndarray:
    """Cells ``(..., count)``, bool or integer (nonzero counts as 1), packed along the last axis,
    eight a byte, the first cell in the high bit (``numpy.packbits``): uint8 ``(..., packed_width(count))``,
    the last byte padded with zeros. Float cells raise TypeError (from ``numpy.packbits``)."""
    packed: np.ndarray = np.packbits(cells, axis=-1)
    return packed


def unpack(packed: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` cells of :func:`pack`'s bytes ``(..., packed_width(count))``: float32
    ``(..., count)`` of 0.0 and 1.0, as the networks take them. A ``count`` beyond the bytes' bits
    raises ValueError (from ``numpy.unpackbits``)."""
    unpacked: np.ndarray = np.unpackbits(packed, axis=-1, count=count).astype(np.float32)
    return unpacked


def mirror_permutation(geo: Geometry) -> np.ndarray:
    """The indices that reflect a :func:`agents.features.planes` vector of ``geo`` left to right:
    ``x[..., mirror_permutation(geo)]`` is the planes of the mirrored position (column ``c`` becomes
    ``columns - 1 - c``, each plane in place). Int ``(2 * rows * columns,)``, its own inverse.

    >>> from agents.engine.board import geometry
    >>> mirror_permutation(geometry(2, 3, 2)).tolist()
    [2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9]
    """
    half = np.arange(geo.size).reshape(geo.rows, geo.columns)[:, ::-1].reshape(-1)
    return np.concatenate([half, half + geo.size])


class ReplayBuffer:
    """A ring buffer of ``capacity`` rows of the named ``fields`` (name -> :data:`Field`), all
    zeros at first. ``capacity`` below 1 or no fields raise ValueError.

    >>> buffer = ReplayBuffer(3, {"x": ((2,), np.uint8), "y": ((), np.float32)})
    >>> buffer.append(x=np.array([[1, 2], [3, 4]]), y=np.array([0.5, -1.0]))
    >>> buffer.append(x=np.array([[5, 6], [7, 8]]), y=np.array([1.0, 0.0]))
    >>> len(buffer), buffer.head, buffer.arrays["x"].tolist()
    (3, 1, [[7, 8], [3, 4], [5, 6]])
    """

    def __init__(self, capacity: int, fields: Mapping[str, Field]) -> None:
        if capacity < 1 or not fields:
            raise ValueError(f"a replay buffer needs a capacity of at least 1 and fields, not {capacity}")
        self.capacity = capacity
        self.arrays: dict[str, np.ndarray] = {
            name: np.zeros((capacity, *shape), dtype) for name, (shape, dtype) in fields.items()
        }
        """Each field's storage, ``(capacity, *shape)``: slot ``i`` holds a row once ``i <
        len(self)`` (the oldest at :attr:`head` when full). Read it; write through :meth:`append`."""
        self.head = 0
        """The slot the next row goes to, ``0 <= head < capacity``."""
        self.size = 0
        """Rows held, ``0 <= size <= capacity``."""

    def __len__(self) -> int:
        """Rows held: the rows appended, at most ``capacity``."""
        return self.size

    def append(self, **rows: np.ndarray) -> None:
        """Put ``n`` rows into the buffer at :attr:`head`, overwriting the oldest once full: one
        keyword per field, each an array ``(n, *shape)`` (cast to the field's dtype as numpy
        assignment does). Of more than ``capacity`` rows only the last ``capacity`` are kept. Missing
        or unknown fields, fields of unequal lengths ``n`` or rows of another shape raise ValueError
        and change nothing."""
        if rows.keys() != self.arrays.keys():
            raise ValueError(f"append needs the fields {sorted(self.arrays)}, not {sorted(rows)}")
        shapes = {name: np.shape(values) for name, values in rows.items()}
        for name, shape in shapes.items():
            if not shape or shape[1:] != self.arrays[name].shape[1:]:
                raise ValueError(
                    f"field {name!r} takes rows of shape {self.arrays[name].shape[1:]}, not {shape}"
                )
        lengths = {shape[0] for shape in shapes.values()}
        if len(lengths) != 1:
            raise ValueError(f"append needs rows of one length, not {sorted(lengths)}")
        (n,) = lengths
        skip = max(0, n - self.capacity)  # rows this call would write and overwrite itself
        slots = (self.head + np.arange(skip, n)) % self.capacity
        for name, values in rows.items():
            self.arrays[name][slots] = values[skip:]
        self.head = (self.head + n) % self.capacity
        self.size = min(self.capacity, self.size + n)

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...]) -> dict[str, np.ndarray]:
        """Rows drawn uniformly with replacement: for each field its rows at ``index =
        rng.integers(0, len(self), shape)`` (one draw of ``rng``), ``(*shape, *field shape)``.
        An empty buffer raises ValueError."""
        if not self.size:
            raise ValueError("sample from an empty replay buffer")
        index = rng.integers(0, self.size, shape)
        return {name: array[index] for name, array in self.arrays.items()}

    def state(self) -> dict[str, Any]:
        """The buffer as picklable numpy values (copies): ``capacity``, ``head``, ``size`` and
        ``arrays`` (name -> array)."""
        return {
            "capacity": self.capacity,
            "head": self.head,
            "size": self.size,
            "arrays": {name: array.copy() for name, array in self.arrays.items()},
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state`'s result (copies it). A state of another capacity, other fields,
        or fields of other shapes or dtypes raises ValueError and changes nothing."""
        arrays = state["arrays"]
        if int(state["capacity"]) != self.capacity or arrays.keys() != self.arrays.keys():
            raise ValueError(
                f"a replay buffer of {state['capacity']} rows of {sorted(arrays)} cannot be loaded into"
                f" one of {self.capacity} rows of {sorted(self.arrays)}"
            )
        for name, array in self.arrays.items():
            if arrays[name].shape != array.shape or arrays[name].dtype != array.dtype:
                raise ValueError(
                    f"field {name!r}: {arrays[name].dtype} {arrays[name].shape} cannot be loaded"
                    f" into {array.dtype} {array.shape}"
                )
        self.arrays = {name: np.array(arrays[name]) for name in self.arrays}
        self.head, self.size = int(state["head"]), int(state["size"])
