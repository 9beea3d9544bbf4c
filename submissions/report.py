"""What a check found (:class:`CheckReport`, one :class:`GameResult` a game) and how it is printed."""

from __future__ import annotations

from dataclasses import dataclass

from agents.kit.adapter import DEFAULT_OVERAGE
from submissions.timing import NEAR_LIMIT, MoveTimes


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game of the check as Kaggle's referee ended it.

    ``label`` names it; ``agents`` as given to ``env.run`` (the file's path, or a Kaggle built-in
    name); ``ours`` the indices (0 = mark 1) played by the file; ``statuses`` / ``rewards`` Kaggle's
    final ones; ``durations`` per agent the seconds of each call, loading included in the first;
    ``plies`` stones on the final board; ``problem`` why this game fails the file ("" if it does not).
    """

    label: str
    agents: tuple[str, ...]
    ours: tuple[int, ...]
    statuses: tuple[str, ...]
    rewards: tuple[float | None, ...]
    durations: tuple[tuple[float, ...], ...]
    plies: int
    seconds: float
    problem: str = ""

    def outcome(self) -> str:
        """The file's result in words: win / loss / draw / forfeit (self-play: who won, or the statuses)."""
        if len(self.ours) > 1:
            if self.statuses != ("DONE", "DONE"):
                return "/".join(self.statuses)
            if self.rewards[0] == self.rewards[1]:
                return "draw"
            return f"mark {1 if self.rewards[0] == 1 else 2} won"
        mine = self.ours[0]
        if self.statuses[mine] != "DONE":
            return f"forfeit ({self.statuses[mine]})"
        if self.statuses[1 - mine] != "DONE":
            return f"win (opponent {self.statuses[1 - mine]})"
        reward = self.rewards[mine]
        return "win" if reward == 1 else "loss" if reward == -1 else "draw"


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Everything :func:`submissions.check.check_file` found. Times in seconds, sizes in bytes.

    ``passed`` is False exactly when ``reasons`` is not empty. ``times`` sums up the file's moves
    (:class:`~submissions.timing.MoveTimes`); ``last_callable`` is the name Kaggle's loader picked
    and ``load`` the seconds executing the file took (modules it imports already cached; ``None``
    when not measured); ``isolated`` says that the project's packages were verified unimportable in
    the probe (None: no probe ran, e.g. for a file that does not compile); ``details``: Kaggle's
    logged tracebacks and the probe's own; ``seconds`` the check took; ``origin``: for a file built
    by :mod:`submissions.build`, its spec, version, date and whether its body is intact
    (:func:`~submissions.build.provenance`), "" otherwise.
    """

    path: str
    size: int
    act_timeout: float
    passed: bool
    reasons: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    games: tuple[GameResult, ...] = ()
    times: MoveTimes = MoveTimes()
    last_callable: str = ""
    load: float | None = None
    isolated: bool | None = None
    details: tuple[str, ...] = ()
    seconds: float = 0.0
    origin: str = ""


def format_report(report: CheckReport, *, verbose: bool = False) -> str:
    """The report as ``connectx check`` prints it (``verbose``: Kaggle's logged tracebacks too)."""

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f} s"

    times = report.times
    lines = [f"{'PASS' if report.passed else 'FAIL'}  {report.path}"]
    lines += [f"  reason:       {reason}" for reason in report.reasons]
    isolation = {
        True: "project packages verified unimportable",
        False: "project packages NOT unimportable",
        None: "not run",
    }[report.isolated]
    lines += [
        f"  size:         {report.size} bytes ({report.size / 1024:.1f} KB)",
        f"  origin:       {report.origin or 'not built by connectx build'}",
        f"  loaded as:    Kaggle loads it (python -I, temporary directory; {isolation})",
        f"  last callable: {report.last_callable or '-'}",
        f"  loading:      {seconds(report.load)} (the file's module level; imports already cached)",
        f"  first move:   {seconds(times.first_move)} (loading included, fresh process; "
        f"slowest first move {seconds(times.first_moves)})",
        f"  slowest move: {seconds(times.slowest)}"
        + (f" ({times.slowest_where})" if times.slowest_where else ""),
        f"  near limit:   {times.near_limit} of {times.moves} moves within {NEAR_LIMIT:.0%} of actTimeout "
        f"{report.act_timeout:g} s",
        f"  overage:      {times.overage:.3f} s of the {DEFAULT_OVERAGE:.0f} s bank drawn at most "
        "in one game",
    ]
    lines += [f"  warning:      {warning}" for warning in report.warnings]
    lines.append("  games:")
    for game in report.games:
        ours = [t for i in game.ours for t in game.durations[i]]
        lines.append(
            f"    {game.label:<46} {game.outcome():<22} {game.plies:>2} plies, "
            f"file's moves {len(ours):>2}, max {max(ours, default=0):.3f} s"
        )
    if not report.games:
        lines.append("    (none played)")
    if verbose or not report.passed:
        lines += ["  " + line for detail in report.details for line in detail.splitlines()]
    lines.append(f"  check took {report.seconds:.1f} s")
    return "\n".join(lines)
