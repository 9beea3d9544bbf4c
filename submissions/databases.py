"""The solved game's opening databases in a form small enough for a Kaggle submission.

The distance book (21 MB, :mod:`agents.engine.solver.databases`) compresses to 4.6 MB at best, over the
5 MB that Kaggle reliably takes once base64 adds its third. The win/draw/loss book leaves out the
wins of the side to move and needs one bit a position: packed here as gaps between sorted codes
and xz-compressed, it is 1.5 MB (2.0 MB in the file). A submission then plays perfectly before ply
13 in the weak sense (it keeps every win and draw) but not always the fastest win there; from ply
13 on its solver gives exact scores.

Packing takes seconds (xz at its strongest preset), so :func:`packed_database` packs once and keeps
the result in the user's cache folder (:mod:`submissions.cache`), under
``connectx/packed-databases/``, named after a hash of the book it packed and of this module (which
defines the packing): every later build reads it back.
"""

from __future__ import annotations

import hashlib
import lzma
import struct
from pathlib import Path

import numpy as np

from agents.engine.solver.databases import PACK_HEADER, PACK_MAGIC, PACKED_FILE, Database, load_database
from agents.files import replace_atomically
from submissions.cache import folder

__all__ = ["pack_wdl", "packed_database"]


def pack_wdl(book: Database, *, preset: int = 9 | lzma.PRESET_EXTREME) -> bytes:
    """``book``'s draws and losses in the layout that :func:`agents.engine.solver.databases.unpack_wdl`
    reads (``book`` may be exact: only the signs of its scores are kept, and its wins are left out).
    ``preset``: :mod:`lzma`'s; the default, the smallest file, takes about 3 s for the 12-ply book."""
    keep = book.scores <= 0
    codes = book.codes[keep].astype(np.int64) >> 2
    losses = book.scores[keep] < 0
    gaps = np.diff(codes, prepend=codes[:1])
    escaped = gaps >= 0xFFFF
    body = b"".join(
        (
            struct.pack("<q", int(codes[0]) if len(codes) else 0),
            np.minimum(gaps, 0xFFFF).astype("<u2").tobytes(),
            gaps[escaped].astype("<u4").tobytes(),
            np.packbits(losses).tobytes(),
        )
    )
    head = PACK_HEADER.pack(PACK_MAGIC, len(codes), int(escaped.sum()))
    return head + lzma.compress(body, preset=preset)


def packed_database(cache: Path | None = None) -> dict[str, bytes]:
    """``{PACKED_FILE: bytes}`` to embed in a submission, or ``{}`` when the databases are not
    installed: the built file then plays as the package does without them. Packed by :func:`pack_wdl`
    (about 3 s of compression) once, then read from the cache folder under ``cache`` (default: the
    user's, :func:`submissions.cache.folder`); a cache that cannot be written is done without."""
    book = load_database()
    if book is None:
        return {}
    key = hashlib.sha256(Path(__file__).read_bytes())
    key.update(book.codes.tobytes())
    key.update(book.scores.tobytes())
    path = folder(cache) / "packed-databases" / f"{key.hexdigest()[:16]}.xz"
    try:
        packed = path.read_bytes()
        if packed.startswith(PACK_MAGIC) and packed.endswith(_XZ_FOOTER):  # whole: written atomically
            return {PACKED_FILE: packed}
    except OSError:
        pass
    packed = pack_wdl(book)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, lambda temporary: temporary.write_bytes(packed))
    except OSError:
        pass
    return {PACKED_FILE: packed}


_XZ_FOOTER = b"YZ"
"""The last two bytes of an xz stream (its stream footer's magic): a truncated pack lacks them."""
