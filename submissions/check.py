"""Prove a single-file submission the way Kaggle loads it, before uploading it.

:func:`check_file` copies the file into a fresh temporary directory and runs
:mod:`submissions.probe` there in a new interpreter in isolated mode (``python -I``), where this
project's packages are made unimportable (verified). The probe hands the file's **path** to
``kaggle_environments.make("connectx").run``, so Kaggle's own loader
(``kaggle_environments.agent.build_agent`` / ``get_last_callable``: execute the file at the first
move, play its last callable) and Kaggle's referee decide everything. It plays the validation
episode (the file against itself, as Kaggle does on upload), then ``games`` games against each of
kaggle-environments' ``random`` and ``negamax``, colours alternating.

Why not :func:`tournament.runner.run_games`: it plays inside this process's children, where our
``agents`` package is imported -- exactly what a check must exclude. The probe still plays no game
loop of its own: each game is one ``env.run``.

The file **fails** when

* it does not compile (Kaggle's loader would fail the same way at move one), or the probe cannot
  make the project unimportable, or it does not finish within ``timeout`` seconds (an agent call
  that never returns hangs Kaggle's referee);
* Kaggle gives it ``ERROR`` (raised, or failed to load), ``INVALID`` (not a legal column as a Python
  ``int`` -- a numpy integer is invalid -- or the overage bank ran out) or ``TIMEOUT`` in any game;
* something took longer than ``actTimeout``, as ``time_policy`` says. ``"load"`` (the default):
  executing the file's module level -- which Kaggle does inside the first move, timed on its own
  by the probe with Kaggle's loader -- must fit in ``actTimeout``; moves may draw on the 60 s overage
  bank, as Kaggle allows and an agent may plan to (ours does, for exact solving). ``"strict"``:
  loading and every move must fit. ``"bank"``: only Kaggle's own verdict (an overdrawn bank is
  ``TIMEOUT``/``INVALID``).

Losing a game is not a failure. Warnings: moves taking at least ``1 - NEAR_LIMIT`` of
``actTimeout``, and the overage drawn from the bank (the most one agent drew in one game). Times are
Kaggle's own measurements (seconds, ``perf_counter`` around each call) in a process that is not
otherwise busy: on a loaded machine they are longer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import agents
from submissions import probe
from submissions.build import provenance

NEAR_LIMIT = 0.2
"""A move within this fraction of ``actTimeout`` (≥ 80 % of it) is flagged."""

KAGGLE_ACT_TIMEOUT = 2.0
"""Kaggle's ConnectX ``actTimeout`` in seconds."""

OVERAGE = 60.0
"""Kaggle's overage bank in seconds, per agent and game."""

TIME_POLICIES = ("load", "strict", "bank")
"""Which moves may take longer than ``actTimeout`` (see the module docstring); the first is the default."""

OPPONENTS = ("random", "negamax")
"""kaggle-environments' ConnectX agents the file plays after the validation episode."""

MAX_PLIES = 42
"""Moves in a full 6x7 game: bounds the time a game may take."""

PROJECT_ROOT = Path(agents.__file__).resolve().parent.parent
"""Directory holding this project's packages, which must not be importable in the check."""


class CheckInputError(ValueError):
    """The file to check does not exist or is not a file (a bad request, not a failing file)."""


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
    """Everything :func:`check_file` found. Times in seconds, sizes in bytes.

    ``passed`` is False exactly when ``reasons`` is not empty. ``first_move`` is the file's first
    move in the validation episode: the first time the file is loaded in the fresh process
    (``None`` if no game was played); ``first_moves`` is the slowest first move over all games;
    ``slowest`` the slowest move of any game and ``slowest_where`` where it was; ``near_limit``
    counts moves of ≥ 80 % of ``act_timeout``; ``overage`` is the most seconds beyond
    ``act_timeout`` one agent of the file drew from its bank in one game; ``last_callable`` is the
    name Kaggle's loader picked and ``load`` the seconds executing the file took (modules it imports
    already cached; ``None`` when not measured); ``isolated`` says that the project's packages were verified
    unimportable in the probe (None: no probe ran, e.g. for a file that does not compile);
    ``origin``: for a file built by :mod:`submissions.build`, its spec, version, date and whether
    its body is intact (:func:`~submissions.build.provenance`), "" otherwise.
    """

    path: str
    size: int
    act_timeout: float
    passed: bool
    reasons: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    games: tuple[GameResult, ...] = ()
    first_move: float | None = None
    first_moves: float | None = None
    slowest: float | None = None
    slowest_where: str = ""
    near_limit: int = 0
    overage: float = 0.0
    moves: int = 0
    last_callable: str = ""
    load: float | None = None
    isolated: bool | None = None
    details: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    origin: str = ""


