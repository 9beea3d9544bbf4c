"""The Markdown report: the HTML report's sections as GitHub-renderable text, figures as PNG links.

:func:`render` lays out a :class:`reports.report.Report`; the figures it links (``elo.png``,
``elo_progress.png``, ``crosstable.png``) are the ones :func:`reports.render.write.write_reports` writes
beside it. Markdown has no script, so instead of replays each game lists its moves in Pons'
notation (1-based columns), which ``connectx solve`` reads. :func:`render_comparison`
(:mod:`reports.render.markdown_comparison`) does the same for a :class:`reports.compare.Comparison`.

Tables are pipe tables; a cell's ``|`` is escaped and a forfeit's message, which may be a multi-line
traceback, goes in a fenced code block of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agents.kit.clock import DEFAULT_OVERAGE
from reports.durations import format_seconds
from reports.entrants import shown
from reports.render.markdown_comparison import render_comparison
from reports.render.markdown_parts import fenced, table, wdl_cell
from reports.report import Report
from reports.review import Review
from reports.stats.ratings import Rating
from reports.stats.standings import Standing
from reports.words import plural
from tournament.record import Termination

__all__ = ["FIGURES", "render", "render_comparison"]

FIGURES = {
    "elo.png": "Elo ratings with 95 % intervals",
    "elo_progress.png": "Elo progression",
    "crosstable.png": "Crosstable",
}
"""The PNG files the Markdown report shows, with their alt texts."""


def render(report: Report) -> str:
    """The report as Markdown text (write it as UTF-8 to ``report.md`` beside the PNGs)."""
    lines = [f"# {report.title}", "", table(["run", ""], report.header.rows()), ""]
    lines += _entrants(report)
    lines += ["## Standings", ""]
    lines += [_standings(report.standings, report.review.versus if report.review else {}), ""]
    lines += [f"- {note}" for note in report.notes]
    if report.review is not None:
        lines += ["", *_accuracy(report.review)]
    lines += ["", "## Plots", ""]
    for name, alt in FIGURES.items():
        if name != "crosstable.png":  # shown in its own section
            lines += [f"![{alt}]({name})", ""]
    lines += _crosstable(report)
    lines += _by_colour(report)
    lines += _terminations(report)
    lines += _forfeits(report)
    lines += _time_use(report)
    lines += _lengths(report)
    lines += _games(report)
    return "\n".join(lines)


def _entrants(report: Report) -> list[str]:
    """The entrants: each spec, its kind, description, parameters and file hash."""
    return [
        "## Entrants",
        "",
        table(
            ["spec", "kind", "what it is", "parameters", "SHA-256 of the file (when reported)"],
            [(f"`{e.spec}`", e.kind, e.description, e.params, e.sha256) for e in report.entrants],
        ),
        "",
    ]


def _crosstable(report: Report) -> list[str]:
    """The crosstable's figure, its wins-draws-losses and forfeits, and the likelihood of superiority."""
    cross = report.crosstable
    return [
        "",
        "## Crosstable",
        "",
        f"![{FIGURES['crosstable.png']}](crosstable.png)",
        "",
        "The row agent's wins-draws-losses against the column agent, and its forfeits in those games.",
        "",
        table(
            ["", *map(shown, cross.order)],
            [
                (shown(name), *(wdl_cell(w) + _forfeited(f) for w, f in zip(wdl, lost, strict=True)))
                for name, wdl, lost in zip(cross.order, cross.wdl, cross.forfeits, strict=True)
            ],
        ),
        "",
        "### Likelihood of superiority",
        "",
        table(
            ["", *map(shown, cross.order)],
            [
                (shown(name), *("" if value is None else f"{100 * value:.1f} %" for value in row))
                for name, row in zip(cross.order, cross.los, strict=True)
            ],
        ),
        "",
    ]


def _by_colour(report: Report) -> list[str]:
    """Each agent's results as first and as second player, by opponent and over all of them."""
    return [
        "## By colour",
        "",
        table(
            ["agent", "opponent", "as first", "as second"],
            [
                (
                    shown(row.agent) if not row.opponent else "",
                    shown(row.opponent) if row.opponent else "**all opponents**",
                    wdl_cell(row.first),
                    wdl_cell(row.second),
                )  # fmt: skip
                for row in report.by_colour
            ],
        ),
        "",
    ]


def _terminations(report: Report) -> list[str]:
    """How each agent's games ended: connected, drawn, or forfeited by either side."""
    inarow = report.settings.inarow
    return [
        "## Terminations",
        "",
        table(
            [
                "agent",
                "games",
                f"won, {inarow} in a row",
                f"lost, {inarow} in a row",
                "drawn",
                "won: opponent invalid / timeout / error",
                "lost: own invalid / timeout / error",
            ],  # fmt: skip
            [
                (
                    shown(row.agent),
                    row.games,
                    row.connected_wins,
                    row.connected_losses,
                    row.draws,
                    " / ".join(map(str, row.opponent_forfeits.values())),
                    " / ".join(map(str, row.own_forfeits.values())),
                )  # fmt: skip
                for row in report.terminations
            ],
        ),
        "",
    ]


