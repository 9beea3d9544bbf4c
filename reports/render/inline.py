"""A tournament's result as a notebook shows it inline (Jupyter's ``_repr_html_``): :func:`result_html`
(standings, Elo figure, crosstable) and :func:`replay_html` (one game's replay).

Both are HTML fragments built from report.html's own pieces, so that the two never differ: the
standings table and the replay player's elements (``templates/parts.html.j2``), the player's script
and styles (``player.js.j2``, ``player.css.j2``), the figures (:func:`reports.render.html.figures`)
and the replay data (:attr:`reports.report.Report.replays`).

What a notebook page asks of them, beyond the report:

* Self-contained, and alive without the kernel: styles, inline SVG figures and plain JavaScript are all
  in the fragment, which fetches nothing and uses no widget and no kernel message; a saved notebook
  shows it again as it was.
* Several on one page: each fragment has an id of its own (``cx-`` and 12 random hex digits), which
  prefixes its player's element ids and scopes its styles (every rule nested in ``#id``, the SVG
  figures' own rule too), and its script defines no global.
* Small: a result carries no replay, a replay only its own game's data. A result grows with the agents,
  not the games: 49 KB for a 100-game round robin of five agents, 133 KB for 182 games of fourteen
  (``tests/test_inline.py`` bounds a 100-game result at 1 MB); a replay is about 22 KB.
* Legible in a dark theme: the colours follow JupyterLab's theme variables, and the player's light
  backgrounds turn dark under JupyterLab's and VS Code's dark themes.
"""

from __future__ import annotations

import numbers
import re
import uuid

from reports.games import GameRow
from reports.render.html import environment, figures
from reports.report import Report

__all__ = ["UnknownGame", "replay_html", "result_html"]


class UnknownGame(KeyError):
    """A game id that is not one of the result's games; its message is one sentence."""

    def __str__(self) -> str:
        return str(self.args[0])


def result_html(report: Report) -> str:
    """The result of a tournament as an inline HTML fragment: the title line, the standings with
    their notes (as report.html shows them), the Elo figure beside them and the crosstable figure
    under them, both inline SVG (no replay: see :func:`replay_html`).
    """
    scope = _scope()
    svg = {
        name: _scoped(text, scope) for name, text in figures(report, ("elo", "crosstable"), key=scope).items()
    }
    return environment().get_template("result.html.j2").render(report=report, svg=svg, scope=scope)


def replay_html(report: Report, game_id: int) -> str:
    """Game ``game_id`` of ``report`` as an inline replay, report.html's player: the board, step
    controls (first, back, play, forward, last, a slider; the arrow keys, Home, End and space once
    clicked), the players and the result, and with the run's move analysis (``report.review``) each
    move's verdict, the best columns and the value graph. It carries only this game's replay data.

    Raises:
        TypeError: ``game_id`` is not an integer.
        UnknownGame: (a KeyError) no game of that id in ``report``; its message gives the ids there are.
    """
    if isinstance(game_id, bool) or not isinstance(game_id, numbers.Integral):
        raise TypeError(f"a game id is an integer, not {type(game_id).__name__} {game_id!r}")
    games = report.replays["games"]
    key = str(int(game_id))
    if key not in games:
        ids = sorted(map(int, games))
        raise UnknownGame(
            f"no game {key} in this tournament: its {len(ids)} games have ids {ids[0]} to {ids[-1]}"
        )
    data = {"agents": report.replays["agents"], "games": {key: games[key]}}
    scope = _scope()
    return (
        environment()
        .get_template("replay.html.j2")
        .render(scope=scope, data=data, game=key, title=_title(_row(report, int(key))))
    )


def _scope() -> str:
    """A fresh id for one fragment: ``cx-`` and 12 random hex digits."""
    return f"cx-{uuid.uuid4().hex[:12]}"


def _scoped(svg: str, scope: str) -> str:
    """``svg`` (matplotlib's) with the rules of its ``<style>`` limited to its own fragment: in an HTML
    page, a style element inside an inline ``<svg>`` applies to the whole page."""
    return re.sub(r"(<style[^>]*>)\s*\*\s*\{", rf"\1#{scope} svg *{{", svg)


def _row(report: Report, game_id: int) -> GameRow:
    return next(game for pairing in report.pairings for game in pairing.games if game.game_id == game_id)


def _title(row: GameRow) -> str:
    """What the replay says of its game before its script draws it: ``Game 5: alpha (first) v beta
    (second), 1-0 (4 in a row)``."""
    return f"Game {row.game_id}: {row.first} (first) v {row.second} (second), {row.result} ({row.ending})"