def default_timeout(games: int, act_timeout: float, opponents: int = len(OPPONENTS)) -> float:
    """Seconds after which the probe is killed: every game played to the last ply at ``act_timeout``
    a move with both overage banks spent (the longest Kaggle would let it last), plus start-up."""
    per_game = MAX_PLIES * act_timeout + 2 * OVERAGE + 5.0
    return 30.0 + (1 + games * opponents) * per_game


def _problem(game: dict, act_timeout: float, time_policy: str) -> tuple[str, list[str]]:
    """Why ``game`` fails the file ("" if it does not), and detail lines (tracebacks, replays)."""
    details: list[str] = []
    for index in game["ours"]:
        status = game["statuses"][index]
        mark = index + 1
        times = game["durations"][index]
        where = f"{game['label']}: mark {mark}"
        if status == "ERROR":
            trace = game["stderr"].get(str(index), "").rstrip()
            last = trace.splitlines()[-1] if trace else "no traceback logged"
            when = f"its move {len(times)}" if times else "its first move"
            loading = " while loading the file" if "Invalid raw Python" in trace else ""
            if trace:
                details.append(f"{where}, Kaggle's log:\n{trace}")
            return f"{where} ERROR at {when}{loading}: {last}", details
        if status == "INVALID":
            spent = sum(max(0.0, t - act_timeout) for t in times)
            if spent > OVERAGE:
                return (f"{where} INVALID: its moves overdrew the {OVERAGE:.0f} s overage bank "
                        f"({spent:.1f} s beyond actTimeout)"), details
            replay = game["invalid"].get(str(index)) or {}
            if "type" in replay:
                said = f"returned {replay['repr']} ({replay['type']}): {replay['why']} (replayed)"
            elif "error" in replay:
                said = f"replaying the move raised {replay['error']}"
            else:
                said = "returned something that is not a legal column"
            return (f"{where} INVALID at its move {len(times)}: {said}; Kaggle accepts only a Python "
                    f"int naming a non-full column"), details
        if status == "TIMEOUT":
            return f"{where} TIMEOUT at its move {len(times)} ({max(times, default=0):.2f} s)", details
        if time_policy == "strict":
            for move, seconds in enumerate(times, start=1):
                if seconds > act_timeout:
                    loading = " (loading the file included)" if move == 1 else ""
                    return (f"{where} move {move} took {seconds:.3f} s{loading}, over actTimeout "
                            f"{act_timeout:g} s: on Kaggle it would draw on the overage bank"), details
    return "", details


def _read_events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut short by a kill
            break
    return events


