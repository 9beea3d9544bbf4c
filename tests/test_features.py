"""Board features and planes of the learned evaluations (agents.features) and the training loop."""

import random
import time

import numpy as np
import pytest

from agents.engine.board import Board, geometry
from agents.features import FEATURES, features, planes
from agents.kit.record import MoveRecord
from training.selfplay import play


def named(moves: str, rows: int = 6, columns: int = 7, inarow: int = 4) -> dict[str, float]:
    board = (
        Board.from_moves(moves, rows=rows, columns=columns, inarow=inarow)
        if moves
        else Board(rows, columns, inarow)
    )
    return dict(zip(FEATURES, features(board.position, board.mask, board.geo).tolist(), strict=True))


def test_empty_board_has_nothing() -> None:
    assert set(named("").values()) == {0.0}


def test_open_three_is_a_playable_threat_of_the_side_that_made_it() -> None:
    f = named("44556")  # mark 1 holds 4, 5, 6 on the bottom row; mark 2 to move
    assert f["open_high_theirs"] == 2 and f["playable_theirs"] == 2 and f["threats_theirs"] == 2
    assert f["open_high_mine"] == 0 and f["playable_mine"] == 0


def test_features_are_from_the_side_to_move() -> None:
    a, b = named("4455"), named("44556")
    assert b["open_low_theirs"] != a["open_low_theirs"] or b["open_high_theirs"] != a["open_high_theirs"]
    assert a["centre_mine"] == a["centre_theirs"] == 1.75


def test_mirror_images_have_equal_features() -> None:
    assert named("1234") == named("7654")


def test_any_board() -> None:
    assert len(named("23", rows=4, columns=5, inarow=3)) == len(FEATURES)
    assert named("1", rows=3, columns=3, inarow=2)["playable_mine"] >= 0


def test_planes_layout() -> None:
    board = Board.from_moves("44556")
    cells = planes(board.position, board.mask, board.geo).reshape(2, 6, 7)
    assert cells[1, 5].tolist() == [0, 0, 0, 1, 1, 1, 0]  # mark 1's stones, bottom row (row 5)
    assert cells[0, 4].tolist() == [0, 0, 0, 1, 1, 0, 0]  # mark 2's (to move) on the row above
    assert cells.sum() == 5


class Random:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def play(self, board: Board, clock: object) -> MoveRecord:
        return MoveRecord.since(time.perf_counter(), board, "random", self.rng.choice(board.legal_moves()))


def test_selfplay_trajectory_matches_the_game() -> None:
    geo = geometry(6, 7, 4)
    game = play([Random(1), Random(2)], geo, opening=(3, 3))
    board = Board.from_moves([3, 3, *game.moves])
    assert (game.positions[-1], game.masks[-1], game.plies[-1]) == (board.position, board.mask, board.ply)
    assert game.first_ply == 2 and game.mover(0) == 1 and game.plies[0] == 3
    assert game.winner == (board.winner() or 0)
    assert game.result_for(1) == -game.result_for(2)
    with pytest.raises(ValueError):
        play([Random(1), Random(2)], geo, opening=(9,))


def test_features_dtype() -> None:
    board = Board.from_moves("4")
    assert features(board.position, board.mask, board.geo).dtype == np.float64


def test_weights_file_round_trip(tmp_path) -> None:
    from agents import weights

    path = tmp_path / "w.npz"
    weights.save(path, {"w": np.arange(3.0)}, geometry(5, 6, 4))
    arrays = weights.load(str(path), shipped=lambda: b"")
    assert arrays["w"].tolist() == [0.0, 1.0, 2.0]
    assert weights.board_of(arrays) == geometry(5, 6, 4)
    assert weights.load(None, shipped=path.read_bytes)["w"].shape == (3,)
    with pytest.raises(FileNotFoundError):
        weights.load(str(tmp_path / "missing.npz"), shipped=lambda: b"")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a weights file"):
        weights.load(str(tmp_path / "bad.npz"), shipped=lambda: b"")
