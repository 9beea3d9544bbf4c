"""The network agent: numpy forward pass = flax's, input planes, agent behaviour (training: test_training)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from agents.engine.board import Board
from agents.kit.adapter import kaggle_agent
from agents.kit.budget import Budget, move_budget
from agents.network import agent as shipped_agent_module  # noqa: F401  (package imports without jax)
from agents.network.agent import Network, best_move, make_agent
from agents.network.features import encode, encode_batch, legal_mask_batch
from agents.network.numpy_forward import forward, load_weights, value_of


def _obs(board: Board) -> dict:
    return {"board": board.to_kaggle(), "mark": board.mark, "remainingOverageTime": 60}


CONFIG = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}


def test_numpy_forward_equals_flax_on_random_inputs(random_weights) -> None:
    net, params, weights = random_weights()
    rng = np.random.default_rng(1)
    planes = rng.normal(size=(5, 6, 7, 3)).astype(np.float32)
    policy, value = net.apply({"params": params}, planes)
    np_policy, np_value = forward(weights, planes)
    assert np_policy.shape == (5, 7) and np_value.shape == (5, 3)
    np.testing.assert_allclose(np_policy, np.asarray(policy), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np_value, np.asarray(value), rtol=1e-4, atol=1e-4)


def test_weights_round_trip_through_float16_npz(tmp_path, random_weights) -> None:
    _, _, weights = random_weights(seed=3)
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


def test_value_of_is_win_minus_loss() -> None:
    logits = np.log(np.array([[0.2, 0.3, 0.5], [1.0, 1e-9, 1e-9]]))
    np.testing.assert_allclose(value_of(logits), [0.3, -1.0], atol=1e-6)


def test_search_none_plays_legal_argmax_of_policy(random_weights) -> None:
    _, _, weights = random_weights(seed=5)
    board = Board.from_moves("111111")
    logits, _ = forward(weights, encode(board.position, board.mask))
    expected = 1 + int(np.argmax(logits[0, 1:]))
    assert kaggle_agent(Network.of_weights(weights, search="none"))(_obs(board), CONFIG) == expected


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_search_takes_a_win_and_blocks(depth: int, random_weights) -> None:
    _, _, weights = random_weights(seed=6)
    assert best_move(weights, Board.from_moves("112233"), depth) == 3  # X wins in column 4
    assert best_move(weights, Board.from_moves("11223"), depth) == 3  # O blocks column 4


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_search_does_not_play_under_an_opponent_threat(depth: int, random_weights) -> None:
    _, _, weights = random_weights(seed=7)
    # X (the opponent) threatens b2; playing b1 would let X win at once.
    board = Board.from_moves("35326173332744")
    assert not board.winning_moves()
    moves = {best_move(w, board, depth) for w in (weights, random_weights(seed=9)[2])}
    assert 1 not in moves and all(board.can_play(m) for m in moves)


def test_iterative_deepening_within_time_takes_a_win_and_blocks(random_weights) -> None:
    _, _, weights = random_weights(seed=6)
    assert best_move(weights, Board.from_moves("112233"), seconds=0.2) == 3
    assert best_move(weights, Board.from_moves("11223"), seconds=0.2) == 3
    assert best_move(weights, Board.from_moves("35326173332744"), depth=3, seconds=0.2) != 1


def test_network_players_play_a_whole_game(random_weights) -> None:
    from agents.kit.clock import Clock
    from agents.kit.player import play_game

    _, _, weights = random_weights(seed=10)
    players = [
        Network.of_weights(weights, search="alphabeta", depth=2),
        Network.of_weights(weights, search="none"),
    ]
    result = play_game(players)
    assert result.outcome is not None and len(result.moves) >= 7
    quick = Clock(act_timeout=0.3, overage=0.0)  # the solver's share of a move: 0.02 s
    result = play_game(
        [Network.of_weights(weights, visits=40), Network.of_weights(weights, visits=40, exact=False)],
        clock=quick,
    )
    assert result.outcome is not None and len(result.moves) >= 7


def test_search_values_the_children_above_the_horizon_in_one_batch(
    monkeypatch: pytest.MonkeyPatch, random_weights
) -> None:
    network_module = importlib.import_module("agents.network.agent")  # the package's ``agent`` is the agent

    _, _, weights = random_weights(seed=11)
    sizes: list[int] = []
    forward_of = network_module.forward

    def counting(weights, planes):
        sizes.append(len(planes))
        return forward_of(weights, planes)

    monkeypatch.setattr(network_module, "forward", counting)
    best_move(weights, Board.from_moves("4"), depth=2)
    assert sizes == [1] + [7] * 7  # the root's policy, then all 7 grandchildren of each child at once


@pytest.mark.parametrize(
    "params",
    [
        {"search": "bogus"},
        {"search": "alphabeta", "depth": -1},
        {"depth": 2},  # depth belongs to alpha-beta
        {"search": "none", "visits": 10},  # visits belong to PUCT
        {"visits": -1},
        {"seconds": -1.0},
        {"c": -1.0},
    ],
)
def test_bad_parameters(params: dict) -> None:
    with pytest.raises(ValueError):
        make_agent(**params)


def test_unknown_parameters() -> None:
    with pytest.raises(TypeError):
        make_agent(bogus=1)  # type: ignore[call-arg]


def test_search_none_is_the_policy_alone(random_weights) -> None:
    from agents.kit.clock import Clock
    from agents.network.agent import policy_logits

    _, _, weights = random_weights(seed=12)
    player = Network.of_weights(weights, search="none")
    for moves in ("", "4", "4453", "3344551"):
        board = Board.from_moves(moves)
        move = player.play(board, Clock())
        assert move.column == int(np.argmax(policy_logits(weights, board))) and move.stage == "policy"


def test_puct_stages(random_weights) -> None:
    from agents.kit.clock import Clock

    _, _, weights = random_weights(seed=13)
    player = Network.of_weights(weights, visits=30)
    move = player.play(Board.from_moves("112233"), Clock())
    assert move.column == 3 and move.stage == "win"
    move = player.play(Board.from_moves("11223"), Clock())
    assert move.column == 3 and move.stage == "block"
    move = player.play(Board(), Clock())  # the solved game's move (the databases, else the book)
    assert move.column == 3 and move.stage in ("exact", "book")
    without_book = Network.of_weights(weights, visits=30, book=False)
    assert without_book.play(Board(), Clock()).stage == "puct"
    move = without_book.play(Board.from_moves("4453"), Clock())  # 38 empty cells: too early for the solver
    assert move.stage == "puct" and move.visits == 30
    late = Board.from_moves("52753311433677442422121")  # from Pons' L2_R1: the solver decides in time
    assert player.play(late, Clock()).stage == "exact"
    Network.of_weights(weights, visits=30, exact=False).play(late, Clock())


def test_other_configurations_are_played_by_negamax(random_weights) -> None:
    _, _, weights = random_weights(seed=8)
    board = Board.from_moves("1122", rows=5, columns=7, inarow=3)  # mark 1 wins at column 3 (index 2)
    config = {**CONFIG, "rows": 5, "inarow": 3, "actTimeout": 0.3}
    agent = kaggle_agent(Network.of_weights(weights))
    assert agent(_obs(board), config) == 2
    assert agent.last_move.stage == "win"  # type: ignore[attr-defined]  # the negamax player's record


def test_registry_knows_network() -> None:
    from agents.registry import parse_spec

    assert parse_spec("network:search=alphabeta,depth=2").params == {"search": "alphabeta", "depth": 2}
    params = parse_spec("network:visits=100,c=1.5,exact=false").params
    assert params == {"visits": 100, "c": 1.5, "exact": False}


def test_shipped_agent_plays_legal_moves_if_weights_present() -> None:
    from agents import resources

    try:
        resources.read("network.npz")
    except FileNotFoundError:
        pytest.skip("no shipped weights yet")
    board = Board.from_moves("4444")
    move = make_agent(visits=50)(_obs(board), CONFIG)
    assert isinstance(move, int) and board.can_play(move)


def test_puct_gets_the_whole_move_after_a_failed_solve(
    monkeypatch: pytest.MonkeyPatch, random_weights
) -> None:
    from agents.kit.clock import Clock

    network_agent = importlib.import_module("agents.network.agent")
    seen = []

    def spy(*args: object, **kwargs: object) -> Budget:
        budget = move_budget(*args, **kwargs)
        seen.append(budget)
        return budget

    monkeypatch.setattr(network_agent, "move_budget", spy)
    # the first move's compile (or load) of the solver is charged to the bank before the budget is
    # made; this test is about the budget alone, whichever test of this worker compiled it first
    monkeypatch.setattr(network_agent.SolvedPositions, "prepare", lambda self: 0.0)
    _, _, weights = random_weights(seed=13)
    network_agent.Network.of_weights(weights, visits=30).play(
        Board.from_moves("4453"), Clock(act_timeout=2.0, overage=60.0)
    )
    base = 2.0 - network_agent.PUCT_MARGIN
    assert seen and seen[0].fallback == pytest.approx(base)
    assert seen[0].solve + seen[0].fallback == pytest.approx(base + 0.3 * (60.0 - 3.0))  # the bank share
