"""The pieces both Markdown documents (:mod:`reports.render.markdown`) are made of: a pipe table, a
fenced code block, a wins-draws-losses cell."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reports.stats.headtohead import WDL

__all__ = ["fenced", "table", "wdl_cell"]


def table(header: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A pipe table; ``|`` and line breaks in cells are escaped so that every row stays one line."""

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines)


def fenced(text: str) -> list[str]:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside it."""
    fence = "```"
    while fence in text:
        fence += "`"
    return [fence, *text.splitlines(), fence]


def wdl_cell(wdl: WDL | None) -> str:
    """``3-1-2``: wins-draws-losses, or "" for none."""
    return "" if wdl is None else f"{wdl.wins}-{wdl.draws}-{wdl.losses}"
