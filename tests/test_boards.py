"""connectx.Board and connectx.solve (connectx.boards, connectx.board_html): the drawing, the scores
against ``connectx solve`` on Pons' positions, solve's result, bad positions. The board widget's
tests are in tests/test_board_widget.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agents.engine.board import ColumnFullError, GameOverError, NotAColumnError
from connectx.boards import Board, solve
from connectx.cli import main

PONS = Path(__file__).parent / "data" / "pons"


class _Cells(HTMLParser):
    """The SVG's cells: ``(row, column) -> class`` (p1, p2 or empty), and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[int, int], str] = {}
        self.rings: dict[tuple[int, int], str] = {}
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        if tag == "circle":
            cell = (int(found["data-row"] or ""), int(found["data-column"] or ""))
            self.cells[cell] = found["class"] or ""
            self.rings[cell] = found.get("stroke") or ""


def _cells(board: Board) -> _Cells:
    parser = _Cells()
    parser.feed(board._repr_html_())
    return parser


def _pons(name: str, count: int) -> list[tuple[str, int]]:
    lines = (PONS / name).read_text().splitlines()[:count]
    return [(moves, int(score)) for moves, score in (line.split() for line in lines)]


# --- drawing --------------------------------------------------------------------------------


def test_the_stones_are_drawn_in_their_cells_row_0_on_top_as_kaggle_counts_them():
    board = Board("4453")
    cells = _cells(board).cells
    assert len(cells) == 42
    stones = {cell: kind for cell, kind in cells.items() if kind != "empty"}
    # Red's 4 and 5 on the bottom row (row 5), Yellow's 4 above Red's, Yellow's 3 on the bottom row.
    assert stones == {(5, 3): "p1", (4, 3): "p2", (5, 4): "p1", (5, 2): "p2"}
    kaggle = board.kaggle
    assert all(cells[r, c] == (f"p{kaggle[r * 7 + c]}" if kaggle[r * 7 + c] else "empty") for r, c in cells)


def test_another_board_is_drawn_in_its_own_shape():
    board = Board("1223", rows=3, columns=5, inarow=3)
    cells = _cells(board).cells
    assert len(cells) == 15 and max(cells) == (2, 4)
    assert {cell for cell, kind in cells.items() if kind == "p1"} == {(2, 0), (1, 1)}
    assert {cell for cell, kind in cells.items() if kind == "p2"} == {(2, 1), (2, 2)}


def test_the_last_stone_and_a_winning_line_are_marked():
    drawn = _cells(Board("4455667"))
    assert {cell for cell, ring in drawn.rings.items() if ring == "#000"} == {(5, 3), (5, 4), (5, 5), (5, 6)}
    last = _cells(Board("4453"))
    assert {cell for cell, ring in last.rings.items() if ring} == {(5, 2)}


def test_the_html_is_self_contained_plain_html():
    html = Board("4453", scores=True)._repr_html_()
    drawn = _cells(Board("4453", scores=True))
    assert not drawn.tags & {"script", "style", "link", "img", "iframe"}
    assert re.findall(r"https?://[^\"']*", html) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only
    assert "4453 · Red to move" in html


def test_the_scores_are_drawn_under_the_columns_with_their_words():
    html = Board("4453", scores=True)._repr_html_()
    assert re.findall(r'class="score"[^>]*data-score="(-?\d+)"', html) == [
        "-5",
        "-5",
        "-2",
        "-3",
        "-4",
        "-2",
        "-2",
    ]
    assert "loses in 18" in html and "Yellow wins with its 20th stone" in html
    assert "Perfect play: Red loses whatever it plays; columns 3, 6 or 7 hold out longest" in html
    assert "data-score" not in Board("4453")._repr_html_()
    assert Board("4453").scored() == Board("4453", scores=True)
    assert Board("4453").scored().show_scores


def test_a_full_column_has_no_score_chip():
    html = Board("444444", scores=True)._repr_html_()
    assert html.count('class="score full"') == 1
    assert re.findall(r'data-score="(-?\d+)"', html) == ["-1", "0", "1", "1", "0", "-1"]


