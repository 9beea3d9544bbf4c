"""What a tournament's report says on a terminal: the standings, notes on them, and the forfeits.

:func:`summary` gives every line ``connectx report`` prints about a tournament; the others its parts.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from reports.entrants import shown
from reports.stats.ratings import Rating
from reports.stats.sections import ForfeitRow
from reports.stats.standings import Standing
from reports.words import plural

if TYPE_CHECKING:
    from reports.report import Report

__all__ = ["forfeit_summary", "format_standings", "summary", "without_mark"]


def summary(report: Report) -> list[str]:
    """The standings table (with the Elo relative to perfect play when the move analysis found an
    agent without a mistake), a blank line, the report's notes, the openings, then
    :func:`forfeit_summary`."""
    versus = report.review.versus if report.review is not None else {}
    lines = [format_standings(report.standings, versus), "", *report.notes]
    lines.append(f"openings: {report.settings.opening_source}")
    return lines + forfeit_summary(report.forfeits)


def format_standings(standings: Sequence[Standing], versus: Mapping[str, Rating] | None = None) -> str:
    """The standings as a fixed-width text table, one line per agent, best first.

    The Elo column shows the rating (``+∞`` for a player whose maximum-likelihood rating is infinite),
    the next its 95 % interval or one-sided bound (:meth:`reports.stats.ratings.Rating.estimate`,
    :meth:`~reports.stats.ratings.Rating.interval`); with ``versus`` (each agent's Elo relative to
    perfect play, by name), ``vs perfect play`` shows it with its interval or bound
    (:meth:`~reports.stats.ratings.Rating.cell`); ``inv/time/err`` counts the agent's forfeits by an
    invalid action, a time-out, an error.
    """
    rows = [
        {
            "#": line.rank,
            "agent": shown(line.agent),
            "Elo": line.rating.estimate(),
            "95% interval": line.rating.interval(),
            **({"vs perfect play": versus[line.agent].cell()} if versus else {}),
            "games": line.games,
            "W": line.wins,
            "D": line.draws,
            "L": line.losses,
            "score": f"{line.score_pct:.1f}%",
            "inv/time/err": f"{line.invalid}/{line.timeouts}/{line.errors}",
        }
        for line in standings
    ]
    table: str = pd.DataFrame(rows).to_string(index=False)
    return table


def without_mark(text: str) -> str:
    """A forfeit's message without the ``mark N`` that starts it: ``its`` for ``mark N's``.

    >>> without_mark("mark 1's process exited (exit code 1) during its move")
    'its process exited (exit code 1) during its move'
    >>> without_mark("mark 2 did not return within 62.5 s")
    'did not return within 62.5 s'
    >>> without_mark("markup")
    'markup'
    """
    found = re.match(r"mark \d+('s\b)?\s*", text)
    if found is None:
        return text
    return ("its " if found.group(1) else "") + text[found.end() :]


def forfeit_summary(forfeits: Sequence[ForfeitRow]) -> list[str]:
    """Lines for a terminal: every forfeit, grouped by agent, kind and message.

    A message's summary is its last line (an exception's type and text, after any traceback) without
    the ``mark N`` that starts it (:func:`without_mark`), so the same crash as first and as second
    player is one group:
    ``  crash.py: 3 error (games 6, 16, 17): raised AttributeError: 'Struct' object has no ...``.
    No forfeit gives no line.
    """
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for forfeit in forfeits:
        lines = [line.strip() for line in forfeit.detail.splitlines() if line.strip()]
        text = without_mark(lines[-1]) if lines else "(no message)"
        groups[shown(forfeit.agent), forfeit.kind, text].append(forfeit.game_id)
    if not groups:
        return []
    lines = [
        f"forfeits ({plural(len(forfeits), 'game')}; full messages in report.html, section Terminations):"
    ]
    for (agent, kind, text), games in groups.items():
        listed = ", ".join(map(str, games[:8])) + (", ..." if len(games) > 8 else "")
        lines.append(f"  {agent}: {len(games)} {kind} (game{'s' if len(games) > 1 else ''} {listed}): {text}")
    return lines
