"""The exact data set (training.exact): labels from the databases, balanced games, resumable shards."""

from __future__ import annotations

import numpy as np
import pytest

from agents.engine.board import Board
from agents.engine.book import canonical
from agents.engine.solver import Solver
from training.network.data import FULL, UNSOLVED

pytest.importorskip("numba")

from training.exact import NO_SCORE, ensure_exact_shards, generate_shard, label_position  # noqa: E402


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def test_the_empty_board_gets_its_known_scores(solver: Solver) -> None:
    # Pons: from the empty board, column 4 wins with the 41st stone (score 1), 3 and 5 draw.
    values, scores = label_position(Board(6, 7), solver)
    assert scores == [-2, -1, 0, 1, 0, -1, -2]
    assert values == [-1, -1, 0, 1, 0, -1, -1]


def test_a_win_at_once_is_labelled_and_the_other_moves_are_not_solved(solver: Solver) -> None:
    board = Board.from_moves([0, 1, 0, 1, 0, 6], rows=6, columns=7)  # mark 1 wins in column 0
    values, scores = label_position(board, solver)
    assert values[0] == 2 and scores[0] == (43 - board.ply) // 2
    assert all(v == UNSOLVED for v in values[1:]) and all(s == NO_SCORE for s in scores[1:])


def test_past_the_databases_only_the_outcome_class_is_known(solver: Solver) -> None:
    board = Board.from_moves([1, 4, 4, 1, 2, 4, 3, 5, 4, 0, 4, 0, 6], rows=6, columns=7)
    values, scores = label_position(board, solver)
    assert board.ply == 13 and scores == [NO_SCORE] * 7
    assert values == [(s > 0) - (s < 0) for s in solver.analyse_bits(board.position, board.mask, 13)]


def test_a_shard_holds_unique_balanced_play_positions_in_its_plies(tmp_path, solver: Solver) -> None:
    path = tmp_path / "shard.npz"
    generate_shard(path, 120, seed=4, plies=(0, 11), log=lambda message: None)
    data = np.load(path)
    assert len(data["ply"]) == 120 and data["ply"].min() >= 0 and data["ply"].max() <= 11
    keys = {
        canonical(int(p), int(m), Board(6, 7).geo)[0]
        for p, m in zip(data["position"], data["mask"], strict=True)
    }
    assert len(keys) == 120
    for i in range(0, 120, 17):
        found = solver.analyse_bits(int(data["position"][i]), int(data["mask"][i]), int(data["ply"][i]))
        values, scores = data["values"][i], data["scores"][i]
        for c in range(7):
            if found[c] is None:
                assert values[c] == FULL
            elif values[c] != UNSOLVED:
                assert scores[c] == found[c] and min(values[c], 1) == (found[c] > 0) - (found[c] < 0)


def test_shards_resume_without_rewriting(tmp_path) -> None:
    first = ensure_exact_shards(tmp_path, "book", 2, seed=1, size=30, progress=False)
    stamps = [p.stat().st_mtime_ns for p in first]
    first[1].unlink()
    again = ensure_exact_shards(tmp_path, "book", 2, seed=1, size=30, progress=False)
    assert again == first and first[0].stat().st_mtime_ns == stamps[0] and first[1].exists()
    assert sorted(p.name for p in (tmp_path / "book").iterdir()) == ["shard-0000.npz", "shard-0001.npz"]
