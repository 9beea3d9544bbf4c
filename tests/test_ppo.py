"""The ``ppo`` agent's numpy policy, and its training by ``connectx train ppo`` ([rl], PyTorch)."""

from __future__ import annotations

import csv
import importlib.util
import io
import pickle
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

from agents import ppo, weights
from agents.engine.board import Board, geometry
from agents.kit.adapter import Clock
from tests.boards import random_board

STANDARD = geometry(6, 7, 4)


def random_policy_file(path: Path, seed: int = 0) -> Path:
    """A ppo weights file of random numbers, with the shipped network's shapes."""
    rng = np.random.default_rng(seed)
    arrays = {
        "conv0": rng.normal(0, 0.3, (32, 2, 3, 3)),
        "conv0_bias": rng.normal(0, 0.3, 32),
        "conv1": rng.normal(0, 0.3, (64, 32, 3, 3)),
        "conv1_bias": rng.normal(0, 0.3, 64),
    }
    for i, (n, m) in enumerate([(64 * 2 * 3, 128), (128, 64), (64, 64), (64, 7)]):
        arrays[f"w{i}"], arrays[f"b{i}"] = rng.normal(0, 0.3, (n, m)), rng.normal(0, 0.3, m)
    weights.save(path, {k: v.astype(np.float32) for k, v in arrays.items()}, STANDARD)
    return path


def naive_logits(arrays: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The module docstring's network, written out with loops."""
    for i in range(2):
        kernel, bias = arrays[f"conv{i}"], arrays[f"conv{i}_bias"]
        out = np.zeros((kernel.shape[0], x.shape[1] - 2, x.shape[2] - 2))
        for o in range(out.shape[0]):
            for r in range(out.shape[1]):
                for c in range(out.shape[2]):
                    out[o, r, c] = (x[:, r : r + 3, c : c + 3] * kernel[o]).sum() + bias[o]
        x = np.maximum(out, 0)
    h = np.maximum(x.reshape(-1) @ arrays["w0"] + arrays["b0"], 0)
    h = np.tanh(h @ arrays["w1"] + arrays["b1"])
    h = np.tanh(h @ arrays["w2"] + arrays["b2"])
    return h @ arrays["w3"] + arrays["b3"]


def test_the_numpy_policy_is_the_documented_network(tmp_path: Path) -> None:
    path = random_policy_file(tmp_path / "w.npz")
    arrays = weights.load(str(path), shipped=bytes)
    policy = ppo.Policy(arrays)
    rng = random.Random(1)
    for _ in range(3):
        board = random_board(rng, 6, 7, 4)
        x = np.stack([board_planes(board, k) for k in (0, 1)])
        np.testing.assert_allclose(ppo.logits(policy, x), naive_logits(arrays, x), rtol=1e-4, atol=1e-4)


def board_planes(board: Board, k: int) -> np.ndarray:
    """Plane ``k`` of :func:`agents.features.planes`, written out: the side to move's stones (0) or the
    other side's (1), row 0 on top."""
    cells = np.asarray(board.to_kaggle()).reshape(6, 7)
    mark = board.mark if k == 0 else 3 - board.mark
    return (cells == mark).astype(np.float32)


def test_the_agent_plays_its_policys_best_legal_column_and_falls_back_elsewhere(tmp_path: Path) -> None:
    path = random_policy_file(tmp_path / "w.npz")
    player = ppo.PPO(str(path))
    policy = ppo.Policy(weights.load(str(path), shipped=bytes))
    board = Board.from_moves("444444")  # the centre column full
    scores = ppo.logits(policy, np.stack([board_planes(board, k) for k in (0, 1)]))
    scores[3] = -np.inf
    record = player.play(board, Clock())
    assert (record.column, record.stage) == (int(np.argmax(scores)), "policy")
    small = Board(4, 5, 3)
    record = player.play(small, Clock())
    assert small.can_play(record.column) and record.stage == "fallback"


def test_tactics_come_before_the_policy_unless_turned_off(tmp_path: Path) -> None:
    path = random_policy_file(tmp_path / "w.npz")
    board = Board.from_moves("12131")  # mark 2 to move; mark 1 wins in column 1 unless blocked
    policy = ppo.logits(ppo.Policy(weights.load(str(path), shipped=bytes)), planes(board))
    assert int(np.argmax(policy)) != 0  # these random weights would not block
    with_tactics = ppo.PPO(str(path))
    record = with_tactics.play(board, Clock())
    assert (record.column, record.stage) == (0, "block")
    alone = ppo.PPO(str(path), tactics=False).play(board, Clock())
    assert (alone.column, alone.stage) == (int(np.argmax(policy)), "policy")


def planes(board: Board) -> np.ndarray:
    return np.stack([board_planes(board, k) for k in (0, 1)])


def test_a_file_that_is_not_ppo_weights_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    weights.save(path, {"w0": np.zeros((84, 7), np.float32), "b0": np.zeros(7, np.float32)}, STANDARD)
    with pytest.raises(ValueError, match="conv0"):
        ppo.make_agent(weights=str(path))(*_empty_observation())
    with pytest.raises(FileNotFoundError):
        ppo.make_agent(weights=str(tmp_path / "missing.npz"))


def _empty_observation() -> tuple[dict, dict]:
    from agents.kit.adapter import observation

    return observation(Board(), Clock())


@pytest.mark.torch
@pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="needs the [rl] extra (sb3-contrib, PyTorch)"
)
def test_connectx_train_ppo_exports_what_the_agent_plays_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    temporary = tmp_path / "tmp"  # Stable-Baselines3's default logger makes a folder there each run
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    import torch
    from sb3_contrib import MaskablePPO

    from connectx.cli import main
    from training.envs.view import planes

    out = tmp_path / "run"
    options = ["train", "ppo", "--out", str(out), "--eval-every", "64", "--eval-pairs", "1", "-q"]
    for param in ("envs=2", "n_steps=32", "batch_size=64", "epochs=1", "opponents=random+self"):
        options += ["--param", param]
    assert main([*options, "--steps", "50"]) == 0  # rounded up to a whole rollout, 2 x 32 steps
    assert f"ppo:weights={out / 'ppo.npz'}" in capsys.readouterr().out
    with open(out / "curve.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["steps"] for row in rows] == ["64"]
    assert {"seconds", "score_random", "score_one_step"} <= set(rows[-1])
    assert (out / "curve.png").stat().st_size > 0

    with open(out / "checkpoint.pkl", "rb") as handle:
        saved = pickle.load(handle)
    model = MaskablePPO.load(io.BytesIO(saved["learner"]["model"]), device="cpu")
    assert model.num_timesteps == 64
    policy = ppo.Policy(weights.load(str(out / "ppo.npz"), shipped=bytes))
    rng = random.Random(7)
    for _ in range(4):
        board = random_board(rng, 6, 7, 4)
        x = planes(board, board.mark)
        with torch.no_grad():
            expected = model.policy.get_distribution(torch.as_tensor(x[None])).distribution.logits.numpy()[0]
        mine = ppo.logits(policy, x)
        np.testing.assert_allclose(
            mine - mine.max(), expected - expected.max(), atol=1e-4
        )  # up to a constant

    assert main([*options, "--steps", "128"]) == 0  # the same command, more steps: resumed
    assert "resuming" in capsys.readouterr().err
    with open(out / "curve.csv") as handle:
        assert [row["steps"] for row in csv.DictReader(handle)] == ["64", "128"]
    assert not list(temporary.glob("SB3-*"))  # no log folder left behind outside --out
