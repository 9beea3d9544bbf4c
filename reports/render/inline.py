"""HTML a notebook shows inline (a stub until helper "inline"'s module lands): a result's standings
and one game's moves, as plain tables."""

from __future__ import annotations

from html import escape

from reports.report import Report

__all__ = ["replay_html", "result_html"]


def result_html(report: Report) -> str:
    """The standings of ``report`` as an HTML table."""
    rows = "".join(
        f"<tr><td>{line.rank}</td><td>{escape(line.agent)}</td><td>{line.rating.estimate()}</td>"
        f"<td>{line.wins}</td><td>{line.draws}</td><td>{line.losses}</td></tr>"
        for line in report.standings
    )
    head = "<tr><th>#</th><th>agent</th><th>Elo</th><th>W</th><th>D</th><th>L</th></tr>"
    return f"<table>{head}{rows}</table>"


def replay_html(report: Report, game_id: int) -> str:
    """Game ``game_id`` of ``report``: its players, result and moves as an HTML table.

    Raises KeyError when the report has no such game."""
    record = {record.game_id: record for record in report.records}[game_id]
    cells = (
        record.first,
        record.second,
        str(record.result),
        str(record.termination),
        record.board().notation(),
    )
    return (
        "<table><tr><th>first</th><th>second</th><th>result</th><th>termination</th><th>moves</th></tr><tr>"
        + ("".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr></table>")
    )
