"""The solved game's opening databases: the exact value of every 6x7 position with 12 stones.

The databases are Markus Thill's, published under the MIT licence as the ``bitbully-databases``
package (https://github.com/MarkusThill/bitbully-databases, a dependency of this project). This module
reads their files into numpy arrays; it shares no code with that package or with the ``bitbully``
solver.

What the files hold (facts of the format, measured on version 0.0.2):

* A position is keyed by a Huffman code: columns left to right, each column's stones bottom to top,
  ``10`` for a stone of the first player (mark 1), ``11`` for one of the second, ``0`` after each
  column's last stone, and one more ``0`` at the end. With 12 stones that is 32 bits, read as a
  big-endian *signed* int32; with 8 stones 24 bits, unsigned. A position is stored under the code of
  itself or of its mirror image, so a lookup tries both. Positions where the side to move wins at
  once are absent.
* ``book_12ply_distances.dat``: 4,200,899 entries of 5 bytes, sorted by code: the code, then an
  int8 value ``v`` from the side to move (mark 1, since 12 is even): ``v > 0`` wins with the
  ``100 - v``-th ply from now, ``v < 0`` loses with the ``100 + v``-th, ``0`` is a draw.
* ``book_12ply.dat``: the same positions without the wins of the side to move (1,735,945 entries of
  4 bytes, sorted): the code, whose two lowest bits (always 0 in a code) hold 1 for a loss and 0
  for a draw. An absent position is a win. Derived from the distance book, it is not read here; a
  submission packs the same draws and losses from the distance book (:func:`unpack_wdl`).

:class:`Database` answers a position's score in Pons' convention (see :mod:`agents.engine.solver`),
exact from the distance book, or only its sign (-1, 0, 1) from the win/draw/loss book.
:func:`load_database` finds the best one available: the installed package's distance book, else a
packed win/draw/loss book (:func:`unpack_wdl`: what a single-file submission carries, made by
:func:`submissions.databases.pack_wdl` since the distance book is too large for Kaggle), else none.
"""

from __future__ import annotations

import lzma
import struct
import sys

import numpy as np

from agents.engine.board import Geometry, geometry

__all__ = [
    "DATABASE_PLY",
    "PACKED_FILE",
    "PACK_HEADER",
    "PACK_MAGIC",
    "Database",
    "huffman_code",
    "load_database",
    "unpack_wdl",
]

DATABASE_PLY = 12
"""Stones in every position of the databases."""

PACKED_FILE = "book-12ply-wdl.xz"
"""Name of the packed win/draw/loss book as a data file of a built submission
(:mod:`agents.resources`); the package itself reads the installed databases instead."""

_GEO = geometry(6, 7, 4)
PACK_MAGIC = b"C4WD"
PACK_HEADER = struct.Struct("<4sII")
"""Header of a packed win/draw/loss book: magic, entries, escaped gaps (:func:`unpack_wdl`)."""


def _column_codes(geo: Geometry) -> list[tuple[int, int]]:
    """``(code, bits)`` of one column, indexed by its 7-bit Pons key ``first-player stones + stones``."""
    table = [(0, 0)] * (1 << geo.height)
    for height in range(geo.rows + 1):
        filled = (1 << height) - 1
        for first in range(1 << height):
            code = 0
            for row in range(height):
                code = (code << 2) | (0b10 if first >> row & 1 else 0b11)
            table[first + filled] = (code << 1, 2 * height + 1)
    return table


_COLUMN_CODES = _column_codes(_GEO)


def huffman_code(first: int, mask: int, *, mirrored: bool = False) -> int:
    """The databases' key of a 6x7 position: its Huffman code as the files store it.

    ``first`` holds the first player's (mark 1's) stones and ``mask`` all stones, as bitboards of
    :mod:`agents.engine.board`; ``mirrored`` encodes the mirror image. The code is signed when it is
    32 bits long (12 stones), as in the 12-ply files.
    """
    table = _COLUMN_CODES
    h = _GEO.height
    low = (1 << h) - 1
    code = 0
    bits = 1
    columns = range(_GEO.columns - 1, -1, -1) if mirrored else range(_GEO.columns)
    for c in columns:
        shift = c * h
        piece, n = table[((first >> shift) & low) + ((mask >> shift) & low)]
        code = (code << n) | piece
        bits += n
    code <<= 1
    if bits == 32 and code >> 31:
        code -= 1 << 32
    return code


