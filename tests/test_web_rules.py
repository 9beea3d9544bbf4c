"""The board page's rules (web/static/rules.js, run under node) against the Python board
(agents.engine.board) on the same positions: the mark to move, the legal columns, where a stone
lands, the cells, the outcome with its winning line, and the notation. Skipped where node is missing."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from agents.engine.board import Board
from agents.engine.lines import has_line
from tests.boards import random_board

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")

# Boards within the page's limits (web.inputs.LIMITS: rows 2-12, columns 2-9, inarow 2-12), a board on
# which nobody can win (4 in a row on 3x3) among them.
BOARDS = [(6, 7, 4), (2, 2, 2), (3, 3, 3), (3, 3, 4), (4, 5, 3), (5, 4, 4), (12, 9, 5), (2, 9, 2), (7, 9, 12)]
GAMES = 120  # positions a board, each from the empty board by random moves (some to the game's end)


def run_rules(boards: list[Board]) -> list[dict]:
    """What rules.js says of each board's moves."""
    sizes = [{"rows": b.geo.rows, "columns": b.geo.columns, "inarow": b.geo.inarow} for b in boards]
    cases = [{"board": size, "moves": list(b.moves)} for size, b in zip(sizes, boards, strict=True)]
    done = subprocess.run(
        [NODE, str(ROOT / "tests" / "rules_runner.mjs"), str(ROOT / "web" / "static" / "rules.js")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
    )
    answers: list[dict] = json.loads(done.stdout)
    return answers


def line_kind(cells: list[list[int]]) -> str:
    rows, columns = {r for r, _ in cells}, {c for _, c in cells}
    return "across" if len(rows) == 1 else "down" if len(columns) == 1 else "diagonal"


@pytest.mark.skipif(NODE is None, reason="node is not on PATH")
def test_the_pages_rules_agree_with_the_python_board() -> None:
    rng = random.Random(55)
    boards = [Board(*config) for config in BOARDS]  # the empty boards
    boards += [random_board(rng, *config) for config in BOARDS for _ in range(GAMES)]
    seen: set[str] = set()
    for board, answer in zip(boards, run_rules(boards), strict=True):
        geo, kaggle = board.geo, board.to_kaggle()
        where = f"{geo.rows}x{geo.columns} inarow={geo.inarow} after {board.notation()!r}"
        assert answer["mover"] == board.mark, where
        assert answer["legal"] == board.legal_moves(), where
        heights = [(board.mask & column).bit_count() for column in geo.column_masks]
        assert answer["landing"] == [geo.rows - 1 - h for h in heights], where
        assert answer["cells"] == kaggle, where
        assert answer["notation"] == board.notation(), where
        outcome = board.outcome()
        assert (answer["outcome"] is None) == (outcome is None), where
        if outcome is None:
            seen.add("on")
            continue
        assert answer["outcome"]["winner"] == (outcome.winner or 0), where
        cells = answer["outcome"]["cells"]
        if outcome.winner is None:
            assert cells == [], where
            seen.add("draw")
            continue
        # The cells drawn as the winning line: the winner's stones, the last one among them, a line.
        last = board.moves[-1]
        assert [geo.rows - 1 - (heights[last] - 1), last] in cells, where
        assert all(kaggle[r * geo.columns + c] == outcome.winner for r, c in cells), where
        stones = 0
        for r, c in cells:  # two lines through the last stone both hold it
            stones |= 1 << (c * geo.height + geo.rows - 1 - r)
        assert has_line(stones, geo), where
        seen.add(line_kind(cells))
    assert seen == {"on", "draw", "across", "down", "diagonal"}
