"""The solved game's opening databases in a form small enough for a Kaggle submission.

The distance book (21 MB, :mod:`agents.engine.solver.databases`) compresses to 4.6 MB at best, over the
5 MB that Kaggle reliably takes once base64 adds its third. The win/draw/loss book leaves out the
wins of the side to move and needs one bit a position: packed here as gaps between sorted codes
and xz-compressed, it is 1.5 MB (2.0 MB in the file). A submission then plays perfectly before ply
13 in the weak sense (it keeps every win and draw) but not always the fastest win there; from ply
13 on its solver gives exact scores.

The compression takes about 3 s of CPU (at xz's presets 6 and 9 alike, measured), so the packed book
is kept in the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``), under
``connectx/packed/``, named by the SHA-256 of what makes it (the book's arrays and the source of
:func:`pack_wdl`), and read back by every later build (:func:`packed_database`).
"""

from __future__ import annotations

import hashlib
import inspect
import lzma
import os
import struct
from pathlib import Path

import numpy as np

from agents.engine.solver.databases import PACK_HEADER, PACK_MAGIC, PACKED_FILE, Database, load_database
from agents.files import replace_atomically

__all__ = ["cache_folder", "kept_pack", "pack_wdl", "packed_database"]


def pack_wdl(book: Database) -> bytes:
    """``book``'s draws and losses in the layout that :func:`agents.engine.solver.databases.unpack_wdl`
    reads (``book`` may be exact: only the signs of its scores are kept, and its wins are left out)."""
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
    return head + lzma.compress(body, preset=9 | lzma.PRESET_EXTREME)


def packed_database() -> dict[str, bytes]:
    """``{PACKED_FILE: bytes}`` to embed in a submission (:func:`kept_pack` in :func:`cache_folder`:
    about 3 s of compression the first time, 0.1 s afterwards), or ``{}`` when the databases are not
    installed: the built file then plays as the package does without them."""
    book = load_database()
    return {} if book is None else {PACKED_FILE: kept_pack(book, cache_folder())}


def kept_pack(book: Database, cache: Path) -> bytes:
    """:func:`pack_wdl` of ``book``, read from the folder ``cache`` when a build has kept it there (the
    file named by the SHA-256 of ``book``'s arrays, of :func:`pack_wdl`'s source and of the header's
    layout, checked by decompressing it), else packed now and kept there; a folder that cannot be
    written only goes without."""
    try:
        key = hashlib.sha256(f"{inspect.getsource(pack_wdl)}{PACK_HEADER.format}{PACK_MAGIC!r}".encode())
    except OSError:  # no source to read (an install without .py files): nothing to name it by
        return pack_wdl(book)
    for array in (book.codes, book.scores):
        key.update(f"{array.dtype.str}{array.shape}".encode())
        key.update(array.tobytes())
    path = cache / f"wdl-{key.hexdigest()[:32]}.bin"
    try:
        kept = path.read_bytes()
        lzma.decompress(kept[PACK_HEADER.size :])  # whole: not cut short, not another file
        return kept
    except (OSError, lzma.LZMAError):
        pass
    packed = pack_wdl(book)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, lambda temporary: temporary.write_bytes(packed))
    except OSError:
        pass
    return packed


def cache_folder() -> Path:
    """Where builds keep packed books: ``connectx/packed`` in ``$XDG_CACHE_HOME``, else ``~/.cache``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "connectx" / "packed"