class Database:
    """One opening database in two numpy arrays: sorted int32 ``codes`` and int8 ``scores``.

    ``scores`` are Pons scores of the side to move (:mod:`agents.engine.solver`) when ``exact``, else
    -1 / 0 / 1; a position absent from the arrays scores ``absent`` (None for the distance book: the
    side to move wins at once there; 1 for the win/draw/loss book, which leaves the wins out). About
    5 bytes an entry resident (21 MB for the distance book).
    """

    # Sorted key and value arrays with a length, as agents.engine.book.Book holds them: two file
    # formats of different contents, the same container shape.
    def __init__(self, codes: np.ndarray, scores: np.ndarray, *, exact: bool, absent: int | None) -> None:
        self.codes = codes
        self.scores = scores
        self.exact = exact
        self.absent = absent
        self.ply = DATABASE_PLY
        self._entries: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @classmethod
    def from_distances(cls, data: bytes) -> Database:
        """Read ``book_12ply_distances.dat`` (see the module docstring). Raises ``ValueError`` when its
        length is not a multiple of 5."""
        if len(data) % 5:
            raise ValueError("not a 12-ply distance book: its length is not a multiple of 5 bytes")
        entries = np.frombuffer(data, dtype=[("code", ">i4"), ("value", "u1")])
        codes = entries["code"].astype(np.int32)
        return cls(codes, _PONS_SCORES[entries["value"]], exact=True, absent=None)

    def entries(self) -> np.ndarray:
        """The distance book as the numba kernel reads it (:mod:`agents.engine.solver.fast`, by the
        array's address): one sorted int64 a position, ``code << 8 | (score + 128)``. 34 MB, made once
        (0.02 s). Raises ``ValueError`` for the win/draw/loss book."""
        if not self.exact:
            raise ValueError("only the distance database is probed compiled")
        if self._entries is None:
            self._entries = (self.codes.astype(np.int64) << 8) | (self.scores.astype(np.int64) + 128)
        return self._entries

    def score(self, position: int, mask: int) -> int | None:
        """The score of a 12-stone position (bitboards of :mod:`agents.engine.board`, ``position`` the
        side to move's stones, who is mark 1), or ``absent`` when it is not stored."""
        codes = self.codes
        last = len(codes) - 1
        for mirrored in (False, True):
            code = huffman_code(position, mask, mirrored=mirrored)
            i = int(codes.searchsorted(np.int32(code)))  # a Python int would convert the whole array
            if i <= last and codes[i] == code:
                return int(self.scores[i])
        return self.absent


def _pons_scores() -> np.ndarray:
    """Pons' score (int8) of each byte of the distance book (its value ``v`` as an unsigned byte),
    side to move at ply 12: a table, so that converting 4.2 million values makes no temporaries."""
    v = np.arange(256, dtype=np.uint8).view(np.int8).astype(np.int16)
    mover = DATABASE_PLY // 2  # stones each side has played
    top = (_GEO.size + 2) // 2
    win = top - (mover + (100 - v + 1) // 2)  # wins with its (100 - v + 1) // 2-th stone from now
    loss = -(top - (mover + (100 + v) // 2))  # the opponent wins with its (100 + v) // 2-th
    return np.where(v > 0, win, np.where(v < 0, loss, 0)).astype(np.int8)


_PONS_SCORES = _pons_scores()


def unpack_wdl(data: bytes) -> Database:
    """The win/draw/loss :class:`Database` packed by :func:`submissions.databases.pack_wdl` (0.1 s).

    Layout after :data:`PACK_HEADER`, xz-compressed (:mod:`lzma`): the first code shifted right by 2
    (int64), the gaps between consecutive shifted codes as uint16 (65535: the gap is among the uint32
    that follow), then one bit a position, 1 for a loss. Raises ``ValueError`` for anything else."""
    if len(data) < PACK_HEADER.size:
        raise ValueError("not a packed win/draw/loss book: too short")
    magic, n, n_escaped = PACK_HEADER.unpack_from(data)
    if magic != PACK_MAGIC:
        raise ValueError("not a packed win/draw/loss book: bad magic")
    try:
        body = lzma.decompress(data[PACK_HEADER.size :])
    except lzma.LZMAError as exc:
        raise ValueError(f"packed win/draw/loss book is corrupt: {exc}") from None
    if len(body) != 8 + 2 * n + 4 * n_escaped + (n + 7) // 8:
        raise ValueError("packed win/draw/loss book is corrupt: wrong length")
    (first,) = struct.unpack_from("<q", body)
    gaps = np.frombuffer(body, "<u2", n, 8).astype(np.int64)
    escaped = np.flatnonzero(gaps == 0xFFFF)
    gaps[escaped] = np.frombuffer(body, "<u4", n_escaped, 8 + 2 * n)
    gaps[0] = first
    codes = (np.cumsum(gaps) << 2).astype(np.int32)
    flags = np.unpackbits(np.frombuffer(body, np.uint8, offset=8 + 2 * n + 4 * n_escaped), count=n)
    return Database(codes, -flags.astype(np.int8), exact=False, absent=1)


_loaded: list[Database | None] = []


def load_database() -> Database | None:
    """The best database available, loaded once per process: the distance book of the installed
    ``bitbully-databases`` package (exact scores); else a packed win/draw/loss book among the agents'
    data files (:data:`PACKED_FILE`: a built submission carries one); else None, after one line on
    standard error saying that exact play falls back to the opening book and the solver."""
    if not _loaded:
        _loaded.append(_find())
    return _loaded[0]


def _find() -> Database | None:
    try:
        from importlib.resources import files

        import bitbully_databases  # noqa: F401  (the package holding the files)

        path = files("bitbully_databases").joinpath("assets", "book_12ply_distances.dat")
        return Database.from_distances(path.read_bytes())
    except (ImportError, OSError):
        pass
    try:
        from agents import resources

        return unpack_wdl(resources.read("book-12ply-wdl.xz"))  # a literal: the builder looks for it
    except FileNotFoundError:
        pass
    print(
        "connectx: the solved game's opening databases are not installed (pip install bitbully-databases);"
        " exact play before ply 13 falls back to the opening book and the solver",
        file=sys.stderr,
    )
    return None
