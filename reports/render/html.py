"""The HTML report: one self-contained page a person opens in a browser, with every game replayable.

:func:`render` lays out a :class:`reports.report.Report` with the Jinja2 template
``reports/render/templates/report.html.j2``; :func:`render_comparison` does the same for a
:class:`reports.compare.Comparison` (``comparison.html.j2``).

Why it looks the way it does:

* Self-contained: the styles, the figures (matplotlib SVG, inline; text kept as text) and the replay
  player (a few dozen lines of plain JavaScript in the template) are all in the file, which fetches
  nothing and opens from ``file://``. There is no ``http(s)://`` script, style or image source.
* Small: the games reach the player as compact JSON (:func:`reports.games.replay_data`, a few bytes
  a move), and one player serves every game, instead of one rendered replay per game. A 1,000-game
  round-robin makes a page of well under 10 MB (docs/tournaments.md gives the measured size).
* Kaggle's own renderer (``env.render(mode="html")``) was not used: its page for one game of two
  random agents is 630 KB (its player and the episode's every step), which is 630 MB for 1,000 games.
* Long names: an agent's name is its spec (``network:search=none,weights=/tmp/exp/old.npz``), and
  the tables show it whole, wrappable after its ``:``, ``,`` and ``/`` (the ``agent`` filter), and
  scroll sideways inside their own box when still too wide; the figures shorten names
  (:func:`reports.render.plots.abbreviated`) and sit beside or above the tables that give them whole.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from jinja2 import BaseLoader, ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from agents.kit.clock import DEFAULT_OVERAGE
from reports.compare import Comparison
from reports.durations import format_seconds
from reports.entrants import shown
from reports.render.plots import crosstable_figure, elo_figure, lengths_figure, progress_figure, to_svg
from reports.report import Report
from reports.stats.headtohead import WDL
from reports.words import plural

__all__ = ["FIGURES", "context", "environment", "figures", "render", "render_comparison"]

FIGURES = ("elo", "progress", "crosstable", "lengths")
"""The figures of report.html, by name (:func:`figures`)."""


def render(report: Report) -> str:
    """The report as one HTML page (a ``str``; write it as UTF-8)."""
    return environment().get_template("report.html.j2").render(**context(report))


def context(report: Report) -> dict[str, object]:
    """What ``report.html.j2`` reads: ``report``, its figures (``svg``, :func:`figures`) and ``bank``
    (Kaggle's overage bank, seconds). A page that extends the template renders it with the same
    context."""
    return {"report": report, "svg": figures(report), "bank": DEFAULT_OVERAGE}


def figures(report: Report, names: Iterable[str] = FIGURES, *, key: str = "") -> dict[str, str]:
    """The report's figures ``names`` (of :data:`FIGURES`: ``elo``, ``progress``, ``crosstable``,
    ``lengths``) as inline SVG, by name. ``key`` is added to each figure's name to seed the ids its
    elements refer to (clip paths, markers; :func:`reports.render.plots.to_svg`), so that figures of
    different pages shown in one document (a notebook's) never resolve each other's."""
    title = f"{plural(len(report.records), 'game')} · {report.header.board}"
    draw = {
        "elo": lambda: elo_figure(
            report.ratings, title="Elo, 95 % intervals", labels=False, scale=report.scale
        ),
        "progress": lambda: progress_figure(
            report.progress, title=f"Elo progression · {title}", scale=report.scale
        ),
        "crosstable": lambda: crosstable_figure(
            report.crosstable, report.standings, title=f"Crosstable · {title}"
        ),
        "lengths": lambda: lengths_figure(report.records, title=f"Game lengths · {title}"),
    }
    return {name: to_svg(draw[name](), key=name + key) for name in names}


def render_comparison(comparison: Comparison) -> str:
    """The comparison of several runs as one HTML page (a ``str``; write it as UTF-8)."""
    return environment().get_template("comparison.html.j2").render(comparison=comparison)


def environment(loader: BaseLoader | None = None) -> Environment:
    """The Jinja2 environment of the reports' templates (``reports/render/templates``) and their
    filters (``seconds``, ``wdl``, ``shade``, ``agent``). ``loader`` is asked for a template first,
    then the reports' own: a page of another package extends ``report.html.j2`` by name."""
    own = PackageLoader("reports.render", "templates")
    env = Environment(
        loader=own if loader is None else ChoiceLoader([loader, own]),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # Compact JSON for the replay data: no spaces, keys in the order written.
    env.policies["json.dumps_kwargs"] = {"separators": (",", ":"), "sort_keys": False}
    env.filters["seconds"] = format_seconds
    env.filters["wdl"] = _wdl
    env.filters["shade"] = _shade
    env.filters["agent"] = _agent
    return env


def _agent(name: str) -> Markup:
    """An agent's name, escaped, with a ``<wbr>`` (a line break allowed, nothing shown or copied)
    after each ``:``, ``,`` and ``/``, so that a spec wraps between its parts in a narrow column
    (``network:<wbr>search=none,<wbr>weights=/<wbr>tmp/…``); a name without them is left as it is. A
    pickled callable shows its name (:func:`reports.entrants.shown`)."""
    return Markup(re.sub(r"([:,/])", r"\1<wbr>", str(escape(shown(name)))))


def _wdl(wdl: WDL | None) -> str:
    """``3-1-0``: wins-draws-losses, or "" for None."""
    return "" if wdl is None else f"{wdl.wins}-{wdl.draws}-{wdl.losses}"


def _shade(value: float | None) -> str:
    """A CSS background for a 0..1 value: blue above 1/2, red below, stronger further away (the
    crosstable's colour-blind-safe pair); "" for None or nan."""
    if value is None or math.isnan(value):
        return ""
    strength = min(1.0, abs(value - 0.5) * 2) * 0.55
    rgb = "33, 102, 172" if value >= 0.5 else "178, 24, 43"
    return f"background: rgba({rgb}, {strength:.2f})"
