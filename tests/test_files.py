"""agents.files.replace_atomically: the file is flushed before the rename, the directory after it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents.files import replace_atomically


def test_the_file_is_flushed_then_renamed_then_its_directory_flushed(tmp_path, monkeypatch) -> None:
    events: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace

    def flush(descriptor: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}")))
        fsync(descriptor)

    def rename(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        events.append(("replace", str(target)))
        replace(source, target)

    monkeypatch.setattr(os, "fsync", flush)
    monkeypatch.setattr(os, "replace", rename)
    path = tmp_path / "weights.npz"
    replace_atomically(path, lambda temporary: temporary.write_bytes(b"new"))
    assert path.read_bytes() == b"new"
    assert [kind for kind, _ in events] == ["fsync", "replace", "fsync"]
    flushed, _, directory = (Path(name) for _, name in events)
    assert flushed.parent == tmp_path and flushed.name.startswith(".weights.") and flushed.suffix == ".npz"
    assert directory == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["weights.npz"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path) -> None:
    path = tmp_path / "report.md"
    path.write_text("old", encoding="utf-8")

    def fail(temporary: Path) -> None:
        temporary.write_text("half", encoding="utf-8")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        replace_atomically(path, fail)
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
