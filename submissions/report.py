"""What a check found (:class:`CheckReport`, one :class:`CheckedGame` a game) and how it is printed."""

from __future__ import annotations

from dataclasses import dataclass

from agents.kit.clock import DEFAULT_OVERAGE
from submissions.timing import NEAR_LIMIT, MoveTimes, agent_times


@dataclass(frozen=True, slots=True)
class CheckedGame:
    """One game of the check as Kaggle's referee ended it.

    ``label`` names it; ``agents`` as given to ``env.run`` (the file's path, or a Kaggle built-in
    name); ``ours`` the indices (0 = mark 1) played by the file; ``statuses`` / ``rewards`` Kaggle's
    final ones; ``durations`` per agent the seconds of each call, loading included in the first;
    ``plies`` stones on the final board; ``seconds`` the game took; ``problem`` why this game fails
    the file ("" if it does not); ``banks`` per agent the seconds Kaggle's referee had left in its
    overage bank at the end (``remainingOverageTime``; () when not recorded, None for an agent
    without one).
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
    banks: tuple[float | None, ...] = ()

    def outcome(self) -> str:
        """The file's result in words: win / loss / draw / forfeit (self-play: who won, or the statuses)."""
        if len(self.ours) > 1:
            if self.statuses != ("DONE", "DONE"):
                return ", ".join(
                    f"mark {index + 1} forfeit ({status})"
                    for index, status in enumerate(self.statuses)
                    if status != "DONE"
                )
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

    ``passed`` is False exactly when ``reasons`` is not empty; the reason the verdict names comes
    first. ``forfeit``: True when Kaggle would forfeit the agent (it did in a game of the check, or
    the file cannot load or hangs), False when it would not in these games (the file may still fail
    the check's ``time_policy``), None when the check could not tell (it could not isolate the file,
    or its process died). ``times`` sums up the file's moves
    (:class:`~submissions.timing.MoveTimes`); ``last_callable`` is the name Kaggle's loader picked
    and ``load`` the seconds it took to load the file (compile and execute it, its imports included,
    in a fresh process, as Kaggle does inside the first move; not reading it, which Kaggle does before
    its clock starts; ``None`` when not measured or the load raised); ``isolated`` says that the
    project's packages were verified unimportable in
    the probe (None: no probe ran, e.g. for a file that does not compile); ``details``: Kaggle's
    logged tracebacks and the probe's own; ``seconds`` the check took; ``origin``: for a file built
    by :mod:`submissions.build`, its spec, version, date and whether its body is intact
    (:func:`~submissions.build.provenance`), "" otherwise; ``time_policy``: which moves had to fit in
    ``act_timeout`` (see :mod:`submissions.check`); ``packages``: the packages of the interpreter
    that played the file when they are Kaggle's (``connectx check --kaggle-packages``: numba 0.65.1,
    ...), "" for the check's own; ``search``: what the file's solver said on stderr at its first move
    (``searching compiled: compiled in 2.31 s ...``, or ``searching in pure Python ...`` and why),
    "" when it said nothing (no solver, or not a file built here).
    """

    path: str
    size: int
    act_timeout: float
    passed: bool
    reasons: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    games: tuple[CheckedGame, ...] = ()
    times: MoveTimes = MoveTimes()
    last_callable: str = ""
    load: float | None = None
    isolated: bool | None = None
    details: tuple[str, ...] = ()
    seconds: float = 0.0
    origin: str = ""
    forfeit: bool | None = None
    time_policy: str = "load"
    packages: str = ""
    search: str = ""


def headline(report: CheckReport) -> str:
    """The first line of the report: PASS or FAIL, and whether Kaggle would forfeit the agent, with
    the reason (the first of ``report.reasons``) or the most overage bank a game used."""
    bank = f"the most bank a game used: {report.times.overage:.2f} s of {DEFAULT_OVERAGE:g} s"
    if report.passed:
        return f"PASS: Kaggle would not forfeit this agent in these games ({bank})"
    reason = report.reasons[0] if report.reasons else "no reason recorded"
    if report.forfeit:
        return f"FAIL: Kaggle would forfeit this agent: {reason}"
    if report.forfeit is None:
        return f"FAIL: the check could not tell whether Kaggle would forfeit this agent: {reason}"
    return (
        f"FAIL: Kaggle would not forfeit this agent in these games, but the time policy "
        f"{report.time_policy} fails it: {reason}"
    )


def summary(report: CheckReport) -> str:
    """One line over all games: the slowest move, the share of moves over ``actTimeout``, and the
    most overage bank one agent of the file used in one game (seconds and % of the bank)."""
    times = report.times
    slowest = "-" if times.slowest is None else f"{times.slowest:.3f} s"
    share = f" ({100 * times.over_limit / times.moves:.1f} %)" if times.moves else ""
    return (
        f"slowest move {slowest}; {times.over_limit} of {times.moves} moves{share} over actTimeout "
        f"{report.act_timeout:g} s; most bank a game used {times.overage:.2f} s of "
        f"{DEFAULT_OVERAGE:g} s ({100 * times.overage / DEFAULT_OVERAGE:.1f} %)"
    )


def games_table(report: CheckReport) -> list[str]:
    """The games as a table, one row for each agent of the file in each game (the validation
    episode has two, one a mark): its result, moves, slowest move, moves over ``actTimeout`` and
    the overage bank it used and had left (seconds). Lines without indentation."""
    over = f"over {report.act_timeout:g} s"
    header = ("game", "result", "moves", "slowest", over, "bank used", "bank left")
    rows: list[tuple[str, ...]] = []
    for game in report.games:
        agents = agent_times(game, report.act_timeout)
        if len(agents) > 1:
            rows.append((game.label, game.outcome(), "", "", "", "", ""))
        for agent in agents:
            label = game.label if len(agents) == 1 else f"  the file as mark {agent.mark}"
            result = game.outcome() if len(agents) == 1 else ""
            rows.append(
                (
                    label,
                    result,
                    str(agent.moves),
                    "-" if agent.slowest is None else f"{agent.slowest:.3f} s",
                    str(agent.over_limit),
                    f"{agent.bank_used:.2f} s",
                    "overdrawn" if agent.overdrawn else f"{agent.bank_left:.2f} s",
                )
            )
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:], strict=True)]
        return "  ".join(cells).rstrip()

    return [line(row) for row in [header, *rows]]


def search_line(report: CheckReport) -> str:
    """Which search the file's solver ran, and the slowest move after the first (the one that
    compiles it): the line the report prints."""
    later = report.times.later
    after = "-" if later is None else f"{later:.3f} s"
    if not report.search:
        return f"the file's solver said nothing (not built here, or no solver); slowest later move {after}"
    line = f"{report.search}; slowest move after the first {after}"
    if report.search.startswith("searching in pure Python") and not report.packages:
        line += (
            "; on Kaggle, whose image has numba, it compiles: `connectx check --kaggle-packages` plays it "
            "with Kaggle's packages"
        )
    return line


def format_report(report: CheckReport, *, verbose: bool = False) -> str:
    """The report as ``connectx check`` prints it (``verbose``: Kaggle's logged tracebacks too)."""

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f} s"

    times = report.times
    lines = [headline(report)]
    lines += [f"  also:         {reason}" for reason in report.reasons[1:]]
    isolation = {
        True: "project packages verified unimportable",
        False: "project packages NOT unimportable",
        None: "not run",
    }[report.isolated]
    size = f"{report.size / 1024:.1f} KB" if report.size < 2**20 else f"{report.size / 2**20:.1f} MB"
    packages = report.packages or "this interpreter's (--kaggle-packages plays it with Kaggle's versions)"
    lines += [
        f"  file:         {report.path}",
        f"  size:         {report.size} bytes ({size})",
        f"  origin:       {report.origin or 'not built by connectx build'}",
        f"  loaded as:    Kaggle loads it (python -I, temporary directory; {isolation})",
        f"  packages:     {packages}",
        f"  last callable: {report.last_callable or '-'}",
        f"  loading:      {seconds(report.load)} (Kaggle's loader in a fresh process: compiling and running "
        f"the module level, its imports included)",
        f"  first move:   {seconds(times.first_move)} (Kaggle's clock on the first call, in another fresh "
        f"process: loading included; slowest first move {seconds(times.first_moves)})",
    ]
    if report.games:
        lines += [
            f"  games:        a move may take actTimeout {report.act_timeout:g} s; Kaggle draws the time "
            f"beyond it from an overage bank",
            f"                of {DEFAULT_OVERAGE:g} s that each agent has in each game, and forfeits an "
            f"agent that overdraws it",
        ]
        lines += ["    " + row for row in games_table(report)]
        lines += [
            f"  summary:      {summary(report)}",
            f"  search:       {search_line(report)}",
            f"  near limit:   {times.near_limit} of {times.moves} moves within {NEAR_LIMIT:.0%} of "
            f"actTimeout {report.act_timeout:g} s",
        ]
    else:
        lines.append("  games:        none played")
    lines += [f"  warning:      {warning}" for warning in report.warnings]
    if verbose or not report.passed:
        lines += ["  " + line for detail in report.details for line in detail.splitlines()]
    lines.append(f"  check took {report.seconds:.1f} s")
    return "\n".join(lines)
