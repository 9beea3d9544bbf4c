"""Offline training code (training.network): labelled data, examples and targets, the flax model, a
smoke training run, and the command lines' refusals."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from agents.engine.board import Board
from agents.engine.solver import Solver
from agents.kit.clock import Clock
from agents.network.agent import best_move
from agents.network.numpy_forward import forward, load_weights
from training.network.data import FULL, UNSOLVED, NoisyTactical, label_game, noisy_game
from training.network.examples import book_examples, child_examples, targets, teacher_policy


def test_noisy_games_are_whole_legal_games_from_the_seed() -> None:
    for seed in range(5):
        moves = noisy_game(random.Random(seed), epsilon=0.25)
        assert moves == noisy_game(random.Random(seed), epsilon=0.25)
        board = Board.from_moves(moves)  # raises on an illegal move or a move after the end
        assert board.is_game_over()


def test_the_tactical_player_wins_blocks_and_does_not_play_under_a_threat() -> None:
    clock = Clock()
    for seed in range(20):
        player = NoisyTactical(random.Random(seed), epsilon=0.0)
        assert player.play(Board.from_moves("112233"), clock).column == 3  # its win in column 4
        assert player.play(Board.from_moves("11223"), clock).column == 3  # the opponent's win in column 4
        # The opponent threatens b2: a stone in b1 would let it win at once.
        assert player.play(Board.from_moves("35326173332744"), clock).column != 1
    explorer = NoisyTactical(random.Random(0), epsilon=1.0)
    assert {explorer.play(Board.from_moves("112233"), clock).column for _ in range(50)} == set(range(7))


def test_labels_are_the_solvers_weak_values() -> None:
    solver = Solver()
    moves = noisy_game(random.Random(7), epsilon=0.5)
    rows = label_game(moves, solver, min_ply=max(len(moves) - 8, 0))
    assert [ply for _, _, ply, _ in rows] == list(range(len(moves) - 1, max(len(moves) - 8, 0) - 1, -1))
    for position, mask, ply, values in rows:
        board = Board.from_moves(moves[:ply])
        assert (board.position, board.mask) == (position, mask)
        scores = Solver().analyse(moves[:ply], weak=True)
        wins = board.columns(board.winning_moves())
        for column, (value, score) in enumerate(zip(values, scores, strict=True)):
            if score is None:
                assert value == FULL
            elif wins:
                assert value == (2 if column in wins else UNSOLVED)
            else:
                assert value == score


def test_child_examples_are_the_positions_after_each_solved_move() -> None:
    board = Board.from_moves("4455")
    values = np.array([[0, -1, UNSOLVED, 1, FULL, 0, 2]], dtype=np.int8)
    data = {
        "position": np.array([board.position], np.uint64),
        "mask": np.array([board.mask], np.uint64),
        "ply": np.array([board.ply], np.int8),
        "values": values,
    }
    children = child_examples(data)
    expected = {}
    for column in (0, 1, 3, 5):
        child = board.copy()
        child.push(column)
        expected[(child.position, child.mask)] = 1 - int(values[0, column])
    got = {
        (int(p), int(m)): int(v)
        for p, m, v in zip(children["position"], children["mask"], children["value"], strict=True)
    }
    assert got == expected


@pytest.mark.jax
def test_grown_net_computes_what_the_small_net_computes(random_weights) -> None:
    jax = pytest.importorskip("jax")
    from training.network.model import PolicyValueNet, export_weights, grow

    _, _, small = random_weights(channels=8, blocks=2)
    big = PolicyValueNet(channels=12, blocks=3)
    # Jitted, with XLA's own random bit generator: 2 s of CPU, against 6-9 s for flax's op-by-op init
    # with the default threefry key (XLA compiles its random draws slowly); grow takes any init.
    key = jax.random.key(5, impl="rbg")
    fresh = jax.jit(big.init)(key, np.zeros((1, 6, 7, 3), np.float32))["params"]
    grown = grow(small, fresh)
    planes = np.random.default_rng(2).normal(size=(6, 6, 7, 3)).astype(np.float32)
    for want, got in zip(forward(small, planes), big.apply({"params": grown}, planes), strict=True):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
    # The new channels are live (random), so training can use them.
    assert np.abs(export_weights(grown)["stem/kernel"][..., 8:]).sum() > 0
    with pytest.raises(ValueError, match="cannot grow"):
        grow(export_weights(grown), random_weights(channels=8, blocks=2)[1])


@pytest.mark.jax
def test_teacher_policy_is_the_teachers_softmax_over_the_legal_columns(random_weights) -> None:
    from agents.network.features import encode_batch, legal_mask_batch

    _, _, weights = random_weights(channels=8, blocks=2)
    boards = [Board.from_moves(moves) for moves in ("", "4444", "111111222")]
    position = np.array([b.position for b in boards], dtype=np.uint64)
    mask = np.array([b.mask for b in boards], dtype=np.uint64)
    planes, legal = encode_batch(position, mask), legal_mask_batch(mask)
    assert not legal[2, 0]  # column 1 is full
    policy = teacher_policy(weights, planes, legal)
    assert policy.shape == (3, 7) and policy.dtype == np.float32
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-6)
    assert (policy[~legal] == 0).all() and (policy[legal] > 0).all()
    logits = forward(weights, planes)[0]
    for row in range(3):
        legal_logits = np.where(legal[row], logits[row], -np.inf)
        assert policy[row].argmax() == legal_logits.argmax()
        # The softmax's ratios are the teacher's: exp of the logit differences.
        a, b = np.flatnonzero(legal[row])[:2]
        np.testing.assert_allclose(
            policy[row, a] / policy[row, b], np.exp(logits[row, a] - logits[row, b]), rtol=1e-4
        )


def test_targets_uniform_over_best_moves() -> None:
    values = np.array(
        [[FULL, -1, 1, 1, 0, -1, -1], [UNSOLVED, 2, UNSOLVED, 2, UNSOLVED, UNSOLVED, FULL], [-1] * 7],
        dtype=np.int8,
    )
    policy, value = targets(values)
    np.testing.assert_allclose(policy[0], [0, 0, 0.5, 0.5, 0, 0, 0])
    np.testing.assert_allclose(policy[1], [0, 0.5, 0, 0.5, 0, 0, 0])
    np.testing.assert_allclose(policy[2], [1 / 7] * 7)
    assert value.tolist() == [2, 2, 0]


@pytest.mark.slow
@pytest.mark.jax
def test_smoke_training_writes_weights_curves_and_resumes(tmp_path) -> None:
    pytest.importorskip("jax")
    from training.network.train import main

    out = tmp_path / "run"
    assert main(["--out", str(out), "--smoke", "--book"]) == 0
    for name in ("network.npz", "curves.png", "history.json", "checkpoint.pkl", "train.log"):
        assert (out / name).is_file()
    history = json.loads((out / "history.json").read_text())
    assert history[-1]["step"] == 40
    # One 100-position shard trained on (the other held out), plus the book's positions with a move.
    assert history[-1]["positions"] == 100 + len(book_examples()[0]["ply"])
    weights = load_weights((out / "network.npz").read_bytes())
    board = Board.from_moves("44")
    assert board.can_play(best_move(weights, board))
    assert main(["--out", str(out), "--smoke"]) == 0  # resumes: already done, nothing retrained
    assert "resumed at step 40" in (out / "train.log").read_text()
    # A new run started from those weights, on the same shards (none regenerated).
    grown = tmp_path / "grown"
    start = ["--data", str(out / "data"), "--init-from", str(out / "network.npz")]
    assert main(["--out", str(grown), "--smoke", *start]) == 0
    assert "initialised from" in (grown / "train.log").read_text()
    assert main(["--out", str(grown), "--smoke", *start]) == 0  # resumes; the start weights are not reused
    assert "ignored: the run resumes from its checkpoint" in (grown / "train.log").read_text()
    assert not (grown / "data").exists()


KEEPS = """
import sys
import jax, jax.numpy as jnp
from training.compiled import keep_compiled
jax.jit(lambda x: x - 1)(jnp.zeros(2)).block_until_ready()  # a first compilation, before the cache is set
kept = keep_compiled()
jax.jit(lambda x: x * 2 + 1)(jnp.arange(3)).block_until_ready()
print(kept, keep_compiled())  # the second: the cache folder is set now, and left alone
"""


def test_compiled_programs_are_kept_in_the_users_cache_folder_unless_they_chose_one(tmp_path) -> None:
    """In a process of its own (JAX's configuration is the process's)."""
    pytest.importorskip("jax")
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    environment.pop("JAX_COMPILATION_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", KEEPS], env=environment, capture_output=True, text=True)
    assert done.stdout.split() == [str(tmp_path / "connectx" / "jax"), "None"], done.stderr
    assert any(path.name.startswith("jit__lambda") for path in (tmp_path / "connectx" / "jax").iterdir())


def test_book_examples_decode_the_book() -> None:
    from agents.engine.book import load_book

    labelled, lost = book_examples()
    book = load_book()
    assert len(labelled["ply"]) + len(lost["value"]) == len(book)
    for i in range(0, len(labelled["ply"]), 997):
        position, mask = int(labelled["position"][i]), int(labelled["mask"][i])
        assert mask.bit_count() == labelled["ply"][i] and position & ~mask == 0
        values = labelled["values"][i]
        (column,) = np.flatnonzero(values >= -1)
        assert book.lookup(position, mask) == (column, values[column])
        for c in range(7):
            full = bool(mask >> (7 * c + 5) & 1)
            assert (values[c] == FULL) == full
    assert np.all(lost["value"] == 0)


def test_shards_from_worker_processes_equal_serial_ones(tmp_path) -> None:
    pytest.importorskip("numba")
    from training.network.data import ensure_shards

    settings = dict(count=2, size=40, seed=3, min_ply=30, early_ply=30, early_fraction=0.0, progress=False)
    serial = ensure_shards(tmp_path / "serial", workers=1, **settings)
    pooled = ensure_shards(tmp_path / "pooled", workers=2, **settings)
    for a, b in zip(serial, pooled, strict=True):
        assert a.name == b.name
        with np.load(a) as x, np.load(b) as y:
            for key in ("position", "mask", "ply", "values"):
                assert np.array_equal(x[key], y[key])
    with pytest.raises(ValueError, match="workers"):
        ensure_shards(tmp_path / "serial", workers=0, **settings)


@pytest.mark.parametrize("option", ["--workers", "--shards", "--shard-size"])
def test_data_command_refuses_a_count_below_one(tmp_path, capsys, option: str) -> None:
    from training.network.data import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "data"), option, "0"])
    assert exit_info.value.code == 2
    assert "must be >= 1" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("option", ["--init-from", "--teacher"])
def test_train_refuses_missing_weights_before_touching_the_run(tmp_path, capsys, option: str) -> None:
    from training.network.train import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "run"), "--smoke", option, str(tmp_path / "missing.npz")])
    assert exit_info.value.code == 2
    assert option in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_accuracy_by_ply_scores_a_network_that_always_plays_column_3_and_says_draw() -> None:
    from agents import resources
    from training.network.evaluate import accuracy_by_ply, drawn_opening_values, main

    weights = dict(load_weights(resources.read("network.npz")))
    for name, hot in (("policy_dense", 3), ("value_out", 1)):  # logits = the bias: column 3, draw
        weights[f"{name}/kernel"] = np.zeros_like(weights[f"{name}/kernel"])
        weights[f"{name}/bias"] = np.eye(len(weights[f"{name}/bias"]), dtype=np.float32)[hot] * 5
    rows = []  # (moves, values): column 3 best or not, drawn (best value 0) or won (best value 1)
    for moves, values in (
        ((), [0, 0, 0, 0, 0, 0, 0]),  # ply 0: column 3 among the best, a draw
        ((3, 3), [1, -1, -1, -1, -1, -1, -1]),  # ply 2: column 0 alone wins
        ((0,) * 6 + (1,) * 3, [FULL, 0, 0, 1, 0, 0, 0]),  # ply 9: column 3 wins
        ((3,) * 6 + (1,) * 6, [0, FULL, 0, FULL, 0, 0, -1]),  # ply 12, column 3 full: argmax among legal
    ):
        board = Board.from_moves(moves)
        rows.append((board.position, board.mask, board.ply, values))
    data = {
        "position": np.array([r[0] for r in rows], dtype=np.uint64),
        "mask": np.array([r[1] for r in rows], dtype=np.uint64),
        "ply": np.array([r[2] for r in rows], dtype=np.int8),
        "values": np.array([r[3] for r in rows], dtype=np.int8),
    }
    assert accuracy_by_ply(weights, data) == [
        {"first": 0, "last": 8, "positions": 2, "policy": 0.5, "value": 0.5, "draws": 0.5},
        {"first": 9, "last": 11, "positions": 1, "policy": 1.0, "value": 0.0, "draws": 0.0},
        # Column 3 is full: the next legal column by argmax (all logits equal, column 0) is a draw.
        {"first": 12, "last": 17, "positions": 1, "policy": 1.0, "value": 1.0, "draws": 1.0},
    ]
    values = drawn_opening_values(weights)  # the suite's 91 drawn openings, valued 0 by this head
    assert sum(count for count, _ in values.values()) == 91
    assert all(abs(value) < 1e-6 for _, value in values.values())
    assert main(["missing.npz", "missing-shard.npz"]) == 2


def test_balanced_openings_are_within_the_margin_and_never_the_suites() -> None:
    pytest.importorskip("numba")
    from agents.engine.board import geometry
    from agents.engine.book import mirror
    from training.network.data import BALANCED_MARGIN, balanced_opening, suite_keys
    from training.solvers import weak_solver

    solver = weak_solver(20)
    suite = suite_keys()
    assert len(suite) == 700  # the 350 openings and their mirror images, none symmetric
    first = balanced_opening(random.Random(4), solver, suite, plies=(8,))
    assert first.ply == 8 and not first.winning_moves() and not first.is_game_over()
    assert abs(solver.solve_bits(first.position, first.mask, first.ply)) <= BALANCED_MARGIN
    key = first.position + first.mask
    assert key not in suite and mirror(key, geometry(6, 7, 4)) not in suite
    # The same draws with that opening excluded, directly or as its mirror image, give another one.
    for excluded in (key, mirror(key, geometry(6, 7, 4))):
        other = balanced_opening(random.Random(4), solver, suite | {excluded}, plies=(8,))
        assert other.position + other.mask != key
