"""The network agent: numpy forward pass = flax's, input planes, targets, agent behaviour, smoke training."""

from __future__ import annotations

import functools
import importlib
import json

import numpy as np
import pytest

from agents.board import Board
from agents.network import agent as shipped_agent_module  # noqa: F401  (package imports without jax)
from agents.network.agent import best_move, make_agent, make_agent_from_weights
from agents.network.data import FULL, UNSOLVED
from agents.network.features import encode, encode_batch, legal_mask_batch
from agents.network.numpy_forward import forward, load_weights, value_of


@functools.cache
def _random_weights(channels: int = 8, blocks: int = 2, seed: int = 0) -> tuple:
    """(flax module, random flax parameters with every kernel non-zero, their numpy export)."""
    jax = pytest.importorskip("jax")
    from agents.network.model import PolicyValueNet, export_weights

    net = PolicyValueNet(channels=channels, blocks=blocks)
    params = net.init(jax.random.PRNGKey(seed), np.zeros((1, 6, 7, 3), np.float32))["params"]
    rng = np.random.default_rng(seed)
    params = jax.tree_util.tree_map(lambda a: rng.normal(0, 0.3, a.shape).astype(np.float32), params)
    return net, params, export_weights(params)


def _obs(board: Board) -> dict:
    return {"board": board.to_kaggle(), "mark": board.mark, "remainingOverageTime": 60}


CONFIG = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}


def test_numpy_forward_equals_flax_on_random_inputs() -> None:
    net, params, weights = _random_weights()
    rng = np.random.default_rng(1)
    planes = rng.normal(size=(5, 6, 7, 3)).astype(np.float32)
    policy, value = net.apply({"params": params}, planes)
    np_policy, np_value = forward(weights, planes)
    assert np_policy.shape == (5, 7) and np_value.shape == (5, 3)
    np.testing.assert_allclose(np_policy, np.asarray(policy), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np_value, np.asarray(value), rtol=1e-4, atol=1e-4)


def test_grown_net_computes_what_the_small_net_computes() -> None:
    jax = pytest.importorskip("jax")
    from agents.network.model import PolicyValueNet, export_weights, grow

    _, _, small = _random_weights(channels=8, blocks=2)
    big = PolicyValueNet(channels=12, blocks=3)
    fresh = big.init(jax.random.PRNGKey(5), np.zeros((1, 6, 7, 3), np.float32))["params"]
    grown = grow(small, fresh)
    planes = np.random.default_rng(2).normal(size=(6, 6, 7, 3)).astype(np.float32)
    for want, got in zip(forward(small, planes), big.apply({"params": grown}, planes), strict=True):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
    # The new channels are live (random), so training can use them.
    assert np.abs(export_weights(grown)["stem/kernel"][..., 8:]).sum() > 0
    with pytest.raises(ValueError, match="cannot grow"):
        grow(export_weights(grown), _random_weights(channels=8, blocks=2)[1])


def test_weights_round_trip_through_float16_npz(tmp_path) -> None:
    _, _, weights = _random_weights(seed=3)
    path = tmp_path / "w.npz"
    np.savez(path, **{k: v.astype(np.float16) for k, v in weights.items()})
    loaded = load_weights(path.read_bytes())
    assert set(loaded) == set(weights)
    assert all(loaded[k].dtype == np.float32 for k in loaded)
    planes = encode(*_bits("4453"))
    a, _ = forward(weights, planes)
    b, _ = forward(loaded, planes)
    np.testing.assert_allclose(a, b, atol=0.05)


def test_load_weights_rejects_missing_layer(tmp_path) -> None:
    path = tmp_path / "w.npz"
    np.savez(path, **{"stem/kernel": np.zeros((3, 3, 3, 4))})
    with pytest.raises(ValueError, match="lack"):
        load_weights(path.read_bytes())


def _bits(moves: str) -> tuple[int, int]:
    board = Board.from_moves(moves)
    return board.position, board.mask


