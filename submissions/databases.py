"""The solved game's opening databases in a form small enough for a Kaggle submission.

The distance book (21 MB, :mod:`agents.engine.solver.databases`) compresses to 4.6 MB at best, over the
5 MB that Kaggle reliably takes once base64 adds its third. The win/draw/loss book leaves out the
wins of the side to move and needs one bit a position: packed here as gaps between sorted codes
and xz-compressed, it is 1.5 MB (2.0 MB in the file). A submission then plays perfectly before ply
13 in the weak sense (it keeps every win and draw) but not always the fastest win there; from ply
13 on its solver gives exact scores.

The compression takes about 3 s of CPU (at xz's presets 6 and 9 alike, measured), so a
packed book is kept in the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``), under
``connectx/packed/``, named by the SHA-256 of what it holds, and reused by every later build that
packs the same bytes (:func:`packed_database`).
"""

from __future__ import annotations

import hashlib
import lzma
import os
import struct
from pathlib import Path

import numpy as np

from agents.engine.solver.databases import PACK_HEADER, PACK_MAGIC, PACKED_FILE, Database, load_database
from agents.files import replace_atomically

__all__ = ["cache_folder", "pack_wdl", "packed_database"]


def pack_wdl(book: Database, cache: Path | None = None) -> bytes:
    """``book``'s draws and losses in the layout that :func:`agents.engine.solver.databases.unpack_wdl`
    reads (``book`` may be exact: only the signs of its scores are kept, and its wins are left out).
    With ``cache`` (a folder), the compressed part is read from there when a build has kept it (the
    file named by its content's SHA-256, checked by decompressing it), else compressed and kept
    there; a folder that cannot be written only goes without."""
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
    return head + (_compress(body) if cache is None else _kept(body, cache))


def _compress(body: bytes) -> bytes:
    return lzma.compress(body, preset=9 | lzma.PRESET_EXTREME)


def _kept(body: bytes, cache: Path) -> bytes:
    """``body`` compressed (:func:`_compress`), read from ``cache`` when kept there, else kept there."""
    path = cache / f"wdl-{hashlib.sha256(body).hexdigest()[:32]}.xz"
    try:
        kept = path.read_bytes()
        if lzma.decompress(kept) == body:
            return kept
    except (OSError, lzma.LZMAError):
        pass
    packed = _compress(body)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, lambda temporary: temporary.write_bytes(packed))
    except OSError:
        pass
    return packed


def cache_folder() -> Path:
    """Where builds keep packed books: ``connectx/packed`` in ``$XDG_CACHE_HOME``, else ``~/.cache``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "connectx" / "packed"


def packed_database() -> dict[str, bytes]:
    """``{PACKED_FILE: bytes}`` to embed in a submission (about 3 s of compression the first time, then
    read from :func:`cache_folder`), or ``{}`` when the databases are not installed: the built file
    then plays as the package does without them."""
    book = load_database()
    return {} if book is None else {PACKED_FILE: pack_wdl(book, cache_folder())}
