"""Two or more runs side by side: what changed for the agents they share (:func:`compare`).

Elo is relative to each run's own zero (the mean of its rated pool, or its only agent rated finitely),
so a rating moves when the pool changes even if the agent did not. Scores
against the same opponents compare directly, hence the second table: every agent of every run against
each agent that all runs share.

**Which agents are the same.** An agent is known across runs by its name, :func:`reports.entrants.short_names`
of its entrant spec: ``bots/v1/mine.py`` in one run and ``bots/v2/mine.py`` in the next are two
versions of ``mine``, and line up on one row. Versions whose names differ (``mine_v1.py``,
``mine_v2.py``) are joined explicitly by a pair, ``("mine_v1", "mine_v2")`` (``connectx report``
takes it as an option): each pair names one agent per run, by name or spec, and its row is labelled
``mine_v1 → mine_v2``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reports.entrants import short_names
from reports.report import Report
from reports.stats.headtohead import WDL
from reports.stats.standings import Standing
from reports.stats.tally import oriented

__all__ = ["AgentLine", "Comparison", "PairError", "Run", "RunCell", "VersusRow", "compare", "match_agents"]


class PairError(ValueError):
    """One of the pairs given to :func:`compare` cannot join agents: ``pair`` its names, ``problem``
    why."""

    def __init__(self, pair: Sequence[str], problem: str) -> None:
        super().__init__(f"pair {'='.join(pair)}: {problem}")
        self.pair, self.problem = tuple(pair), problem


@dataclass(frozen=True, slots=True)
class Run:
    """One compared run: its name, its report's path relative to the comparison, its header, and where
    its Elo scale's zero is (:attr:`reports.report.Report.scale`)."""

    name: str
    link: str
    games: str
    openings: str
    time_control: str
    scale: str


@dataclass(frozen=True, slots=True)
class RunCell:
    """An agent in one run: its entrant spec there, its standings line and its median seconds a move."""

    spec: str
    standing: Standing
    median_move: float


@dataclass(frozen=True, slots=True)
class AgentLine:
    """An agent across the runs: ``agent`` its name (``v1 → v2`` for versions joined by a pair),
    ``cells[k]`` in run ``k`` (None where it did not play), and the change of its score in percentage
    points from the first run it played to the last (None unless it played in two runs or more)."""

    agent: str
    cells: list[RunCell | None]
    change: float | None


@dataclass(frozen=True, slots=True)
class VersusRow:
    """Agent ``agent`` (a name, as in :class:`AgentLine`) of run ``run`` (an index) against each shared
    agent: ``results[j]`` against ``Comparison.shared[j]`` (None against itself or where they never
    met), and ``total`` over all those games."""

    run: int
    agent: str
    results: list[WDL | None]
    total: WDL


@dataclass(frozen=True, slots=True)
class Comparison:
    """The compared runs; ``shared``: the names of the agents in every run (in the first run's
    standings order); ``agents``: every agent, shared ones first; ``versus``: every run's agents
    against ``shared``."""

    runs: list[Run]
    shared: list[str]
    agents: list[AgentLine]
    versus: list[VersusRow]


def compare(
    reports: Sequence[Report],
    directories: Sequence[Path],
    out_dir: Path,
    pairs: Sequence[Sequence[str]] = (),
) -> Comparison:
    """Compare the runs of ``reports``, stored in ``directories`` (same order); links to each run's
    ``report.html`` are made relative to ``out_dir``, where the comparison is written.

    Agents are matched across runs by name (see the module docstring); each of ``pairs`` is a set of
    names or specs (``("mine_v1", "mine_v2")``) that are one agent, at most one of them in each run.

    Raises:
        ValueError: fewer than two reports, or not one directory per report.
        PairError: a pair naming no agent, naming an agent that another pair names, or two agents of
            one run.
    """
    if len(reports) < 2 or len(reports) != len(directories):
        raise ValueError("compare needs two reports or more, one directory each")
    runs = [
        Run(
            report.header.name,
            Path(os.path.relpath(Path(directory) / "report.html", out_dir)).as_posix(),
            report.header.games,
            report.header.openings,
            report.header.time_control,
            report.scale,
        )
        for report, directory in zip(reports, directories, strict=True)
    ]
    lineups = match_agents(  # run -> {name: spec}, standings order
        [(report.header.name, [line.agent for line in report.standings]) for report in reports], pairs
    )
    shared = [name for name in lineups[0] if all(name in lineup for lineup in lineups[1:])]
    others = [name for lineup in lineups for name in lineup if name not in shared]
    agents = []
    for name in shared + list(dict.fromkeys(others)):
        cells = [_cell(report, lineup.get(name)) for report, lineup in zip(reports, lineups, strict=True)]
        played = [cell.standing.score_pct for cell in cells if cell is not None]
        change = played[-1] - played[0] if len(played) > 1 else None
        agents.append(AgentLine(name, cells, change))
    versus = []
    for k, (report, lineup) in enumerate(zip(reports, lineups, strict=True)):
        h2h = report.h2h
        for name, spec in lineup.items():
            results = [
                oriented(h2h, spec, lineup[other]) if _met(h2h, spec, lineup[other]) else None
                for other in shared
            ]
            total = sum((result for result in results if result is not None), WDL())
            versus.append(VersusRow(k, name, results, total))
    return Comparison(runs, shared, agents, versus)


def match_agents(
    runs: Sequence[tuple[str, Sequence[str]]], pairs: Sequence[Sequence[str]]
) -> list[dict[str, str]]:
    """Each run's agents by the name they are compared under, in the order given: ``runs`` holds each
    run's name and agents' specs; ``pairs`` as :func:`compare`'s. Needs no report, so that a command
    can refuse its ``pairs`` before it writes any.

    Raises:
        PairError: a pair naming no agent of any run, naming an agent that another pair names, or
            two agents of one run.
    """
    lineups = [_lineup(name, specs, pairs) for name, specs in runs]
    for pair in pairs:
        if not any(" → ".join(dict.fromkeys(pair)) in lineup for lineup in lineups):
            raise PairError(pair, "no run has an agent of those names")
    return lineups


def _lineup(run: str, specs: Sequence[str], pairs: Sequence[Sequence[str]]) -> dict[str, str]:
    """The agents ``specs`` of the run named ``run`` by the name each is compared under, in order.

    Raises :class:`PairError` for a pair naming two agents of the run, or an agent two pairs name."""
    names = short_names(list(specs))
    paired: set[str] = set()
    for pair in pairs:
        matched = [spec for spec in specs if spec in pair or names[spec] in pair]
        if len(matched) > 1:
            raise PairError(pair, f"it names {len(matched)} agents of {run}")
        if matched and matched[0] in paired:
            raise PairError(pair, f"it names {matched[0]} of {run}, as another pair does")
        paired.update(matched)
        for spec in matched:
            names[spec] = " → ".join(dict.fromkeys(pair))
    return {names[spec]: spec for spec in specs}


def _met(h2h: dict[tuple[str, str], WDL], a: str, b: str) -> bool:
    return a != b and ((a, b) in h2h or (b, a) in h2h)


def _cell(report: Report, spec: str | None) -> RunCell | None:
    if spec is None:
        return None
    standing = next(row for row in report.standings if row.agent == spec)
    use = next(row for row in report.time_use if row.agent == spec)
    return RunCell(spec, standing, use.median)