def test_planes_side_to_move_first_row_zero_at_bottom() -> None:
    board = Board.from_moves("445")  # X: d1, e1 ... O: d2; X to move? no: ply 3, O to move
    planes = encode(board.position, board.mask)
    assert planes.shape == (6, 7, 3)
    # O (to move) has column 4 (index 3) row 1; X has (0, 3) and (0, 4).
    assert planes[1, 3, 0] == 1 and planes[:, :, 0].sum() == 1
    assert planes[0, 3, 1] == 1 and planes[0, 4, 1] == 1 and planes[:, :, 1].sum() == 2
    # Landing cells: row 2 in column 3, row 1 in column 4, row 0 elsewhere.
    assert planes[2, 3, 2] == 1 and planes[1, 4, 2] == 1 and planes[0, 0, 2] == 1
    assert planes[:, :, 2].sum() == 7


def test_planes_agree_with_kaggle_board() -> None:
    board = Board.from_moves("4455671")
    planes = encode(board.position, board.mask)
    cells = np.array(board.to_kaggle()).reshape(6, 7)[::-1]  # Kaggle row 0 is the top
    assert np.array_equal(planes[:, :, 0], (cells == board.mark).astype(np.float32))
    assert np.array_equal(planes[:, :, 1], (cells == 3 - board.mark).astype(np.float32))


def test_legal_mask_marks_full_columns() -> None:
    board = Board.from_moves("111111")
    legal = legal_mask_batch(np.array([board.mask], np.uint64))[0]
    assert legal.tolist() == [False] + [True] * 6
    assert encode_batch(np.array([board.position]), np.array([board.mask]))[0, :, 0, 2].sum() == 0


def test_targets_uniform_over_best_moves() -> None:
    from agents.network.train import targets

    values = np.array(
        [[FULL, -1, 1, 1, 0, -1, -1], [UNSOLVED, 2, UNSOLVED, 2, UNSOLVED, UNSOLVED, FULL], [-1] * 7],
        dtype=np.int8,
    )
    policy, value = targets(values)
    np.testing.assert_allclose(policy[0], [0, 0, 0.5, 0.5, 0, 0, 0])
    np.testing.assert_allclose(policy[1], [0, 0.5, 0, 0.5, 0, 0, 0])
    np.testing.assert_allclose(policy[2], [1 / 7] * 7)
    assert value.tolist() == [2, 2, 0]


def test_value_of_is_win_minus_loss() -> None:
    logits = np.log(np.array([[0.2, 0.3, 0.5], [1.0, 1e-9, 1e-9]]))
    np.testing.assert_allclose(value_of(logits), [0.3, -1.0], atol=1e-6)


def test_depth0_plays_legal_argmax_of_policy() -> None:
    _, _, weights = _random_weights(seed=5)
    board = Board.from_moves("111111")
    logits, _ = forward(weights, encode(board.position, board.mask))
    expected = 1 + int(np.argmax(logits[0, 1:]))
    assert make_agent_from_weights(weights)(_obs(board), CONFIG) == expected


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_search_takes_a_win_and_blocks(depth: int) -> None:
    _, _, weights = _random_weights(seed=6)
    assert best_move(weights, Board.from_moves("112233"), depth) == 3  # X wins in column 4
    assert best_move(weights, Board.from_moves("11223"), depth) == 3  # O blocks column 4


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_search_does_not_play_under_an_opponent_threat(depth: int) -> None:
    _, _, weights = _random_weights(seed=7)
    # X (the opponent) threatens b2; playing b1 would let X win at once.
    board = Board.from_moves("35326173332744")
    assert not board.winning_moves()
    moves = {best_move(w, board, depth) for w in (weights, _random_weights(seed=9)[2])}
    assert 1 not in moves and all(board.can_play(m) for m in moves)