def _forfeits(report: Report) -> list[str]:
    """Every forfeit, its message in a fenced block."""
    forfeits = report.forfeits
    lines = [f"### Forfeits ({len(forfeits)})", ""]
    if not forfeits:
        lines += ["No agent forfeited a game.", ""]
    for forfeit in forfeits:
        lines += [
            f"- game {forfeit.game_id}: **{shown(forfeit.agent)}** ({forfeit.kind}, after ply {forfeit.ply}) "
            f"against {shown(forfeit.opponent)}",
            "",
            *fenced(forfeit.detail or "(no message)"),
            "",
        ]
    return lines


def _time_use(report: Report) -> list[str]:
    """Seconds per agent call and the most of the overage bank drawn in one game."""
    return [
        "## Time use",
        "",
        "Seconds per agent call (the opening excluded); the most of the "
        f"{DEFAULT_OVERAGE:g} s overage bank drawn in one game.",
        "",
        table(
            ["agent", "calls", "median", "p95", "max", "most bank used", "in game"],
            [
                (
                    shown(t.agent),
                    t.calls,
                    format_seconds(t.median),
                    format_seconds(t.p95),
                    format_seconds(t.max),
                    f"{t.bank_used:.2f} s",
                    "" if t.bank_game is None else t.bank_game,
                )  # fmt: skip
                for t in report.time_use
            ],
        ),
        "",
    ]


def _lengths(report: Report) -> list[str]:
    """Game lengths in plies, over all games and by pairing."""
    return [
        "## Game lengths",
        "",
        "Plies, the opening included.",
        "",
        table(
            ["games of", "games", "shortest", "median", "mean", "longest"],
            [
                (g.label, g.games, g.shortest, f"{g.median:g}", f"{g.mean:.1f}", g.longest)
                for g in report.lengths
            ],
        ),
        "",
    ]


def _games(report: Report) -> list[str]:
    """Every game by pairing, its moves in Pons' notation."""
    lines = [
        "## Games",
        "",
        "Moves in Pons' notation (1-based columns, the opening included): `echo MOVES | python -m "
        "agents.engine.solver` scores the final position. The HTML report replays every game.",
        "",
    ]
    for pairing in report.pairings:
        lines += [f"### {pairing.a} v {pairing.b}", ""]
        lines += [
            table(
                ["game", "first", "second", "opening", "result", "ending", "plies", "moves"],
                [
                    (
                        g.game_id,
                        g.first,
                        g.second,
                        f"`{g.opening}`",
                        g.result,
                        g.ending,
                        g.plies,
                        f"`{g.moves}`",
                    )  # fmt: skip
                    for g in pairing.games
                ],
            ),
            "",
        ]
    return lines


def _accuracy(review: Review) -> list[str]:
    """The move analysis: each agent's accuracy against perfect play, a short table."""
    return [
        "## Against perfect play",
        "",
        f"Every move of {plural(review.games, 'game')} judged by the solved game (`moves.csv`). "
        "A mistake changes the outcome its side had (win → draw, draw → loss, win → loss); "
        "an inaccuracy wins slower or loses faster. The HTML report links each agent's worst moves to "
        "their replays.",
        "",
        table(
            [
                "agent",
                "moves",
                "best",
                "inaccuracies",
                "mistakes",
                "first mistake (median ply)",
                "lost games decided by its own mistake",
            ],  # fmt: skip
            [
                (
                    shown(a.agent),
                    a.moves,
                    f"{100 * a.best_share:.1f} %",
                    a.inaccuracies,
                    a.mistakes,
                    "-" if a.first_mistake_ply is None else f"{a.first_mistake_ply:g}",
                    f"{a.lost_by_own_mistake} of {a.lost}" if a.lost else "-",
                )  # fmt: skip
                for a in (line.accuracy for line in review.accuracy)
            ],
        ),
    ]


def _standings(standings: Sequence[Standing], versus: Mapping[str, Rating]) -> str:
    """The standings table; with ``versus`` (each agent's Elo relative to perfect play), a column of it
    after the interval."""
    extra = ["vs perfect play"] if versus else []
    return table(
        [
            "#",
            "agent",
            "Elo",
            "95 % interval",
            *extra,
            "games",
            "W",
            "D",
            "L",
            "score",
            "invalid",
            "timeouts",
            "errors",
        ],  # fmt: skip
        [
            (
                s.rank,
                shown(s.agent),
                s.rating.estimate(),
                s.rating.interval(),
                *([versus[s.agent].cell()] if versus else []),
                s.games,
                s.wins,
                s.draws,
                s.losses,
                f"{s.score_pct:.1f} %",
                s.invalid,
                s.timeouts,
                s.errors,
            )  # fmt: skip
            for s in standings
        ],
    )


def _forfeited(counts: dict[Termination, int]) -> str:
    """`` (2 invalid, 1 timeout)``: forfeits by kind, or "" for none."""
    return f" ({', '.join(f'{count} {kind}' for kind, count in counts.items())})" if counts else ""
