"""What a ladder shows: its rating list as a terminal table and as Markdown, the lines under it, and
the figure of its ratings as members joined (the report's progression figure, one checkpoint an
addition)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from reports.render.markdown_parts import table
from reports.render.plots import progress_figure
from reports.stats.kaggle import KaggleParameters
from reports.stats.ladder import Entry, disagreements, history
from reports.stats.progress import Checkpoint
from tournament.ladder import Roster
from tournament.record import GameRecord

HISTORY = "history.png"
"""The figure of the ratings as members joined, in the ladder (``show``) or the reports' folder."""

__all__ = [
    "format_list",
    "list_frame",
    "standings_frame",
    "markdown_list",
    "notes",
    "ordering_note",
    "plot_history",
]


def _rows(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """One row a member: rank, id, Elo, interval, games, W/D/L, score, Kaggle-style μ ± σ, versions of
    its name, and when it was added (UTC, to the minute; ``(retired)`` after it for a retired member)."""
    rows = []
    for rank, entry in enumerate(entries, start=1):
        rating, wdl, skill = entry.rating, entry.wdl, entry.skill
        if rating is not None and rating.reference:
            elo, interval = f"{rating.elo:+.0f}", "anchor"
        elif rating is not None:
            elo, interval = rating.estimate(), rating.interval()
        else:
            elo, interval = "unrated", ""
        rows.append(
            {
                "#": rank,
                "member": entry.member.id,
                "Elo": elo,
                "95% interval": interval,
                "games": wdl.games,
                "W": wdl.wins,
                "D": wdl.draws,
                "L": wdl.losses,
                "score": f"{100 * wdl.points / wdl.games:.1f}%" if wdl.games else "",
                "Kaggle μ ± σ": f"{skill.mu:.0f} ± {skill.sigma:.0f}" if skill is not None else "",
                "versions": entry.versions,
                "added": entry.member.added[:16].replace("T", " ")
                + (" (retired)" if entry.member.retired else ""),
            }
        )
    return rows


def list_frame(entries: Sequence[Entry]) -> pd.DataFrame:
    """The rating list as shown, best first: one row a member of text cells (:func:`_rows`)."""
    return pd.DataFrame(_rows(entries))


def standings_frame(entries: Sequence[Entry]) -> pd.DataFrame:
    """The rating list as numbers, best first: one row a member (index ``member``, ``name@version``)
    with ``elo``, ``low`` and ``high`` (its 95 % interval, Elo; NaN unrated, ±inf unbounded),
    ``games``, ``wins``, ``draws``, ``losses``, ``score`` (fraction of points), the Kaggle-style
    ``mu`` and ``sigma``, ``versions`` of its name, and ``added`` / ``retired`` (ISO 8601 UTC,
    ``retired`` None while it plays)."""
    nan = float("nan")
    rows = []
    for entry in entries:
        rating, wdl, skill = entry.rating, entry.wdl, entry.skill
        rows.append(
            {
                "member": entry.member.id,
                "elo": rating.elo if rating else nan,
                "low": rating.low if rating else nan,
                "high": rating.high if rating else nan,
                "games": wdl.games,
                "wins": wdl.wins,
                "draws": wdl.draws,
                "losses": wdl.losses,
                "score": wdl.points / wdl.games if wdl.games else nan,
                "mu": skill.mu if skill else nan,
                "sigma": skill.sigma if skill else nan,
                "versions": entry.versions,
                "added": entry.member.added,
                "retired": entry.member.retired,
            }
        )
    columns = ["member", "elo", "low", "high", "games", "wins", "draws", "losses", "score", "mu", "sigma"]
    return pd.DataFrame(rows, columns=[*columns, "versions", "added", "retired"]).set_index("member")


def format_list(entries: Sequence[Entry]) -> str:
    """The rating list as a fixed-width text table, best first (:func:`_rows`)."""
    if not entries:
        return "no members yet"
    table: str = list_frame(entries).to_string(index=False)
    return table


def markdown_list(entries: Sequence[Entry]) -> str:
    """The rating list as a Markdown table."""
    rows = _rows(entries)
    if not rows:
        return "No members yet.\n"
    header = list(rows[0])
    return table(header, [[row[key] for key in header] for row in rows]) + "\n"


def ordering_note(disagreements: Sequence[tuple[str, str, bool]]) -> str:
    """One line: whether the Kaggle-style μ orders the members as the ML Elo does, and the pairs it
    orders otherwise (``a/b``: ``a`` above ``b`` by Elo, below it by μ), those whose intervals are
    apart named first."""
    if not disagreements:
        return "The Kaggle-style μ orders the members as the ML Elo does."
    apart = [f"{a}/{b}" for a, b, overlap in disagreements if not overlap]
    overlapping = [f"{a}/{b}" for a, b, overlap in disagreements if overlap]
    pairs = f"{len(disagreements)} pair" + ("s" if len(disagreements) != 1 else "")
    line = f"The Kaggle-style μ orders {pairs} of members otherwise than the ML Elo"
    if not apart:
        return f"{line}, all with overlapping 95 % intervals: {', '.join(overlapping)}."
    line += f"; with intervals apart: {', '.join(apart)}"
    return line + (f"; overlapping: {', '.join(overlapping)}." if overlapping else ".")


def notes(entries: Sequence[Entry], kaggle: KaggleParameters, scale: str) -> list[str]:
    """The lines under the list: the scale, the Kaggle-style parameters (which are assumptions), and
    the spec of each member whose name does not say it."""
    lines = [
        f"Elo: maximum likelihood over all the ladder's games, 95 % profile-likelihood intervals; {scale}.",
        f"Kaggle-style μ ± σ: the games replayed in order through openskill's Thurstone-Mosteller "
        f"update; {kaggle.describe()}.",
    ]
    specs = [f"{e.member.id} = {e.member.spec}" for e in entries if e.member.spec != e.member.name]
    if specs:
        lines.append("Specs: " + "; ".join(specs))
    return lines


def plot_history(checkpoints: Sequence[Checkpoint], path: Path, *, title: str) -> None:
    """Save the ratings after each addition (:func:`reports.stats.ladder.history`) as PNG: one panel a
    member, its Elo and interval against the ladder's games played, each point an addition."""
    figure = progress_figure(checkpoints, title=title, scale="each point: after a member joined")
    figure.savefig(path, format="png", dpi=120)


def write_page(
    folder: Path,
    title: str,
    entries: Sequence[Entry],
    records: Sequence[GameRecord],
    roster: Roster,
    kaggle: KaggleParameters,
    scale: str,
) -> tuple[str, str]:
    """Write the ladder's page into ``folder``: ``ladder.md`` (the rating list ``entries``, titled
    ``title``, with its notes; ``scale`` says what the Elo's zero is) and :data:`HISTORY` (the
    ratings of ``records`` as the members of ``roster`` joined); their names."""
    text = [f"# {title}", "", markdown_list(entries), ordering_note(disagreements(entries)), ""]
    text += [f"{line}  " for line in notes(entries, kaggle, scale)]
    text += ["", f"![The ratings as members joined]({HISTORY})", ""]
    (folder / "ladder.md").write_text("\n".join(text), encoding="utf-8")
    plot_history(history(records, roster), folder / HISTORY, title=f"{title}: the ratings as members joined")
    return "ladder.md", HISTORY
