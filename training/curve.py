"""The learning curve of ``connectx train``: rows of metrics and evaluations, as CSV and as a plot.

A row is a dict: ``games`` or ``steps`` (trained so far: games, or moves for a learner counted in
moves, whose curve is plotted against them), ``seconds`` (wall), the learner's metrics (any other
names, averaged since the previous row) and, in the rows of an evaluation, ``score_<opponent>`` (a
fraction, (wins + draws / 2) / games); the CSV leaves a row's missing scores empty. Both files are
rewritten whole from all the rows at every evaluation (:func:`agents.files.replace_atomically`),
so that a resumed run's curve is one piece.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path

from agents.files import replace_atomically

__all__ = ["CSV", "PNG", "write"]

CSV = "curve.csv"
PNG = "curve.png"
SCORE = "score_"
"""Prefix of the score columns."""
COUNTS = ("games", "steps", "seconds")
"""The columns that count how far training went: in the CSV, not plotted as metrics."""


def write(rows: Sequence[dict[str, float]], out: Path, *, title: str) -> None:
    """Write ``out/curve.csv`` and ``out/curve.png`` (titled ``title``) from ``rows``."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    scores = [key for key in columns if key.startswith(SCORE)]
    metrics = [key for key in columns if key not in COUNTS and key not in scores]
    columns = [key for key in COUNTS if key in columns] + [*metrics, *scores]
    text = io.StringIO()
    table = csv.DictWriter(text, fieldnames=columns, restval="", lineterminator="\n")
    table.writeheader()
    table.writerows(
        {key: f"{value:.6g}" if isinstance(value, float) else value for key, value in row.items()}
        for row in rows
    )
    replace_atomically(out / CSV, lambda path: path.write_text(text.getvalue(), encoding="utf-8"))
    _plot(rows, scores, metrics, out / PNG, title)


def _plot(
    rows: Sequence[dict[str, float]], scores: list[str], metrics: list[str], path: Path, title: str
) -> None:
    """Scores against games (or steps) in the first panel (0-100 %), each metric in a panel of its own."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 1 + len(metrics)
    across = min(panels, 3)
    down = math.ceil(panels / across)
    fig, axes = plt.subplots(down, across, figsize=(5 * across, 3.6 * down), squeeze=False)
    flat = list(axes.flat)
    count = "games" if "games" in rows[0] else "steps"
    for key in scores:
        points = [(row[count], 100 * row[key]) for row in rows if key in row]
        flat[0].plot(*zip(*points, strict=True), marker="o", label=f"vs {key[len(SCORE) :]}")
    flat[0].axhline(50, color="grey", linestyle=":", linewidth=1)  # 50 %: even with the opponent
    flat[0].set_ylim(0, 102)
    flat[0].set_title("score of the trained agent (%)")
    flat[0].legend()
    for ax, key in zip(flat[1:], metrics, strict=False):
        points = [(row[count], row[key]) for row in rows if key in row]
        ax.plot([g for g, _ in points], [v for _, v in points], color="tab:green", linewidth=1)
        ax.set_title(f"{key} (mean since the previous point)")
    for ax in flat[:panels]:
        ax.set_xlabel(f"training {count}")
        ax.grid(alpha=0.3)
    for ax in flat[panels:]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    replace_atomically(path, lambda temporary: fig.savefig(temporary, format="png", dpi=90))
    plt.close(fig)
