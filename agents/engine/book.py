"""Opening book for 6x7 Connect Four: the move to play in the positions our agent reaches early.

Scores are from the point of view of the side to move; the book stores the weak value (1 win,
0 draw, -1 loss) and one column that keeps it. Which positions it holds and how their moves were
chosen: :mod:`training.book`, which builds it (offline; this module only reads it). Positions are
folded by mirror symmetry (key = the smaller of the position key and its mirror's); lost positions
store no move.

File format (``agents/data/book-6x7.bin``, read through :mod:`agents.resources`): zlib-compressed
bytes ``b"C4BK" | uint32 n | uint8 rows | uint8 columns | uint8 first | uint8 second |
n x uint64 keys (sorted) | n x uint8 entries``, little-endian (:data:`HEADER`, :data:`MAGIC`); entry =
``(value + 1) << 4 | column`` with column 15 (:data:`NO_MOVE`) meaning "no move". ``first`` /
``second`` are the deepest plies to which the lines of the agent as first / second player were
complete when the file was built (255: none).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from agents.engine.board import Board, Geometry, geometry

__all__ = ["BOOK_FILE", "HEADER", "MAGIC", "NO_MOVE", "Book", "book_move", "canonical", "load_book", "mirror"]

BOOK_FILE = "book-6x7.bin"
NO_MOVE = 15
MAGIC = b"C4BK"
HEADER = struct.Struct("<4sIBBBB")


def mirror(key: int, geo: Geometry) -> int:
    """The bitboard ``key`` reflected left-right (column ``c`` -> ``columns - 1 - c``)."""
    h = geo.height
    column = (1 << h) - 1
    last = geo.columns - 1
    out = 0
    for c in range(geo.columns):
        out |= ((key >> (c * h)) & column) << ((last - c) * h)
    return out


def canonical(position: int, mask: int, geo: Geometry) -> tuple[int, bool]:
    """``(key, mirrored)``: the smaller of the position key and its mirror's; True when it is the mirror's."""
    key = position + mask
    other = mirror(key, geo)
    return (other, True) if other < key else (key, False)


class Book:
    """A loaded opening book: ``lookup(position, mask) -> (column | None, value) | None``.

    ``keys``: sorted uint64 array of canonical keys; ``entries``: uint8 array (see the module docs);
    ``depth``: ``(first, second)``, the deepest ply to which the lines of the agent as first / second
    player are complete (-1: none).
    """

    def __init__(
        self,
        keys: np.ndarray,
        entries: np.ndarray,
        *,
        rows: int = 6,
        columns: int = 7,
        depth: tuple[int, int] = (-1, -1),
    ) -> None:
        self.geo = geometry(rows, columns, 4)
        self.keys = keys
        self.entries = entries
        self.depth = depth

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @classmethod
    def from_bytes(cls, data: bytes) -> Book:
        """Parse the file format above. Raises ``ValueError`` for a corrupt or foreign file."""
        try:
            raw = zlib.decompress(data)
        except zlib.error as exc:
            raise ValueError(f"opening book is not zlib data: {exc}") from None
        if len(raw) < HEADER.size:
            raise ValueError("opening book too short")
        magic, n, rows, columns, first, second = HEADER.unpack_from(raw)
        if magic != MAGIC or len(raw) != HEADER.size + 9 * n:
            raise ValueError("not an opening book file (bad magic or length)")
        keys = np.frombuffer(raw, dtype="<u8", count=n, offset=HEADER.size)
        entries = np.frombuffer(raw, dtype=np.uint8, count=n, offset=HEADER.size + 8 * n)
        depth = (-1 if first == 255 else first, -1 if second == 255 else second)
        return cls(keys, entries, rows=rows, columns=columns, depth=depth)

    def lookup(self, position: int, mask: int) -> tuple[int | None, int] | None:
        """``(column, value)`` for the side to move, column ``None`` when the position is lost;
        ``None`` when the position is not in the book. Bitboards as in :mod:`agents.engine.board`."""
        key, mirrored = canonical(position, mask, self.geo)
        i = int(np.searchsorted(self.keys, np.uint64(key)))
        if i >= len(self) or int(self.keys[i]) != key:
            return None
        entry = int(self.entries[i])
        value = (entry >> 4) - 1
        column = entry & 15
        if column == NO_MOVE:
            return None, value
        return (self.geo.columns - 1 - column if mirrored else column), value


_cached: Book | None = None


def load_book() -> Book | None:
    """The packaged 6x7 book (cached after the first call), or None when the data file is absent."""
    global _cached
    if _cached is None:
        from agents import resources

        try:
            _cached = Book.from_bytes(resources.read("book-6x7.bin"))
        except FileNotFoundError:
            return None
    return _cached


def book_move(board: Board) -> int | None:
    """The packaged book's column for ``board``: None on any board but 6x7 four in a row, without
    the book file, for a position the book does not hold, and for a lost one (the book stores no
    move there). The column keeps the position's weak value (perfect play)."""
    geo = board.geo
    if (geo.rows, geo.columns, geo.inarow) != (6, 7, 4):
        return None
    opening = load_book()
    hit = None if opening is None else opening.lookup(board.position, board.mask)
    if hit is None or hit[0] is None or not board.can_play(hit[0]):
        return None
    return hit[0]