def test_iterative_deepening_within_time_takes_a_win_and_blocks() -> None:
    _, _, weights = _random_weights(seed=6)
    assert best_move(weights, Board.from_moves("112233"), seconds=0.2) == 3
    assert best_move(weights, Board.from_moves("11223"), seconds=0.2) == 3
    assert best_move(weights, Board.from_moves("35326173332744"), depth=3, seconds=0.2) != 1


def test_network_players_play_a_whole_game() -> None:
    from agents.network.agent import Network
    from agents.player import play_game

    _, _, weights = _random_weights(seed=10)
    result = play_game([Network(weights, depth=2), Network(weights, depth=0)])
    assert result.outcome is not None and len(result.moves) >= 7


def test_search_values_the_children_above_the_horizon_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    network_module = importlib.import_module("agents.network.agent")  # the package's ``agent`` is the agent

    _, _, weights = _random_weights(seed=11)
    sizes: list[int] = []
    forward_of = network_module.forward

    def counting(weights, planes):
        sizes.append(len(planes))
        return forward_of(weights, planes)

    monkeypatch.setattr(network_module, "forward", counting)
    best_move(weights, Board.from_moves("4"), depth=2)
    assert sizes == [1] + [7] * 7  # the root's policy, then all 7 grandchildren of each child at once


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        make_agent(depth=-1)
    with pytest.raises(ValueError):
        make_agent(seconds=-1.0)
    with pytest.raises(TypeError):
        make_agent(bogus=1)  # type: ignore[call-arg]


def test_other_configurations_are_played_by_negamax() -> None:
    _, _, weights = _random_weights(seed=8)
    board = Board.from_moves("1122", rows=5, columns=7, inarow=3)  # mark 1 wins at column 3 (index 2)
    config = {**CONFIG, "rows": 5, "inarow": 3, "actTimeout": 0.3}
    assert make_agent_from_weights(weights)(_obs(board), config) == 2


def test_registry_knows_network() -> None:
    from agents.registry import parse_spec

    assert parse_spec("network:depth=2").params == {"depth": 2}


def test_shipped_agent_plays_legal_moves_if_weights_present() -> None:
    from agents import resources

    try:
        resources.read("network.npz")
    except FileNotFoundError:
        pytest.skip("no shipped weights yet")
    from agents.network import agent

    board = Board.from_moves("4444")
    move = agent(_obs(board), CONFIG)
    assert isinstance(move, int) and board.can_play(move)


@pytest.mark.slow
def test_smoke_training_writes_weights_curves_and_resumes(tmp_path) -> None:
    pytest.importorskip("jax")
    from agents.network.data import book_examples
    from agents.network.train import main

    out = tmp_path / "run"
    assert main(["--out", str(out), "--smoke", "--book"]) == 0
    for name in ("network.npz", "curves.png", "history.json", "checkpoint.pkl", "train.log"):
        assert (out / name).is_file()
    history = json.loads((out / "history.json").read_text())
    assert history[-1]["step"] == 40
    # One 200-position shard trained on (the other held out), plus the book's positions with a move.
    assert history[-1]["positions"] == 200 + len(book_examples()[0]["ply"])
    weights = load_weights((out / "network.npz").read_bytes())
    board = Board.from_moves("44")
    assert board.can_play(make_agent_from_weights(weights)(_obs(board), CONFIG))
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


def test_book_examples_decode_the_book() -> None:
    from agents.book import load_book
    from agents.network.data import book_examples

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
    from agents.network.data import ensure_shards

    settings = dict(
        count=2, size=40, seed=3, min_ply=30, early_ply=30, early_fraction=0.0, log=lambda m: None
    )
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
    from agents.network.data import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "data"), option, "0"])
    assert exit_info.value.code == 2
    assert "must be >= 1" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()


def test_train_refuses_missing_init_weights_before_touching_the_run(tmp_path, capsys) -> None:
    from agents.network.train import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "run"), "--smoke", "--init-from", str(tmp_path / "missing.npz")])
    assert exit_info.value.code == 2
    assert "--init-from" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
