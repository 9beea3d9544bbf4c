"""Figures of a tournament: the Elo ladder with its intervals, its progression, the crosstable and
the game lengths.

Each ``*_figure`` function builds a :class:`matplotlib.figure.Figure` (never through pyplot, so no
display is needed and no global backend or figure state is touched); ``plot_*`` saves one as PNG for
the report directory, and :func:`to_svg` turns one into an inline ``<svg>`` element for the HTML
report.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from reports.entrants import shown
from reports.stats.progress import Checkpoint
from reports.stats.ratings import Rating
from reports.stats.standings import Crosstable, Standing
from reports.words import plural
from tournament.record import GameRecord, Termination

__all__ = [
    "CROSSTABLE_CMAP",
    "crosstable_figure",
    "elo_figure",
    "lengths_figure",
    "plot_crosstable",
    "plot_elo",
    "plot_progress",
    "progress_figure",
    "abbreviated",
    "to_svg",
]

CROSSTABLE_CMAP = "RdBu"
"""Red (score 0) through white (1/2) to blue (1): a diverging map that ColorBrewer rates safe for
colour-blind readers, unlike red-green, and whose ends stay apart in grey print."""

NAME_LIMIT = 24
"""The most characters of an agent's name a figure shows (:func:`abbreviated`): at the figures' 9 and
10 points, about 1.7 inches, so a name fits beside a panel, a row or a column of its own."""

TITLE_Y = 1.0
"""Where an Axes' title sits, in Axes coordinates: just above its top, where matplotlib would put it
itself, as these Axes have no tick labels or offset text on top to lift it over. Given, it is not
worked out again (the Axes' ticks measured once more) at each layout pass and each drawing: a
tenth fewer calls for a report's figures, the same pixels (benchmarks/figures.py)."""

_SEPARATORS = ":,=/_-. "  # where the parts of a name meet (kind:key=value,key=path/to/file.npz)

_FORFEIT_ABBREVIATIONS = {Termination.INVALID: "inv", Termination.TIMEOUT: "t/o", Termination.ERROR: "err"}


def abbreviated(names: Iterable[str], *, limit: int = NAME_LIMIT) -> dict[str, str]:
    """Each name's label in a figure: the one way the report shortens an agent's name.

    A pickled callable is named by its name (:func:`reports.entrants.shown`). A name of at most
    ``limit`` characters is its own label (``negamax``, ``one_step``). A longer one,
    such as a spec ``network:search=none,weights=/tmp/exp/old.npz``, keeps its start and its end (the
    kind and the file) around an ellipsis, ``limit`` characters in all: ``network:sea…/exp/old.npz``.
    Where that would label two of ``names`` alike (specs that differ only inside), each of those keeps
    instead the part where they differ, whole from one separator (one of ``:,=/_-.`` or a space) to
    the next, between ellipses, and may exceed ``limit``: ``netw…book=false…final.npz`` and
    ``netw…book=true…final.npz``.
    The full names are in the report's tables; a figure's rows are in the standings' order.

    Returns:
        ``{name: label}`` for every distinct name, in the order given.
    """
    distinct = list(dict.fromkeys(names))
    labels = {name: _shorten(shown(name), limit) for name in distinct}
    groups: dict[str, list[str]] = {}
    for name in distinct:
        groups.setdefault(labels[name], []).append(name)
    for group in groups.values():
        if len(group) > 1:
            labels.update(_distinguish(group, limit))
    return labels


def _shorten(name: str, limit: int) -> str:
    if len(name) <= limit:
        return name
    head = (limit - 1) // 2
    return name[:head] + "…" + name[len(name) - (limit - 1 - head) :]


def _distinguish(names: list[str], limit: int) -> dict[str, str]:
    """Labels for long names whose :func:`_shorten` labels coincide: the common start and end cut
    down around the part where the names differ, widened to whole parts between separators."""
    prefix = len(os.path.commonprefix(names))
    suffix = len(os.path.commonprefix([name[prefix:][::-1] for name in names]))
    common_start, common_end = names[0][:prefix], names[0][len(names[0]) - suffix :]
    cut = max(common_start.rfind(c) for c in _SEPARATORS) + 1  # 0: no separator, keep the part whole
    prefix = cut if cut else prefix
    cut = min((i for i in map(common_end.find, _SEPARATORS) if i >= 0), default=0)
    suffix -= cut
    budget = max(limit - max(len(name) - suffix - prefix for name in names) - 2, 8)  # for start and end
    head, tail = budget // 2, budget - budget // 2
    labels = {}
    for name in names:
        middle = name[prefix : len(name) - suffix]
        start = name[:prefix] if prefix <= head else name[:head] + "…"
        end = name[len(name) - suffix :] if suffix <= tail else "…" + name[len(name) - tail :]
        labels[name] = start + middle + end
    return labels


def plot_elo(ratings: Sequence[Rating], path: Path, *, title: str, scale: str = "Elo") -> None:
    """Save :func:`elo_figure` to ``path`` as PNG."""
    elo_figure(ratings, title=title, scale=scale).savefig(path, format="png", dpi=120)


def plot_progress(checkpoints: Sequence[Checkpoint], path: Path, *, title: str, scale: str = "Elo") -> None:
    """Save :func:`progress_figure` to ``path`` as PNG."""
    progress_figure(checkpoints, title=title, scale=scale).savefig(path, format="png", dpi=120)


def plot_crosstable(cross: Crosstable, standings: Sequence[Standing], path: Path, *, title: str) -> None:
    """Save :func:`crosstable_figure` to ``path`` as PNG."""
    crosstable_figure(cross, standings, title=title).savefig(path, format="png", dpi=120)


def to_svg(figure: Figure, *, key: str) -> str:
    """The figure as one ``<svg>`` element to inline in HTML, text kept as text (small, selectable).

    ``key`` (e.g. the figure's name) seeds the element ids matplotlib generates, so that several
    figures inlined in one page never share an id. The XML declaration and DOCTYPE are dropped, and
    so is the date matplotlib stamps in its metadata: a figure of the same games is the same text.
    """
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": key}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def elo_figure(ratings: Sequence[Rating], *, title: str, labels: bool = True, scale: str = "Elo") -> Figure:
    """Each player's Elo as a point with its 95 % interval, in the given order, on an axis labelled
    ``scale`` (where its zero is, e.g. :attr:`reports.report.Report.scale`).

    With ``labels`` (for a figure on its own), each row is labelled with :meth:`Rating.label` and the
    games played; without (beside a table that gives them), the figure is narrower. Names longer than
    :data:`NAME_LIMIT` are shortened (:func:`abbreviated`). ``title`` goes on
    top (e.g. the number of games and the configuration). A player whose rating is unbounded is drawn
    as an arrow from its one-sided bound; a missing interval is not drawn.
    """
    y = np.arange(len(ratings))[::-1]
    finite = [r.is_finite for r in ratings]
    bounds = [r.low if r.elo > 0 else r.high for r in ratings if not r.is_finite]
    values = [v for r in ratings for v in (r.elo, r.low, r.high) if np.isfinite(v)] + bounds
    span = (max(values) - min(values)) if values else 100.0
    size = (9, 1.6 + 0.42 * len(ratings)) if labels else (5, 1.1 + 0.27 * len(ratings))
    # Constrained, with 0.1 inch (not 3 points) at the sides: a tick label at the axis' end stays inside
    # in a browser's font too.
    fig = Figure(figsize=size, layout=ConstrainedLayoutEngine(w_pad=0.1))
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
        if labels:
            label = f"{rating.label()}  ·  {plural(rating.games, 'game')}"
            ax.text(1.02, row, label, transform=ax.get_yaxis_transform(), va="center", fontsize=9,
                    color="0.2")  # fmt: skip
    ax.set_ylim(-0.7, len(ratings) - 0.3)
    if values:  # room for the arrows, which do not widen the axis by themselves
        ax.set_xlim(min(values) - 0.2 * span - 10, max(values) + 0.2 * span + 10)
    names = abbreviated(r.name for r in ratings)
    ax.set_yticks(y, [names[r.name] for r in ratings])
    ax.set_xlabel(scale)
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=10, loc="left", y=TITLE_Y)
    return fig