def check_file(
    path: str | os.PathLike[str],
    *,
    games: int = 2,
    act_timeout: float = KAGGLE_ACT_TIMEOUT,
    timeout: float | None = None,
    time_policy: str = "load",
    seed: int = 1,
) -> CheckReport:
    """Check the submission file at ``path`` as described in the module docstring.

    ``games``: games against each Kaggle opponent (≥ 0); ``act_timeout``: Kaggle's ``actTimeout``
    in seconds for every game; ``timeout``: seconds before a hung check is killed (default
    :func:`default_timeout`); ``time_policy``: what must fit in ``act_timeout``
    (:data:`TIME_POLICIES`, see the module docstring); ``seed`` seeds the global generators
    Kaggle's built-in agents use. Raises :class:`CheckInputError` when ``path`` is not an existing
    file or an option is out of range; everything wrong with the file itself is reported in the
    :class:`CheckReport`.
    """
    source = Path(path)
    if not source.is_file():
        raise CheckInputError(f"no such file: {source}")
    if games < 0 or act_timeout <= 0:
        raise CheckInputError("games must be >= 0 and act_timeout > 0")
    if time_policy not in TIME_POLICIES:
        raise CheckInputError(f"time_policy must be one of {', '.join(TIME_POLICIES)}, not {time_policy!r}")
    started = time.perf_counter()
    size = source.stat().st_size
    text = source.read_bytes()
    origin = provenance(text.decode("utf-8", errors="replace"))
    base = {"path": str(source), "size": size, "act_timeout": act_timeout, "origin": origin}
    try:
        compile(text, str(source), "exec", dont_inherit=True)
    except SyntaxError as error:
        reason = (f"the file does not compile: {type(error).__name__} at line {error.lineno}: {error.msg}; "
                  f"Kaggle's loader fails alike at the first move")
        return CheckReport(**base, passed=False, reasons=(reason,), seconds=time.perf_counter() - started)
    except ValueError as error:  # e.g. a null byte
        reason = f"the file does not compile: {error}; Kaggle's loader fails alike at the first move"
        return CheckReport(**base, passed=False, reasons=(reason,), seconds=time.perf_counter() - started)
    timeout = default_timeout(games, act_timeout) if timeout is None else timeout
    packages = sorted(p.name for p in PROJECT_ROOT.iterdir() if (p / "__init__.py").is_file())
    with tempfile.TemporaryDirectory(prefix="connectx-check-") as tmp:
        work = Path(tmp)
        (work / "submission").mkdir()
        target = work / "submission" / source.name
        shutil.copyfile(source, target)
        script = work / "probe.py"
        shutil.copyfile(probe.__file__, script)
        out = work / "events.jsonl"
        request = {
            "path": str(target),
            "act_timeout": act_timeout,
            "games": games,
            "opponents": list(OPPONENTS),
            "out": str(out),
            "project_root": str(PROJECT_ROOT),
            "packages": packages,
            "seed": seed,
            "stop_over": act_timeout if time_policy == "strict" else None,
        }
        command = [sys.executable, "-I", str(script), json.dumps(request)]
        try:
            finished = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=timeout)
            crash = ""
            if finished.returncode != 0:
                crash = finished.stderr.strip() or (
                    f"exit status {finished.returncode} and nothing on stderr: did the file end the "
                    f"process (sys.exit, os._exit)?"
                )
            hung = False
        except subprocess.TimeoutExpired:
            crash, hung = "", True
        events = _read_events(out)
    return _report(base, events, act_timeout, time_policy, crash, hung, timeout, started)


