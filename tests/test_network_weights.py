"""``network:weights=PATH``: a trained weights file plays in place of the shipped one."""

from __future__ import annotations

import io

import numpy as np
import pytest

from agents import resources
from agents.engine.board import Board
from agents.kit.adapter import observation
from agents.kit.clock import Clock
from agents.network.agent import make_agent


def test_a_weights_file_plays_as_the_shipped_weights_do(tmp_path) -> None:
    path = tmp_path / "network.npz"
    path.write_bytes(resources.read("network.npz"))
    obs, config = observation(Board.from_moves([3, 3, 2]), Clock())
    assert make_agent(search="none", weights=str(path))(obs, config) == make_agent(search="none")(obs, config)


def test_weights_that_flip_the_policy_play_another_move(tmp_path) -> None:
    with np.load(io.BytesIO(resources.read("network.npz"))) as f:
        arrays = {name: f[name] for name in f.files}
    arrays["policy_dense/kernel"] = -arrays["policy_dense/kernel"]
    arrays["policy_dense/bias"] = -arrays["policy_dense/bias"]
    path = tmp_path / "flipped.npz"
    np.savez(path, **arrays)
    obs, config = observation(Board.from_moves([3, 3, 2]), Clock())
    assert make_agent(search="none", weights=str(path))(obs, config) != make_agent(search="none")(obs, config)


def test_a_missing_or_foreign_weights_file_is_refused_when_the_agent_is_made(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        make_agent(weights=str(tmp_path / "missing.npz"))
    np.savez(tmp_path / "other.npz", w0=np.zeros(3))
    with pytest.raises(ValueError, match="lack layer"):
        make_agent(weights=str(tmp_path / "other.npz"))