def test_the_repr_is_a_text_board_for_a_terminal():
    assert repr(Board("4453")).splitlines() == [
        "Board('4453')",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . O . . .",
        ". . O X X . .",
        "1 2 3 4 5 6 7",
    ]
    scored = repr(Board("4453", scores=True)).splitlines()
    assert scored[0] == "Board('4453', scores=True)"
    assert scored[-2:] == [
        "scores: -5 -5 -2 -3 -4 -2 -2",
        "Red loses whatever it plays; columns 3, 6 or 7 hold out longest (Yellow wins with its 20th stone).",
    ]
    assert (
        repr(Board("12", rows=3, columns=4, inarow=3)).splitlines()[0]
        == "Board('12', rows=3, columns=4, inarow=3)"
    )


def test_a_finished_game_draws_its_end_and_has_no_scores():
    board = Board("4455667", scores=True)
    assert board.winner == 1 and board.is_game_over() and board.legal_moves() == []
    assert "4455667 · Red wins with 4 in a row" in board._repr_html_()
    with pytest.raises(GameOverError, match="invalid position '4455667': the position is already won"):
        board.scores()


# --- perfect play ---------------------------------------------------------------------------


def test_the_scores_are_those_of_connectx_solve_on_pons_positions(capsys):
    for moves, score in _pons("Test_L2_R1.head", 4) + _pons("Test_L1_R1.head", 2):
        solved = Board(moves).scores()
        assert solved.score == score, moves
        assert main(["solve", "-a", moves]) == 0
        printed = capsys.readouterr().out.split("  ")[0].split()[1:]
        assert printed == ["-" if s is None else str(s) for s in solved.scores or ()], moves
        assert solved.best == tuple(c + 1 for c, s in enumerate(solved.scores or ()) if s == score)


def test_solve_gives_the_value_the_best_columns_and_the_words():
    solved = solve("4453")
    assert (solved.position, solved.ply, solved.cells, solved.score) == ("4453", 4, 42, -2)
    assert solved.scores == (-5, -5, -2, -3, -4, -2, -2) and solved.best == (3, 6, 7)
    assert solved.words == "Red (mark 1) to move loses: Yellow wins with its 20th stone"
    assert solved.summary == (
        "Red loses whatever it plays; columns 3, 6 or 7 hold out longest (Yellow wins with its 20th stone)."
    )
    assert solved.columns[2] == (
        "loses in 18",
        "Red loses: Yellow wins with its 20th stone, its 18th move from now",
    )
    assert solved.nodes > 0 and solved.seconds >= 0
    alone = solve("4453", analyse=False)
    assert alone.score == -2 and alone.scores is None and alone.best == () and alone.summary is None
    weak = solve("4453", weak=True)
    assert weak.score == -1 and weak.words == "Red (mark 1) to move loses" and weak.columns == ()


def test_solve_works_on_another_board():
    solved = solve("", rows=3, columns=4, inarow=3)
    assert solved.cells == 12 and len(solved.scores or ()) == 4


@pytest.mark.parametrize(
    "position,error,message",
    [
        ("449", NotAColumnError, "invalid position '449': move 3 '9' is not a column digit 1-7"),
        ("44x", NotAColumnError, "invalid position '44x': move 3 'x' is not a column digit 1-7"),
        ("44444444", ColumnFullError, "invalid position '44444444': move 7: column 4 is full"),
        ("445566778", GameOverError, "invalid position '445566778': move 8 '7' comes after the game was won"),
    ],
)
def test_a_bad_position_is_one_sentence_naming_the_move(position, error, message):
    for make in (Board, solve):
        with pytest.raises(error) as raised:
            make(position)
        assert str(raised.value) == message and isinstance(raised.value, ValueError)


def test_solve_refuses_a_position_already_over():
    with pytest.raises(ValueError, match="invalid position '4455667': the position is already won"):
        solve("4455667")


def test_other_bad_input():
    with pytest.raises(TypeError, match="a position is a str of column digits"):
        Board(4453)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="perfect-play scores are not available on this board"):
        Board("12", rows=4, columns=5, scores=True)
    assert Board("10 3", rows=4, columns=12).position == "10 3"
