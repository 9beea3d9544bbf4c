"""The comparison of several runs as Markdown (``comparison.md``): each agent's Elo, score, forfeits and
median move time in every run, and the results of every run's agents against the agents all runs
share. :mod:`reports.render.markdown` exports :func:`render_comparison`."""

from __future__ import annotations

from reports.compare import Comparison
from reports.durations import format_seconds
from reports.render.markdown_parts import table, wdl_cell
from reports.stats.headtohead import WDL
from reports.stats.ratings import Rating

__all__ = ["render_comparison"]


def render_comparison(comparison: Comparison) -> str:
    """The comparison of several runs as Markdown text."""
    runs = comparison.runs
    lines = ["# ConnectX runs compared", ""]
    lines += [
        table(
            ["run", "games", "openings", "time", "Elo scale"],
            [(f"[{r.name}]({r.link})", r.games, r.openings, r.time_control, r.scale) for r in runs],
        ),
        "",
        # The one option name below the CLI: the document tells its reader how versions were joined,
        # and `connectx report` is the only writer of comparisons.
        "Elo is relative to each run's own zero (its scale above); scores against the same opponents compare "
        "directly. Agents are known by name (a file agent by its file name); `A → B` are versions joined "
        "by `--pair A=B`.",
        "",
        "## Agents",
        "",
    ]
    rows = []
    for line in comparison.agents:
        cells: list[object] = [line.agent]
        for cell in line.cells:
            if cell is None:
                cells += ["", "", "", ""]
            else:
                s = cell.standing
                cells += [
                    _elo(s.rating),
                    f"{s.score_pct:.1f} % ({s.wins}-{s.draws}-{s.losses})",
                    f"{s.invalid}/{s.timeouts}/{s.errors}",
                    format_seconds(cell.median_move),
                ]
        cells.append("" if line.change is None else f"{line.change:+.1f}")
        rows.append(cells)
    header = ["agent"]
    for run in runs:
        header += [
            f"{run.name}: Elo",
            f"{run.name}: score",
            f"{run.name}: inv/time/err",
            f"{run.name}: median move",
        ]
    lines += [table([*header, "score change (points)"], rows), ""]
    lines += [f"## Against the agents of every run ({', '.join(comparison.shared) or 'none'})", ""]
    if comparison.shared:
        lines.append(
            table(
                ["run", "agent", *comparison.shared, "total"],
                [
                    (runs[row.run].name, row.agent, *map(wdl_cell, row.results), _score(row.total))
                    for row in comparison.versus
                ],
            )
        )
    else:
        lines.append("The runs share no agent.")
    return "\n".join(lines) + "\n"


def _elo(rating: Rating) -> str:
    """``+428 (+170 to +802)``, ``+∞ (≥ +407)``, ``0 (reference)``: a rating and its interval, one cell."""
    interval = rating.interval()
    return f"{rating.estimate()} ({interval})" if interval else rating.estimate()


def _score(wdl: WDL) -> str:
    return f"{100 * wdl.points / wdl.games:.1f} % ({wdl_cell(wdl)})" if wdl.games else ""
