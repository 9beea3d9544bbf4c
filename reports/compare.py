"""Two or more runs side by side: what changed for the agents they share (:func:`compare`).

Elo is relative to each run's own pool (its mean is 0), so a rating moves when the pool changes even
if the agent did not. Scores against the same opponents compare directly, hence the second table: every
agent of every run against each agent that all runs share. For an agent's v1 in run A and v2 in run B,
their rows there line up opponent by opponent.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reports.report import Report
from reports.stats.headtohead import WDL
from reports.stats.sections import TimeUse
from reports.stats.standings import Standing
from reports.stats.tally import oriented

__all__ = ["AgentLine", "Comparison", "Run", "RunCell", "VersusRow", "compare"]


@dataclass(frozen=True, slots=True)
class Run:
    """One compared run: its name, its report's path relative to the comparison, and its header."""

    name: str
    link: str
    games: str
    openings: str
    time_control: str


@dataclass(frozen=True, slots=True)
class RunCell:
    """An agent in one run: its standings line and its median seconds a move."""

    standing: Standing
    median_move: float


@dataclass(frozen=True, slots=True)
class AgentLine:
    """An agent across the runs: ``cells[k]`` in run ``k`` (None where it did not play), and the
    change of its score in percentage points from the first run it played to the last (None unless
    it played in two runs or more)."""

    agent: str
    cells: list[RunCell | None]
    change: float | None


@dataclass(frozen=True, slots=True)
class VersusRow:
    """Agent ``agent`` of run ``run`` (an index) against each shared agent: ``results[j]`` against
    ``Comparison.shared[j]`` (None against itself), and ``total`` over all those games."""

    run: int
    agent: str
    results: list[WDL | None]
    total: WDL


@dataclass(frozen=True, slots=True)
class Comparison:
    """The compared runs; ``shared``: agents in every run (in the first run's standings order);
    ``agents``: every agent, shared ones first; ``versus``: every run's agents against ``shared``."""

    runs: list[Run]
    shared: list[str]
    agents: list[AgentLine]
    versus: list[VersusRow]


def compare(reports: Sequence[Report], directories: Sequence[Path], out_dir: Path) -> Comparison:
    """Compare the runs of ``reports``, stored in ``directories`` (same order); links to each run's
    ``report.html`` are made relative to ``out_dir``, where the comparison is written.

    Raises:
        ValueError: fewer than two reports, or not one directory per report.
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
        )
        for report, directory in zip(reports, directories, strict=True)
    ]
    lineups = [[row.agent for row in report.standings] for report in reports]
    shared = [name for name in lineups[0] if all(name in lineup for lineup in lineups[1:])]
    others = [name for lineup in lineups for name in lineup if name not in shared]
    agents = []
    for name in shared + list(dict.fromkeys(others)):
        cells = [_cell(report, name) for report in reports]
        played = [cell.standing.score_pct for cell in cells if cell is not None]
        change = played[-1] - played[0] if len(played) > 1 else None
        agents.append(AgentLine(name, cells, change))
    versus = []
    for k, report in enumerate(reports):
        h2h = report.results.h2h
        for name in lineups[k]:
            results = [
                oriented(h2h, name, other) if name != other and _met(h2h, name, other) else None
                for other in shared
            ]
            total = sum((result for result in results if result is not None), WDL())
            versus.append(VersusRow(k, name, results, total))
    return Comparison(runs, shared, agents, versus)


def _met(h2h: dict[tuple[str, str], WDL], a: str, b: str) -> bool:
    return (a, b) in h2h or (b, a) in h2h


def _cell(report: Report, name: str) -> RunCell | None:
    standing = next((row for row in report.standings if row.agent == name), None)
    if standing is None:
        return None
    use: TimeUse = next(row for row in report.time_use if row.agent == name)
    return RunCell(standing, use.median)