def progress_figure(
    checkpoints: Sequence[Checkpoint], *, title: str, columns: int = 5, scale: str = "Elo"
) -> Figure:
    """Small multiples of the Elo progression: one panel per player, in the last checkpoint's order
    (best first), ``columns`` panels a row, all on the same axes; ``scale`` (where the Elo scale's
    zero is) goes after the title. A panel is titled with its player's rank and name, shortened as
    :func:`abbreviated` does.

    A panel draws its player's Elo against the games played, with the 95 % interval shaded, over the
    other players' lines in light grey for scale: a line only where the rating is finite. At a
    checkpoint where the player has no finite rating yet (it had won, or lost, every game against
    the rest, as early in a round robin, where one has met only a few others), its one-sided 95 %
    bound is marked instead, unjoined and hollow, in red: ``^`` for a lower bound, ``v`` for an upper
    one; so a player undefeated throughout still shows where it stands, and no bound reads as a
    rating.
    """
    names = [r.name for r in checkpoints[-1].ratings] if checkpoints else []
    labels = abbreviated(names)
    count = max(len(names), 1)
    width = min(count, columns)
    height = -(-count // width)
    fig = Figure(figsize=(0.6 + 2.3 * width, 0.85 + 1.35 * height), layout="constrained")
    axes = fig.subplots(height, width, sharex=True, sharey=True, squeeze=False).flat
    games = [checkpoint.games for checkpoint in checkpoints]
    series = {name: _progress_series(checkpoints, name) for name in names}
    for k, ax in enumerate(axes):
        if k >= len(names):
            ax.set_visible(False)
            continue
        name = names[k]
        for other, (elo, _, _, _, _) in series.items():
            if other != name:
                ax.plot(games, elo, color="0.85", linewidth=0.8, zorder=1)
        elo, low, high, above, below = series[name]
        ax.fill_between(games, low, high, color="tab:blue", alpha=0.18, linewidth=0, zorder=2)
        ax.plot(games, elo, "o-", color="tab:blue", markersize=2.5, linewidth=1.4, zorder=3)
        for bound, marker in ((above, "^"), (below, "v")):
            ax.plot(games, bound, marker, color="tab:red", markerfacecolor="none", markersize=4.5,
                    markeredgewidth=1, linestyle="none", zorder=3)  # fmt: skip
        ax.axhline(0, color="0.7", linewidth=0.8, zorder=0)
        ax.set_title(f"{k + 1}. {labels[name]}", fontsize=9, loc="left", y=TITLE_Y)
        ax.tick_params(labelsize=8)
        ax.grid(color="0.94")
        ax.spines[["top", "right"]].set_visible(False)
        if k + width >= len(names):  # the lowest panel of its column: it carries the x labels
            ax.tick_params(labelbottom=True)
            ax.set_xlabel("games played", fontsize=8)
    fig.supylabel("Elo", fontsize=9)
    handles = [
        Line2D([], [], color="tab:blue", marker="o", markersize=2.5, label="Elo"),
        Patch(color="tab:blue", alpha=0.18, label="95 % interval"),
        Line2D(
            [],
            [],
            color="tab:red",
            marker="^",
            markerfacecolor="none",
            linestyle="none",
            label="no finite Elo yet: its one-sided 95 % bound",
        ),  # fmt: skip
        Line2D([], [], color="0.85", label="the other agents"),
    ]
    legend = 4 if width > 2 else width  # one or two panels: the legend in as many columns, to fit
    fig.legend(handles=handles, loc="outside lower center", ncols=legend, fontsize=8, frameon=False)
    fig.suptitle(f"{title} · {scale}", fontsize=10, x=0.01, ha="left", wrap=True)  # wrapped if too long
    return fig


def _progress_series(checkpoints: Sequence[Checkpoint], name: str) -> tuple[list[float], ...]:
    """``name``'s Elo, interval low and high, lower bound and upper bound at each checkpoint; nan
    where a value does not apply (a bound where the rating is finite, and so on)."""
    series: tuple[list[float], ...] = ([], [], [], [], [])
    nan = np.nan
    for checkpoint in checkpoints:
        rating = next((r for r in checkpoint.ratings if r.name == name), None)
        if rating is None:
            values = (nan, nan, nan, nan, nan)
        elif rating.is_finite:
            values = (rating.elo, rating.low, rating.high, nan, nan)
        else:
            unbounded = not np.isnan(rating.elo)
            above = rating.low if unbounded and rating.elo > 0 else nan
            values = (nan, nan, nan, above, rating.high if unbounded and rating.elo < 0 else nan)
        for values_of, value in zip(series, values, strict=True):
            values_of.append(value)
    return series


def crosstable_figure(cross: Crosstable, standings: Sequence[Standing], *, title: str) -> Figure:
    """A heatmap of the row agent's score per game against the column agent, rows and columns in
    rank order (``cross.order``).

    Cells are coloured by score per game on :data:`CROSSTABLE_CMAP` (0 red, 1/2 white, 1 blue) and
    annotated with the row agent's wins-draws-losses, and under them its forfeits in those games
    (``2 inv 1 t/o``: invalid actions, time-outs, errors); pairings that never met are grey. Each
    row's label carries the agent's forfeits over all its games (from ``standings``), so a forfeiting
    agent shows even where the cells are small. Names are shortened as :func:`abbreviated` does.
    """
    order = cross.order
    size = len(order)
    totals = {line.agent: (line.invalid, line.timeouts, line.errors) for line in standings}
    names = abbreviated(order)
    labels = []
    for name in order:
        lost = [
            f"{count} {abbreviation}"
            for count, abbreviation in zip(totals[name], _FORFEIT_ABBREVIATIONS.values(), strict=True)
            if count
        ]
        labels.append(f"{names[name]} ({', '.join(lost)})" if lost else names[name])
    scores = [[np.nan if value is None else value for value in row] for row in cross.score]
    fraction = np.ma.masked_invalid(np.array(scores, dtype=float).reshape(size, size))
    inches = 0.085 * max(map(len, labels), default=0)  # of the longest label, at 10 points
    width, height = max(6.0, 2.2 + inches + 1.0 * size), 1.6 + 0.5 * inches + 0.8 * size
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(fraction, cmap=colormaps[CROSSTABLE_CMAP].with_extremes(bad="0.88"), vmin=0.0, vmax=1.0)
    for i in range(size):
        for j in range(size):
            wdl = cross.wdl[i][j]
            if wdl is None:
                continue
            dark = abs(fraction[i, j] - 0.5) > 0.3  # the saturated ends of the colour map
            colour = "white" if dark else "black"
            lost = [f"{count} {_FORFEIT_ABBREVIATIONS[kind]}" for kind, count in cross.forfeits[i][j].items()]
            text = f"{wdl.wins}-{wdl.draws}-{wdl.losses}"
            ax.text(j, i - (0.12 if lost else 0), text, ha="center", va="center", fontsize=9, color=colour)
            if lost:
                ax.text(j, i + 0.22, " ".join(lost), ha="center", va="center", fontsize=7.5,
                        color=colour, fontweight="bold")  # fmt: skip
    ax.set_xticks(
        range(size), [names[name] for name in order], rotation=35, ha="right", rotation_mode="anchor"
    )
    ax.set_yticks(range(size), labels)
    ax.set_xlabel("opponent")
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    fig.colorbar(image, ax=ax, shrink=0.8, label="score per game of the row agent")
    # From the figure's left edge, not the heatmap's (which the row labels push right), so that it fits.
    fig.suptitle(f"{title}\ncells: W-D-L of the row agent, then its forfeits (inv / t/o / err)", fontsize=10,
                 x=0.01, ha="left", wrap=True)  # fmt: skip
    return fig


def lengths_figure(records: Sequence[GameRecord], *, title: str) -> Figure:
    """A histogram of game lengths in plies (the opening included), one bar per length, stacked by
    how the games ended: won by N in a row, drawn, forfeited."""
    ends = {
        "won (N in a row)": [Termination.WIN],
        "drawn": [Termination.DRAW],
        "forfeited": [Termination.INVALID, Termination.TIMEOUT, Termination.ERROR],
    }
    lengths = [len(record.moves) for record in records]
    bins = list(np.arange(min(lengths, default=0), max(lengths, default=0) + 2) - 0.5)
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    ax = fig.add_subplot()
    stacks = [[len(r.moves) for r in records if r.termination in kinds] for kinds in ends.values()]
    colours = ["#4477aa", "#bbbbbb", "#ee6677"]  # Paul Tol's colour-blind-safe "bright" scheme
    ax.hist(
        stacks, bins=bins, stacked=True, label=list(ends), color=colours, edgecolor="white", linewidth=0.5
    )
    ax.set_xlabel("plies (the opening included)")
    ax.set_ylabel("games")
    ax.grid(axis="y", color="0.92")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=9, frameon=False)
    ax.set_title(title, fontsize=10, loc="left", y=TITLE_Y)
    return fig
