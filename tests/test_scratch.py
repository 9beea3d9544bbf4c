"""Scratch directories: removed by their maker, or by the next one made once their maker is gone."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

import pytest

from tournament.scratch import MAKING, MAKING_AGE, PREFIX, Scratch, sweep


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch) -> Path:
    """Every scratch directory of a test goes in its own temporary directory."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _made_by_a_killed_process() -> str:
    """The path of a scratch directory (with a file in it) whose maker was killed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        scratch = Scratch("slot7")
        Path(scratch.path, "agent.txt").write_text("left behind")
        os.write(write, scratch.path.encode())
        time.sleep(60)
        os._exit(0)
    os.close(write)
    path = os.read(read, 4096).decode()
    os.close(read)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return path


def test_a_scratch_directory_is_named_by_its_kind_and_removed_on_close(private_tmp):
    with Scratch("game") as path:
        assert Path(path).parent == private_tmp
        assert Path(path).name.startswith(f"{PREFIX}game-")
        Path(path, "weights.npz").write_bytes(b"\0")
    assert not os.path.exists(path)


def test_the_mode_is_the_one_asked_for():
    scratch = Scratch("slot0", mode=0o711)
    assert os.stat(scratch.path).st_mode & 0o777 == 0o711
    scratch.close()
    scratch.close()  # again: nothing


def test_the_next_scratch_removes_one_whose_maker_was_killed():
    left = _made_by_a_killed_process()
    assert os.path.isdir(left)
    with Scratch("slot7"):
        assert not os.path.exists(left)


def test_a_sweep_spares_directories_in_use_and_of_other_names(private_tmp):
    in_use = Scratch("slot0")
    left = _made_by_a_killed_process()  # made after in_use: making one sweeps
    other = private_tmp / "connectx-other-abc"  # a directory of another name
    other.mkdir()
    fresh = private_tmp / f"{MAKING}fresh"  # being made by another process right now
    fresh.mkdir()
    stale = private_tmp / f"{MAKING}stale"  # its maker died before it was renamed
    stale.mkdir()
    old = time.time() - MAKING_AGE - 1
    os.utime(stale, (old, old))
    assert sorted(sweep()) == sorted([str(stale), left])
    assert os.path.isdir(in_use.path) and other.is_dir() and fresh.is_dir()
    in_use.close()


def test_a_scratch_made_without_sweeping_leaves_the_others():
    left = _made_by_a_killed_process()
    with Scratch("mark1", sweep_first=False):
        assert os.path.isdir(left)
    assert sweep() == [left]
