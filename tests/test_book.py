"""The opening book: file format, mirror folding, the packaged data (agents.engine.book) and its generation
(training.book: the move chooser, building from a log)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.engine.board import Board, geometry
from agents.engine.book import NO_MOVE, Book, book_move, canonical, load_book, mirror
from agents.engine.solver import Solver
from training.book import _Evaluator, build, to_bytes

GEO = geometry(6, 7, 4)


def test_mirror_is_an_involution_and_flips_columns() -> None:
    board = Board.from_moves("1123")
    flipped = Board.from_moves("7765")
    assert mirror(board.position, GEO) == flipped.position
    assert mirror(board.mask, GEO) == flipped.mask
    assert mirror(mirror(board.mask, GEO), GEO) == board.mask
    assert canonical(board.position, board.mask, GEO)[0] == canonical(flipped.position, flipped.mask, GEO)[0]


def _tiny_book() -> Book:
    entries = {"": (3, 1), "12": (5, 0), "4": (NO_MOVE, -1)}
    keys, values = [], []
    for moves, (column, value) in entries.items():
        board = Board.from_moves(moves)
        key, mirrored = canonical(board.position, board.mask, GEO)
        if mirrored and column != NO_MOVE:
            column = 6 - column
        keys.append(key)
        values.append(((value + 1) << 4) | column)
    order = np.argsort(keys)
    return Book(
        np.array(keys, dtype=np.uint64)[order], np.array(values, dtype=np.uint8)[order], depth=(2, -1)
    )


def test_round_trip_and_lookup_with_mirror() -> None:
    book = Book.from_bytes(to_bytes(_tiny_book()))
    assert len(book) == 3 and book.depth == (2, -1)
    empty = Board()
    assert book.lookup(empty.position, empty.mask) == (3, 1)
    b = Board.from_moves("12")
    assert book.lookup(b.position, b.mask) == (5, 0)
    m = Board.from_moves("76")  # the mirror image: the move is mirrored too
    assert book.lookup(m.position, m.mask) == (1, 0)
    lost = Board.from_moves("4")
    assert book.lookup(lost.position, lost.mask) == (None, -1)
    other = Board.from_moves("1")
    assert book.lookup(other.position, other.mask) is None


def test_corrupt_file_is_refused() -> None:
    with pytest.raises(ValueError):
        Book.from_bytes(b"not a book")


def test_chooser_keeps_the_best_outcome_class() -> None:
    evaluator = _Evaluator(prefer_fast=False)
    solver = Solver()
    for moves in ["2252576253462244111563365343671351441", "3642756176227637211322113551", "44444"]:
        if len(moves) < 20:
            continue  # keep the test fast: only late positions with the pure-Python solver
        column, value, _ = evaluator.choose(moves)
        scores = solver.analyse(moves)
        best = max(s for s in scores if s is not None)
        assert value == (best > 0) - (best < 0)
        if column != NO_MOVE:
            chosen = scores[column]
            assert chosen is not None and (chosen > 0) - (chosen < 0) == value


def test_build_from_a_log(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("- 3 1 0 0\n41 3 1 12 0.1\n")
    book = build(log, tmp_path / "book.bin")
    assert len(book) == 3  # the two lines and the known lost position after the centre opening
    loaded = Book.from_bytes((tmp_path / "book.bin").read_bytes())
    b = Board.from_moves("41")
    assert loaded.lookup(b.position, b.mask) == (3, 1)


def test_packaged_book_is_small_and_knows_the_empty_board() -> None:
    path = Path(__file__).parent.parent / "agents" / "data" / "book-6x7.bin"
    if not path.exists():
        pytest.skip("no packaged book yet")
    assert path.stat().st_size <= 2_000_000
    book = load_book()  # its load time is measured by benchmarks, not asserted here
    assert book is not None
    empty = Board()
    assert book.lookup(empty.position, empty.mask) == (3, 1)


def test_book_move_only_where_the_book_holds_a_move() -> None:
    if load_book() is None:
        pytest.skip("no packaged book yet")
    assert book_move(Board()) == 3
    assert book_move(Board(rows=5, columns=7, inarow=4)) is None  # another board
    assert book_move(Board.from_moves("4453")) is None  # a position the book does not hold
