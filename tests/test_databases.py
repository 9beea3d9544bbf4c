"""The solved game's opening databases: keys, scores against the solver, packing, the fallback."""

from __future__ import annotations

import numpy as np
import pytest

from agents.engine.board import Board
from agents.engine.solver import Solver, databases
from agents.engine.solver.databases import Database, huffman_code, load_database, unpack_wdl
from submissions.databases import pack_wdl

# Two 12-stone positions of bitbully-databases' documentation (Kaggle layout, row 0 the top), with the
# values it gives for them: mark 1 to move wins in 29 plies (value 71) / loses in 12 plies (-88).
WIN_IN_29 = [
    [0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 1, 0, 0, 0],
    [0, 1, 0, 2, 0, 0, 0],
    [0, 2, 0, 1, 0, 2, 0],
    [0, 1, 0, 2, 0, 1, 0],
    [0, 2, 0, 1, 0, 2, 0],
]
LOSS_IN_12 = [
    [0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0],
    [0, 0, 1, 1, 0, 0, 0],
    [0, 0, 2, 2, 0, 0, 0],
    [0, 1, 2, 1, 0, 0, 0],
    [0, 1, 1, 2, 0, 2, 2],
]
# 12-stone positions that the solver alone settles in well under a second, with Pons' scores.
QUICK = ["116514624615", "343655614777", "657257524147", "573664163221", "231557415525"]


def _board(rows: list[list[int]]) -> Board:
    return Board.from_kaggle([cell for row in rows for cell in row], 1, rows=6, columns=7, inarow=4)


def _installed() -> Database:
    pytest.importorskip("bitbully_databases")
    book = load_database()
    assert book is not None and book.exact
    return book


def test_huffman_code_of_the_empty_board_and_of_one_stone() -> None:
    # seven column ends and the final 0: all zero bits; a first-player stone in column 1 is "10".
    assert huffman_code(0, 0) == 0
    board = Board.from_moves("1")
    first = board.position ^ board.mask  # mark 2 is to move
    assert huffman_code(first, board.mask) == 0b10 << 8
    assert huffman_code(first, board.mask, mirrored=True) == 0b10 << 2


def test_a_32_bit_code_is_signed_as_in_the_files() -> None:
    board = Board.from_moves(QUICK[0])  # starts with a first-player stone: the top bit is 1
    assert huffman_code(board.position, board.mask) < 0


def test_scores_are_pons_scores_of_the_documented_positions() -> None:
    book = _installed()
    win = _board(WIN_IN_29)
    assert book.score(win.position, win.mask) == 1  # mark 1 wins with its 21st stone: 22 - 21
    loss = _board(LOSS_IN_12)
    assert book.score(loss.position, loss.mask) == -10  # mark 2 wins with its 12th stone


def test_scores_match_the_solver_without_the_databases() -> None:
    book = _installed()
    solver = Solver(databases=False)
    for moves in QUICK:
        board = Board.from_moves(moves)
        assert book.score(board.position, board.mask) == solver.solve(moves).score, moves


def test_a_mirror_image_has_the_same_score() -> None:
    book = _installed()
    for moves in QUICK:
        board = Board.from_moves(moves)
        mirror = Board.from_moves("".join(str(8 - int(c)) for c in moves))
        assert book.score(mirror.position, mirror.mask) == book.score(board.position, board.mask)


def test_the_solver_searches_down_to_the_databases_from_the_empty_board() -> None:
    _installed()
    solver = Solver()
    assert solver.analyse("") == [-2, -1, 0, 1, 0, -1, -2]


def _small_book() -> Database:
    boards = [Board.from_moves(m) for m in QUICK]
    codes = np.array(sorted(huffman_code(b.position, b.mask) for b in boards), dtype=np.int32)
    return Database(codes, np.array([3, 0, -2, 0, -7], dtype=np.int8), exact=True, absent=None)


def test_packing_keeps_draws_and_losses_and_drops_wins() -> None:
    book = _small_book()
    packed = unpack_wdl(pack_wdl(book))
    assert not packed.exact and packed.absent == 1
    keep = book.scores <= 0
    assert packed.codes.tolist() == book.codes[keep].tolist()
    assert packed.scores.tolist() == [0, -1, 0, -1]
    for code, score in zip(book.codes.tolist(), np.sign(book.scores).tolist(), strict=True):
        i = int(np.searchsorted(packed.codes, np.int32(code)))
        found = i < len(packed) and packed.codes[i] == code
        assert (int(packed.scores[i]) if found else packed.absent) == score


def test_unpacking_rejects_other_bytes() -> None:
    with pytest.raises(ValueError, match="magic"):
        unpack_wdl(b"XXXX" + bytes(20))
    with pytest.raises(ValueError, match="too short"):
        unpack_wdl(b"C4")


def test_a_packed_win_draw_loss_book_gives_the_signs_and_refuses_exact_scores_before_it() -> None:
    solver = Solver(databases=unpack_wdl(pack_wdl(_installed(), preset=0)))  # any preset unpacks alike
    assert not solver.exact_from(12) and solver.exact_from(13)
    for moves, score in [("2233", 18), ("44444", -1), ("4453", -2), ("3216462", 3), ("3", 0)]:
        assert solver.solve(moves, weak=True).score == (score > 0) - (score < 0), moves
    with pytest.raises(ValueError, match="distance database"):
        solver.solve("4453")
    with pytest.raises(ValueError, match="win, draw or loss"):
        solver.at_least(0, 0, 0, 2)


def test_without_the_databases_the_solver_says_so_once_and_still_solves(monkeypatch, capsys) -> None:
    monkeypatch.setattr(databases, "_loaded", [])
    monkeypatch.setitem(__import__("sys").modules, "bitbully_databases", None)  # import fails
    assert load_database() is None
    assert load_database() is None
    err = capsys.readouterr().err
    assert err.count("opening databases are not installed") == 1
    solver = Solver()
    assert solver.database is None and solver.solve("116514624615").score == -10
