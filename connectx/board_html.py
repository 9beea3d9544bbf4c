"""A position drawn as self-contained HTML for a notebook (:meth:`connectx.boards.Board._repr_html_`),
and its scores as text lines for a terminal.

The HTML is one ``<div>`` with inline styles only (no ``<style>`` sheet, which a notebook would apply
to the whole page; no script; nothing fetched), so it shows the same in JupyterLab, VS Code, Colab
and a notebook saved to HTML:

* a caption: the position (Pons' notation) and who is to move, or how the game ended;
* an SVG picture of the board, row 0 (Kaggle's first row) on top: each cell a ``<circle>`` with
  ``data-row`` and ``data-column`` (0-based, as Kaggle's ``obs.board`` counts them) and the class
  ``p1``, ``p2`` or ``empty``; the last stone has a white ring, a winning line a black one; under it
  the column numbers, from 1;
* with scores, under each column a chip (``class="score"``, ``data-score``): the Pons score and its
  short words (:func:`reports.exact.column_words`; the long ones as its tooltip), the best ones
  outlined, then the position's value in a sentence (:func:`reports.exact.summary`).

The colours are the report's and the board page's (``reports/render/templates/base.html.j2``).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from agents.engine.board import Board
from connectx.drawing import winning_stones
from reports.exact import NAMES

if TYPE_CHECKING:
    from connectx.boards import Solved

__all__ = ["board_html", "caption", "text_scores"]

CELL = 48
"""Pixels between the centres of two cells."""

COLOURS = {"board": "#2b5ea7", 1: "#c8372d", 2: "#f2c12e", 0: "#ffffff"}
"""The board's blue, Red's and Yellow's stones, an empty cell (the report's ``--board``, ``--p1``,
``--p2``)."""

_CHIP = {
    1: ("#eef8f0", "#7fbf8f", "#1a7a3a"),
    0: ("#ffffff", "#d9dde5", "#5b6475"),
    -1: ("#fdf2f3", "#e3a5ad", "#b2182b"),
}
"""A score chip's background, border and number colour, by the sign of its score."""


def caption(board: Board) -> str:
    """Who is to move, or how the game ended, in words: ``Red to move``, ``Yellow wins with 4 in a
    row``, ``a draw: the board is full``."""
    winner = board.winner()
    if winner is not None:
        return f"{NAMES[winner]} wins with {board.geo.inarow} in a row"
    if board.is_full():
        return "a draw: the board is full"
    return f"{NAMES[board.mark]} to move"


def _svg(board: Board) -> str:
    geo, cells = board.geo, board.to_kaggle()
    line = winning_stones(board)
    last = board.moves[-1] if board.moves else None
    width, height = geo.columns * CELL + 8, geo.rows * CELL + 8
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 18}" '
        f'viewBox="0 0 {width} {height + 18}" role="img" aria-label="board">',
        f'<rect x="0" y="0" width="{width}" height="{height}" rx="8" fill="{COLOURS["board"]}"/>',
    ]
    top_of = {
        c: next((r for r in range(geo.rows) if cells[r * geo.columns + c]), None) for c in range(geo.columns)
    }
    for r in range(geo.rows):
        for c in range(geo.columns):
            mark = cells[r * geo.columns + c]
            x, y = 4 + c * CELL + CELL / 2, 4 + r * CELL + CELL / 2
            bit = 1 << (c * geo.height + geo.rows - 1 - r)  # agents.engine.board's layout
            ring = ""
            if line & bit:
                ring = ' stroke="#000" stroke-width="4"'
            elif c == last and top_of[c] == r:
                ring = ' stroke="#fff" stroke-width="3"'
            kind = f"p{mark}" if mark else "empty"
            parts.append(
                f'<circle class="{kind}" data-row="{r}" data-column="{c}" cx="{x:g}" cy="{y:g}" '
                f'r="{CELL / 2 - 5:g}" fill="{COLOURS[mark]}"{ring}/>'
            )
    for c in range(geo.columns):
        parts.append(
            f'<text x="{4 + c * CELL + CELL / 2:g}" y="{height + 14}" text-anchor="middle" '
            f'font-size="12" fill="#5b6475" font-family="sans-serif">{c + 1}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _chips(board: Board, solved: Solved) -> str:
    assert solved.scores is not None
    chips = []
    for column, score in enumerate(solved.scores):
        style = f"width:{CELL - 4}px;box-sizing:border-box;text-align:center;font-size:10px;line-height:1.2;"
        if score is None:
            chips.append(f'<div class="score full" style="{style}"></div>')
            continue
        words = solved.columns[column]
        assert words is not None
        background, border, ink = _CHIP[(score > 0) - (score < 0)]
        outline = ";box-shadow:0 0 0 2px #1a9850" if score == solved.score else ""
        signed = f"{score:+d}" if score else "0"
        chips.append(
            f'<div class="score" data-column="{column}" data-score="{score}" '
            f'title="column {column + 1}: {escape(words[1])} (score {signed})" '
            f'style="{style}background:{background};border:1px solid {border};border-radius:5px;'
            f'padding:2px 1px{outline}"><b style="display:block;font-size:14px;color:{ink}">{signed}</b>'
            f"{escape(words[0])}</div>"
        )
    return (
        '<div class="scores" style="display:flex;gap:4px;padding:0 4px;margin-top:2px">'
        f"{''.join(chips)}</div>"
        f'<div class="scores-line" style="font-size:13px;color:#5b6475;margin-top:6px;max-width:'
        f'{max(board.geo.columns * CELL, 300)}px">Perfect play: {escape(solved.summary or "")}</div>'
    )


def board_html(board: Board, solved: Solved | None = None) -> str:
    """``board`` as self-contained HTML (module docstring), with ``solved``'s scores under the
    columns when given (analysed, not weak)."""
    title = f"{board.notation() or 'the empty board'} · {caption(board)}"
    return (
        '<div class="connectx-static-board" '
        'style="font-family:sans-serif;color:#1d2330;display:inline-block">'
        f'<div class="caption" style="font-size:14px;font-weight:600;margin-bottom:4px">{escape(title)}</div>'
        f"{_svg(board)}{_chips(board, solved) if solved is not None else ''}</div>"
    )


def text_scores(board: Board, solved: Solved | None) -> list[str]:
    """The scores as lines of text under the board (none without ``solved``): each column's score
    (``-`` for a full one), then the value in a sentence."""
    if solved is None or solved.scores is None:
        return []
    scores = " ".join("-" if s is None else f"{s:+d}" if s else "0" for s in solved.scores)
    return [f"scores: {scores}", f"{solved.summary}"]
