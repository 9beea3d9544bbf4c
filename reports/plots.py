"""Figures of a tournament: the Elo ladder with its intervals, and the crosstable as a heatmap.

Figures are built on :class:`matplotlib.figure.Figure` and its Agg canvas, never through pyplot, so
no display is needed and no global backend or figure state is touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from reports.ratings import Rating
from reports.stats import WDL
from reports.tally import Matchup, score_matrix

__all__ = ["plot_crosstable", "plot_elo"]


def plot_elo(ratings: Sequence[Rating], path: Path, *, title: str) -> None:
    """Save to ``path`` (PNG) each player's Elo as a point with its 95 % interval, best on top.

    Each row is labelled with the Elo, the interval and the games played; ``title`` goes on top
    (e.g. the number of games and the configuration). Intervals that are ``nan`` are not drawn.
    """
    ratings = sorted(ratings, key=lambda r: (-r.elo, r.name))
    elo = np.array([r.elo for r in ratings])
    low = np.array([r.low for r in ratings])
    high = np.array([r.high for r in ratings])
    y = np.arange(len(ratings))[::-1]
    fig = Figure(figsize=(9, 1.6 + 0.42 * len(ratings)), layout="constrained")
    ax = fig.add_subplot()
    ax.axvline(0, color="0.75", linewidth=1, zorder=0)
    xerr = None if np.isnan(low).any() else np.array([elo - low, high - elo])
    ax.errorbar(elo, y, xerr=xerr, fmt="o", color="tab:blue", elinewidth=2, capsize=4, markersize=6)
    for row, rating in zip(y, ratings, strict=True):
        interval = "" if np.isnan(rating.low) else f"  [{rating.low:+.0f}, {rating.high:+.0f}]"
        label = f"{rating.elo:+.0f}{interval}  ·  {rating.games} games"
        ax.text(1.02, row, label, transform=ax.get_yaxis_transform(), va="center", fontsize=9, color="0.2")
    ax.set_ylim(-0.7, len(ratings) - 0.3)
    ax.set_yticks(y, [r.name for r in ratings])
    ax.set_xlabel("Elo")
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=10, loc="left")
    fig.savefig(path, format="png", dpi=120)


def plot_crosstable(h2h: Mapping[Matchup, WDL], order: Sequence[str], path: Path, *, title: str) -> None:
    """Save to ``path`` (PNG) a heatmap of the row agent's score against the column agent.

    Cells are coloured by score per game (red 0, yellow 1/2, green 1) and annotated with points out
    of games ("7.5/10"); pairings that never met are grey. Rows and columns follow ``order``.
    """
    points, games = score_matrix(h2h, order)
    with np.errstate(invalid="ignore"):
        fraction = np.ma.masked_invalid(points / games)
    size = len(order)
    name = 0.085 * max(map(len, order), default=0)  # inches of the longest name, at 10 points
    width, height = max(6.0, 2.2 + name + 0.85 * size), 1.6 + 0.5 * name + 0.7 * size
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(fraction, cmap=colormaps["RdYlGn"].with_extremes(bad="0.88"), vmin=0.0, vmax=1.0)
    for i in range(size):
        for j in range(size):
            if games[i, j]:
                dark = abs(fraction[i, j] - 0.5) > 0.35  # the ends of the colour map
                label = f"{points[i, j]:g}/{games[i, j]:g}"
                ax.text(j, i, label, ha="center", va="center", fontsize=9, color="white" if dark else "black")
    ax.set_xticks(range(size), order, rotation=35, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(size), order)
    ax.set_xlabel("opponent")
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    fig.colorbar(image, ax=ax, shrink=0.8, label="score per game of the row agent")
    ax.set_title(title, fontsize=10, loc="left")
    fig.savefig(path, format="png", dpi=120)
