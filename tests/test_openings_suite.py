"""The shipped suite of balanced 6x7 openings, ``tournament/data/openings-6x7.txt``.

Made by ``python -m scripts.make_openings`` (see its docstring). Lines are ``MOVES SCORE``: MOVES in
Pons' notation (1-based column digits, mark 1 first, empty 6x7 board), SCORE the exact score of the
position from the side to move in Pons' convention (http://blog.gamesolver.org/solving-connect-four/).
The checks live in :func:`problems` so that one test can show they catch bad lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.engine.board import Board, BoardError, geometry
from agents.engine.book import mirror
from agents.engine.solver import Solver
from tournament.openings import OpeningError, parse_openings, resolve

GEO = geometry(6, 7, 4)
SUITE = Path(__file__).resolve().parents[1] / "tournament" / "data" / "openings-6x7.txt"
MARGIN = 2
LENGTHS = (6, 7, 8)
COUNT_RANGE = (200, 500)
# Stored scores checked with the pure-Python solver's null-window tests: "exact" proves score >= s and
# score < s + 1 (2.4 s); "at least" / "at most" prove one side (0.3-0.5 s). These are the cheapest proofs
# among the 350 openings (measured with the numba solver): a full proof of any other costs 650,000 nodes
# or more, 2.5 s or more in pure Python.
SOLVER_SAMPLE = (("1636656", "exact"), ("12322434", "at least"), ("13232554", "at most"))


def parse(text: str) -> list[tuple[str, int]]:
    """``(moves, score)`` of each non-comment, non-blank line; ValueError for a malformed line."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 2 or not fields[0].isdigit() or not fields[1].lstrip("+-").isdigit():
            raise ValueError(f"line {number}: {line!r} is not 'MOVES SCORE'")
        entries.append((fields[0], int(fields[1])))
    return entries


def problems(entries: list[tuple[str, int]]) -> list[str]:
    """What is wrong with a list of ``(moves, score)`` openings (empty when nothing is)."""
    found = []
    seen: dict[int, str] = {}
    for moves, score in entries:
        try:
            board = Board.from_moves(moves)
        except BoardError as error:
            found.append(f"{moves}: illegal ({error})")
            continue
        if board.winner() is not None:
            found.append(f"{moves}: four in a row on the board")
        elif board.winning_moves():
            found.append(f"{moves}: the side to move has a winning move")
        if len(moves) not in LENGTHS:
            found.append(f"{moves}: length {len(moves)} not in {LENGTHS}")
        if abs(score) > MARGIN:
            found.append(f"{moves}: score {score} outside the margin {MARGIN}")
        key = min(board.key(), mirror(board.key(), GEO))
        if key in seen:
            found.append(f"{moves}: same position as {seen[key]} or its mirror image")
        seen.setdefault(key, moves)
    order = [moves for moves, _ in entries]
    if order != sorted(order, key=lambda moves: (len(moves), moves)):
        found.append("lines are not sorted by length, then move string")
    return found


@pytest.fixture(scope="module")
def text() -> str:
    return SUITE.read_text()


@pytest.fixture(scope="module")
def entries(text: str) -> list[tuple[str, int]]:
    return parse(text)


def test_the_file_parses_with_header_and_count_in_range(text: str, entries: list[tuple[str, int]]) -> None:
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert header and text.startswith("#")
    joined = "\n".join(header)
    for needle in ("python -m scripts.make_openings", f"|score| <= {MARGIN}", "2026-11-22", "gamesolver.org"):
        assert needle in joined
    assert COUNT_RANGE[0] <= len(entries) <= COUNT_RANGE[1]
    assert {len(moves) for moves, _ in entries} == set(LENGTHS)


def test_the_tournament_reader_takes_every_line(text: str, entries: list[tuple[str, int]]) -> None:
    openings = parse_openings(text, GEO, origin=str(SUITE))
    assert openings == tuple(tuple(int(c) - 1 for c in moves) for moves, _ in entries)


def test_drawn_is_the_suite_openings_scored_zero(entries: list[tuple[str, int]]) -> None:
    description, drawn = resolve("drawn", GEO, pairs=4, seed=1)
    assert drawn == tuple(tuple(int(c) - 1 for c in moves) for moves, score in entries if score == 0)
    assert "drawn" in description and 20 <= len(drawn) < len(entries)
    with pytest.raises(OpeningError, match="6x7"):
        resolve("drawn", geometry(7, 8, 4), pairs=4, seed=1)


def test_every_opening_is_legal_open_balanced_unique_and_sorted(entries: list[tuple[str, int]]) -> None:
    assert problems(entries) == []


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (("8", 0), "illegal"),
        (("1111111", 0), "illegal"),  # column 1 full
        (("1212121", 0), "four in a row"),  # mark 1 made four in column 1
        (("121212", 0), "winning move"),  # mark 1 to move with three stacked
        (("44444", 0), "length"),
        (("44444422", 3), "outside the margin"),
        (("44444455", 0), "mirror"),  # the mirror image of 44444433
        (("44443344", 0), "same position"),  # 44444433 in another move order
        (("444433", 0), "sorted"),  # shorter, so it belongs first
    ],
)
def test_the_checks_catch_bad_lines(bad: tuple[str, int], message: str) -> None:
    good = [("4444443", 0), ("44444433", 0)]
    assert problems(good) == []
    assert any(message in problem for problem in problems([*good, bad]))


def test_a_malformed_line_is_refused() -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse("# header\n4453\n")
    with pytest.raises(ValueError, match="line 1"):
        parse("4453 zero\n")


@pytest.mark.parametrize(("moves", "check"), SOLVER_SAMPLE)
def test_stored_scores_agree_with_the_pure_python_solver(
    entries: list[tuple[str, int]], moves: str, check: str
) -> None:
    stored = dict(entries)
    assert moves in stored
    score = stored[moves]
    board = Board.from_moves(moves)
    solver = Solver()
    if check in ("exact", "at least"):
        assert solver.at_least(board.position, board.mask, board.ply, score)
    if check in ("exact", "at most"):
        assert not solver.at_least(board.position, board.mask, board.ply, score + 1)
