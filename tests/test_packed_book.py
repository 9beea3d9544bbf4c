"""The packed win/draw/loss book that ``connectx build`` embeds is packed once and kept in the user's
cache folder (:func:`submissions.databases.kept_pack`): a later build reads it back, another book is
packed anew, a kept file cut short is packed again, and a folder that cannot be written only goes
without."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import submissions.databases as databases
from agents.engine.solver.databases import Database, unpack_wdl


def _book(last: int = -2) -> Database:
    codes = np.array([16, 32, 48, 64, 1_600_000], dtype=np.int32)  # sorted, as a database's are
    return Database(codes, np.array([0, -1, 3, 0, last], dtype=np.int8), exact=True, absent=None)


def test_a_packed_book_is_kept_read_back_packed_anew_when_another_and_never_needs_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = databases.pack_wdl(_book())
    packs: list[Database] = []
    pack = databases.pack_wdl

    def counted(book: Database) -> bytes:
        packs.append(book)
        return pack(book)

    monkeypatch.setattr(databases, "pack_wdl", counted)
    assert databases.kept_pack(_book(), tmp_path) == fresh and len(packs) == 1  # packed, and kept
    (kept,) = tmp_path.iterdir()
    assert databases.kept_pack(_book(), tmp_path) == fresh and len(packs) == 1  # read back
    other = databases.kept_pack(_book(last=0), tmp_path)  # another book: packed, and kept beside
    assert unpack_wdl(other).scores.tolist() == [0, -1, 0, 0] and len(packs) == 2
    assert len(list(tmp_path.iterdir())) == 2
    kept.write_bytes(fresh[: len(fresh) // 2])  # cut short
    assert databases.kept_pack(_book(), tmp_path) == fresh and len(packs) == 3
    assert kept.read_bytes() == fresh  # and kept whole again
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert databases.kept_pack(_book(), blocked / "cache") == fresh and len(packs) == 4  # not writable


def test_the_cache_folder_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert databases.cache_folder() == tmp_path / "connectx" / "packed"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert databases.cache_folder() == tmp_path / "home" / ".cache" / "connectx" / "packed"