def _report(
    base: dict,
    events: list[dict],
    act_timeout: float,
    time_policy: str,
    crash: str,
    hung: bool,
    timeout: float,
    started: float,
) -> CheckReport:
    reasons: list[str] = []
    warnings: list[str] = []
    details: list[str] = []
    results: list[GameResult] = []
    isolated: bool | None = None
    last_callable = ""
    load: float | None = None
    running = ""
    for event in events:
        kind = event["event"]
        if kind == "isolation":
            isolated = not any(event["importable"].values())
            if not isolated:
                found = [name for name, yes in event["importable"].items() if yes]
                reasons.append(f"could not make the project's packages unimportable in the probe: {found}")
        elif kind == "start":
            running = event["label"]
        elif kind == "game":
            running = ""
            problem, more = _problem(event, act_timeout, time_policy)
            details += more
            if problem:
                reasons.append(problem)
            results.append(
                GameResult(
                    label=event["label"],
                    agents=tuple("FILE" if i in event["ours"] else a for i, a in enumerate(event["agents"])),
                    ours=tuple(event["ours"]),
                    statuses=tuple(event["statuses"]),
                    rewards=tuple(event["rewards"]),
                    durations=tuple(tuple(d) for d in event["durations"]),
                    plies=event["plies"],
                    seconds=event["seconds"],
                    problem=problem,
                )
            )
        elif kind == "load":
            load = event["seconds"]
            last_callable = event.get("name", "")
            if time_policy != "bank" and "error" not in event and load > act_timeout:
                reasons.append(
                    f"loading the file (its module level, run by Kaggle's loader) took {load:.3f} s, over "
                    f"actTimeout {act_timeout:g} s: Kaggle runs it inside the first move"
                )
        elif kind == "done" and event["leaks"]:
            reasons.append(f"modules of the project were imported during the check: {event['leaks']}")
    if hung:
        where = f" during the game {running!r}" if running else ""
        reasons.append(f"the check did not finish within {timeout:.0f} s{where}: an agent call that never "
                       f"returns hangs Kaggle's referee")
    elif crash:
        where = f" during the game {running!r}" if running else ""
        reasons.append(f"the check's process died{where}: " + crash.splitlines()[-1])
        details.append(crash)
    elif not any(event["event"] == "done" for event in events):
        where = f" during the game {running!r}" if running else ""
        reasons.append(f"the check's process ended without a result{where}: did the file end the process "
                       f"(sys.exit, os._exit)?")

    first_move = None
    first_moves = None
    slowest, slowest_where, near, moves = None, "", 0, 0
    overage, over_moves = 0.0, 0
    for game in results:
        for index in game.ours:
            times = game.durations[index]
            if not times:
                continue
            overage = max(overage, sum(max(0.0, t - act_timeout) for t in times))
            over_moves += sum(t > act_timeout for t in times)
            if first_move is None:
                first_move = times[0]
            first_moves = max(first_moves or 0.0, times[0])
            for move, seconds in enumerate(times, start=1):
                moves += 1
                near += seconds >= (1 - NEAR_LIMIT) * act_timeout
                if slowest is None or seconds > slowest:
                    slowest, slowest_where = seconds, f"{game.label}, mark {index + 1}, move {move}"
    if near:
        warnings.append(
            f"{near} of {moves} moves took at least {100 * (1 - NEAR_LIMIT):.0f} % of actTimeout "
            f"{act_timeout:g} s: little margin on a busy machine"
        )
    if over_moves:
        warnings.append(
            f"{over_moves} moves took longer than actTimeout {act_timeout:g} s, drawing up to "
            f"{overage:.1f} s of the {OVERAGE:.0f} s overage bank in one game"
            + (": over half of it" if overage > OVERAGE / 2 else "")
        )
    return CheckReport(
        **base,
        passed=not reasons,
        reasons=tuple(reasons),
        warnings=tuple(warnings),
        games=tuple(results),
        first_move=first_move,
        first_moves=first_moves,
        slowest=slowest,
        slowest_where=slowest_where,
        near_limit=near,
        overage=overage,
        moves=moves,
        last_callable=last_callable,
        load=load,
        isolated=isolated,
        details=tuple(details),
        seconds=time.perf_counter() - started,
    )


def format_report(report: CheckReport, *, verbose: bool = False) -> str:
    """The report as the ``check`` command prints it (``verbose``: Kaggle's logged tracebacks too)."""

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f} s"

    lines = [f"{'PASS' if report.passed else 'FAIL'}  {report.path}"]
    lines += [f"  reason:       {reason}" for reason in report.reasons]
    isolation = {
        True: "project packages verified unimportable",
        False: "project packages NOT unimportable",
        None: "not run",
    }[report.isolated]
    lines += [
        f"  size:         {report.size} bytes ({report.size / 1024:.1f} KB)",
        f"  origin:       {report.origin or 'not built by python -m submissions build'}",
        f"  loaded as:    Kaggle loads it (python -I, temporary directory; {isolation})",
        f"  last callable: {report.last_callable or '-'}",
        f"  loading:      {seconds(report.load)} (the file's module level; imports already cached)",
        f"  first move:   {seconds(report.first_move)} (loading included, fresh process; "
        f"slowest first move {seconds(report.first_moves)})",
        f"  slowest move: {seconds(report.slowest)}"
        + (f" ({report.slowest_where})" if report.slowest_where else ""),
        f"  near limit:   {report.near_limit} of {report.moves} moves within {NEAR_LIMIT:.0%} of actTimeout "
        f"{report.act_timeout:g} s",
        f"  overage:      {report.overage:.3f} s of the {OVERAGE:.0f} s bank drawn at most in one game",
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
