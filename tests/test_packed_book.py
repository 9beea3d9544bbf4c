"""The packed win/draw/loss book that ``connectx build`` embeds is compressed once and kept in the
user's cache folder (:func:`submissions.databases.pack_wdl`): a later build reads it back, a kept file
that does not hold the same bytes is made again, and a folder that cannot be written only goes without."""

from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np
import pytest

import submissions.databases as databases
from agents.engine.solver.databases import Database, unpack_wdl


def _book() -> Database:
    codes = np.array([16, 32, 48, 64, 1_600_000], dtype=np.int32)  # sorted, as a database's are
    return Database(codes, np.array([0, -1, 3, 0, -2], dtype=np.int8), exact=True, absent=None)


def test_a_packed_book_is_kept_read_back_made_again_when_wrong_and_never_needs_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = databases.pack_wdl(_book())
    assert databases.pack_wdl(_book(), tmp_path) == fresh  # compressed, and kept
    (kept,) = tmp_path.iterdir()
    compressions: list[bytes] = []

    def compress(body: bytes) -> bytes:
        compressions.append(body)
        return lzma.compress(body)

    monkeypatch.setattr(databases, "_compress", compress)
    assert databases.pack_wdl(_book(), tmp_path) == fresh and compressions == []  # read back
    kept.write_bytes(lzma.compress(b"another book"))
    assert (
        unpack_wdl(databases.pack_wdl(_book(), tmp_path)).codes.tolist() == unpack_wdl(fresh).codes.tolist()
    )
    assert len(compressions) == 1 and lzma.decompress(kept.read_bytes()) == compressions[0]  # made again
    kept.write_bytes(b"not xz")
    assert unpack_wdl(databases.pack_wdl(_book(), tmp_path)).scores.tolist() == [0, -1, 0, -1]
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert unpack_wdl(databases.pack_wdl(_book(), blocked / "cache")).absent == 1  # cannot be written


def test_the_cache_folder_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert databases.cache_folder() == tmp_path / "connectx" / "packed"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert databases.cache_folder() == tmp_path / "home" / ".cache" / "connectx" / "packed"
