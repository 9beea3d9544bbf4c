"""What a tournament's report says on a terminal: the standings, notes on them, and the forfeits.

:func:`summary` gives every line ``connectx table`` prints about a tournament; the others its parts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from reports.stats.results import Results
from reports.stats.sections import Forfeit
from tournament.record import FORFEITS

if TYPE_CHECKING:
    from reports.report import Report

__all__ = ["forfeit_summary", "format_standings", "notes", "summary"]


def summary(report: Report) -> list[str]:
    """The standings table, a blank line, :func:`notes`, the openings, then :func:`forfeit_summary`."""
    results = report.results
    lines = [format_standings(results), "", *notes(results)]
    lines.append(f"openings: {report.settings.opening_source}")
    return lines + forfeit_summary(report.forfeits)


def format_standings(results: Results) -> str:
    """The standings as a fixed-width text table, one line per agent, best first.

    The Elo column shows the rating and its 95 % interval, or a one-sided bound (``> +612``) for a
    player whose maximum-likelihood rating is infinite (:meth:`reports.stats.ratings.Rating.label`);
    ``inv/time/err`` counts the agent's forfeits by an invalid action, a time-out, an error.
    """
    rows = []
    for rank, rating in enumerate(results.ratings, start=1):
        wdl = results.totals[rating.name]
        forfeited = "/".join(str(results.forfeited(rating.name, kind)) for kind in FORFEITS)
        rows.append(
            {
                "#": rank,
                "agent": rating.name,
                "Elo [95% interval]": rating.label(),
                "games": wdl.games,
                "W": wdl.wins,
                "D": wdl.draws,
                "L": wdl.losses,
                "score": f"{100 * wdl.points / wdl.games:.1f}%",
                "inv/time/err": forfeited,
            }
        )
    return pd.DataFrame(rows).to_string(index=False)


def notes(results: Results) -> list[str]:
    """Lines to print under the standings: distinct games, repeated games, unbounded ratings."""
    distinct = results.distinct
    unique, total = sum(d for d, _ in distinct.values()), sum(g for _, g in distinct.values())
    lines = [f"{unique} of {total} games distinct"]
    for (a, b), (d, g) in sorted(distinct.items()):
        if d < g:
            lines.append(f"warning: {a} v {b} repeated games: {d} distinct of {g}")
    for rating in results.ratings:
        if rating.elo == float("inf"):
            lines.append(
                f"{rating.name} scored every point against the agents below it: its maximum-likelihood "
                "rating is infinite; shown is its one-sided 95 % lower bound"
            )
        elif rating.elo == float("-inf"):
            lines.append(
                f"{rating.name} scored no point against the agents above it: its maximum-likelihood "
                "rating is minus infinity; shown is its one-sided 95 % upper bound"
            )
    return lines


def forfeit_summary(forfeits: Sequence[Forfeit]) -> list[str]:
    """Lines for a terminal: every forfeit, grouped by agent, kind and message.

    A message's summary is its last line (an exception's type and text, after any traceback) without
    the ``mark N`` that starts it, so the same crash as first and as second player is one group:
    ``  crash.py: 3 error (games 6, 16, 17): raised AttributeError: 'Struct' object has no ...``.
    No forfeit gives no line.
    """
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for forfeit in forfeits:
        lines = [line.strip() for line in forfeit.detail.splitlines() if line.strip()]
        text = lines[-1] if lines else "(no message)"
        if text.startswith("mark ") and text[5:6].isdigit():
            text = text[6:].lstrip()
        groups[forfeit.agent, forfeit.kind, text].append(forfeit.game_id)
    if not groups:
        return []
    lines = [f"forfeits ({len(forfeits)} games; full messages in report.html, section Terminations):"]
    for (agent, kind, text), games in groups.items():
        shown = ", ".join(map(str, games[:8])) + (", ..." if len(games) > 8 else "")
        lines.append(f"  {agent}: {len(games)} {kind} (game{'s' if len(games) > 1 else ''} {shown}): {text}")
    return lines

