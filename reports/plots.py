"""Figures of a tournament: the Elo ladder with its intervals, its progression, and the crosstable.

Figures are built on :class:`matplotlib.figure.Figure` and its Agg canvas, never through pyplot, so
no display is needed and no global backend or figure state is touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from reports.progress import Checkpoint
from reports.ratings import Rating
from reports.stats import WDL
from reports.tally import Matchup, score_matrix

__all__ = ["plot_crosstable", "plot_elo", "plot_progress"]


def plot_elo(ratings: Sequence[Rating], path: Path, *, title: str) -> None:
    """Save to ``path`` (PNG) each player's Elo as a point with its 95 % interval, in the given order.

    Each row is labelled with :meth:`Rating.label` and the games played; ``title`` goes on top (e.g.
    the number of games and the configuration). A player whose rating is unbounded is drawn as an
    arrow from its one-sided bound; a missing interval is not drawn.
    """
    y = np.arange(len(ratings))[::-1]
    finite = [r.is_finite for r in ratings]
    bounds = [r.low if r.elo > 0 else r.high for r in ratings if not r.is_finite]
    values = [v for r in ratings for v in (r.elo, r.low, r.high) if np.isfinite(v)] + bounds
    span = (max(values) - min(values)) if values else 100.0
    fig = Figure(figsize=(9, 1.6 + 0.42 * len(ratings)), layout="constrained")
    ax = fig.add_subplot()
    ax.axvline(0, color="0.75", linewidth=1, zorder=0)
    for row, rating, ok in zip(y, ratings, finite, strict=True):
        if ok:
            if np.isfinite(rating.low):
                ax.plot([rating.low, rating.high], [row, row], color="tab:blue", linewidth=2)
                ax.plot([rating.low, rating.high], [row, row], "|", color="tab:blue", markersize=8)
            ax.plot(rating.elo, row, "o", color="tab:blue", markersize=6)
        elif not np.isnan(rating.elo):
            bound = rating.low if rating.elo > 0 else rating.high
            if np.isfinite(bound):
                direction = 1.0 if rating.elo > 0 else -1.0
                ax.annotate(
                    "",
                    xy=(bound + direction * 0.15 * span, row),
                    xytext=(bound, row),
                    arrowprops={"arrowstyle": "->", "color": "tab:red", "linewidth": 2},
                )
                ax.plot(bound, row, "|", color="tab:red", markersize=10)
        label = f"{rating.label()}  ·  {rating.games} games"
        ax.text(1.02, row, label, transform=ax.get_yaxis_transform(), va="center", fontsize=9, color="0.2")
    ax.set_ylim(-0.7, len(ratings) - 0.3)
    if values:  # room for the arrows, which do not widen the axis by themselves
        ax.set_xlim(min(values) - 0.2 * span - 10, max(values) + 0.2 * span + 10)
    ax.set_yticks(y, [r.name for r in ratings])
    ax.set_xlabel("Elo")
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=10, loc="left")
    fig.savefig(path, format="png", dpi=120)


def plot_progress(checkpoints: Sequence[Checkpoint], path: Path, *, title: str) -> None:
    """Save to ``path`` (PNG) each player's Elo against the games played, with its 95 % band.

    One line per player (the order of the last checkpoint's ratings), a shaded band for its interval;
    checkpoints where a player's rating is unbounded leave a gap.
    """
    fig = Figure(figsize=(9, 5), layout="constrained")
    ax = fig.add_subplot()
    names = [r.name for r in checkpoints[-1].ratings] if checkpoints else []
    colours = colormaps["tab10" if len(names) <= 10 else "tab20"]
    for k, name in enumerate(names):
        games, elo, low, high = [], [], [], []
        for checkpoint in checkpoints:
            rating = next((r for r in checkpoint.ratings if r.name == name), None)
            finite = rating is not None and rating.is_finite
            games.append(checkpoint.games)
            elo.append(rating.elo if finite else np.nan)
            low.append(rating.low if finite else np.nan)
            high.append(rating.high if finite else np.nan)
        colour = colours(k % colours.N)
        ax.plot(games, elo, "o-", color=colour, label=name, markersize=3, linewidth=1.5)
        ax.fill_between(games, low, high, color=colour, alpha=0.15, linewidth=0)
    ax.axhline(0, color="0.75", linewidth=1, zorder=0)
    ax.set_xlabel("games played")
    ax.set_ylabel("Elo (95 % interval shaded)")
    ax.grid(color="0.92")
    ax.spines[["top", "right"]].set_visible(False)
    if names:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
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
