"""From the probe's events to a verdict: why a game fails the file, and the :class:`CheckReport`.

The events are the JSON lines :mod:`submissions.probe` writes in its two stages, one after the other
(``isolation`` and ``kaggle``; the load stage's ``loading``, ``load`` and ``done``; the games
stage's ``isolation``, then ``start`` and ``game`` a game, and ``done``); what fails a file is
listed in :mod:`submissions.check`. Each reason is of one of three kinds, and the report's verdict
names the first reason of the gravest kind present:

* a **forfeit**: Kaggle ended the file ``ERROR``, ``INVALID`` or ``TIMEOUT`` in a game, loading the
  file took longer than Kaggle lets the first move take (:func:`submissions.timing.load_limit`), or
  the check hung with a timeout no shorter than the longest Kaggle lets the load or the games last;
* the check **could not tell**: it could not make the project unimportable, project modules were
  imported, its process died or ended without a result (or hung within a shorter timeout), or the
  file could not import a module this machine lacks (Kaggle's image, which ships many, may have it);
* the **time policy** failed the file although Kaggle would not forfeit it in these games.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from agents.engine.board import Board, BoardError
from agents.kit.clock import DEFAULT_OVERAGE
from submissions import timing
from submissions.probe import SOLVER_SAYS
from submissions.report import CheckedGame, CheckReport
from tournament.replies import decode
from tournament.rules import invalid_action

BAD = ("ERROR", "INVALID", "TIMEOUT")
"""Kaggle's statuses that forfeit an agent."""

LOADING = "loading the file"
"""What the probe was doing between its ``loading`` and ``load`` events."""

SIZE_WARNING = 5 * 1024 * 1024
"""Bytes above which a file's size is a warning. Our threshold: Kaggle documents no size limit for a
simulation competition's submission that we could find, and uploads of 5-10 MB are reported to
fail (this project's experience, see :mod:`submissions.databases`)."""


def size_warning(size: int) -> str:
    """A warning line for a file of ``size`` bytes above :data:`SIZE_WARNING`, else ""."""
    if size <= SIZE_WARNING:
        return ""
    return (
        f"the file is {size / 2**20:.1f} MB, over {SIZE_WARNING / 2**20:g} MB: Kaggle documents no size "
        f"limit for a submission, but uploads of 5-10 MB are reported to fail (5 MB is this check's "
        f"threshold); make it smaller (compress its data, leave out what it does not play)"
    )


def replayed_invalid(replay: dict) -> str:
    """Why a move was INVALID, in the tournament's words (:func:`tournament.rules.invalid_action`,
    columns counted from 1), from the probe's replay of it (:func:`submissions.probe._replay`)."""
    try:
        board = Board.from_kaggle(replay["board"], replay["mark"], rows=replay["rows"],
                                  columns=replay["columns"], inarow=replay["inarow"])  # fmt: skip
        action = decode(replay["action"])
    except (BoardError, KeyError, ValueError):
        return "returned something that is not a legal column (the replay could not be read)"
    column = 0 if action is None else action  # None: Kaggle plays its default action, column 0
    if type(column) is int and 0 <= column < board.geo.columns and board.can_play(column):
        return (
            f"the replay returned {action!r}, a legal move: the agent is not deterministic, or its state "
            "differs in the replay"
        )
    return invalid_action(replay["mark"], action, board)


def read_events(path: Path) -> list[dict]:
    """The events in the probe's output file ``path`` (none when it is missing), up to a line cut
    short by a kill."""
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return events


def game_problem(game: dict, act_timeout: float, time_policy: str) -> tuple[str, list[str]]:
    """Why the ``game`` event fails the file ("" if it does not), and detail lines (tracebacks,
    replays of an invalid move)."""
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
            spent = timing.bank_used(times, act_timeout)
            if spent > DEFAULT_OVERAGE:
                return (
                    f"{where} INVALID: its moves overdrew the {DEFAULT_OVERAGE:.0f} s overage bank "
                    f"({spent:.1f} s beyond actTimeout)"
                ), details
            replay = game["invalid"].get(str(index)) or {}
            if "action" in replay:
                said = f"replayed, {replayed_invalid(replay)}"
            elif "error" in replay:
                said = f"replaying the move raised {replay['error']}"
            else:
                said = "it returned something that is not a legal column"
            return f"{where} INVALID at its move {len(times)}; {said}", details
        if status == "TIMEOUT":
            used = timing.bank_used(times, act_timeout)
            why = ""
            if used > DEFAULT_OVERAGE:
                why = (
                    f": its moves drew {used:.2f} s beyond actTimeout {act_timeout:g} s, more than the "
                    f"{DEFAULT_OVERAGE:g} s overage bank"
                )
            return f"{where} TIMEOUT at its move {len(times)} ({max(times, default=0):.2f} s){why}", details
        if time_policy == "strict":
            for move, seconds in enumerate(times, start=1):
                if seconds > act_timeout:
                    loading = " (loading the file included)" if move == 1 else ""
                    return (
                        f"{where} move {move} took {seconds:.3f} s{loading}, over actTimeout "
                        f"{act_timeout:g} s: on Kaggle it would draw on the overage bank"
                    ), details
    return "", details


def missing_module(game: dict, project: set[str]) -> str:
    """The module whose import failed when the file ended ``ERROR`` in the ``game`` event for want of
    it (``ModuleNotFoundError``, the last line of Kaggle's log), unless it is one of the ``project``'s
    packages, which Kaggle lacks too; else "".

    >>> game = {"ours": [0], "statuses": ["ERROR", "DONE"]}
    >>> missing_module({**game, "stderr": {"0": "ModuleNotFoundError: No module named 'torch'"}}, set())
    'torch'
    >>> ours = {**game, "stderr": {"0": "ModuleNotFoundError: No module named 'agents.kit'"}}
    >>> missing_module(ours, {"agents"})
    ''
    """
    for index in game["ours"]:
        trace = game["stderr"].get(str(index), "").rstrip() if game["statuses"][index] == "ERROR" else ""
        last = trace.splitlines()[-1] if trace else ""
        found = re.fullmatch(r"ModuleNotFoundError: No module named '([^']+)'", last)
        if found and found.group(1).split(".")[0] not in project:
            return found.group(1)
    return ""


def _game(event: dict, problem: str) -> CheckedGame:
    return CheckedGame(
        label=event["label"],
        agents=tuple("FILE" if i in event["ours"] else a for i, a in enumerate(event["agents"])),
        ours=tuple(event["ours"]),
        statuses=tuple(event["statuses"]),
        rewards=tuple(event["rewards"]),
        durations=tuple(tuple(d) for d in event["durations"]),
        plies=event["plies"],
        seconds=event["seconds"],
        problem=problem,
        banks=tuple(event.get("banks", ())),
    )


class FileFacts(TypedDict):
    """What a report says of the file before any game: its ``path``, ``size`` in bytes, the
    ``act_timeout`` it was checked with, and its ``origin`` (:func:`submissions.check.provenance`)."""

    path: str
    size: int
    act_timeout: float
    origin: str
    packages: str


@dataclass
class _Reasons:
    """Why the file fails, by kind in the module docstring's order, and the detail lines."""

    forfeits: list[str] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)
    policy: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)


@dataclass
class _Probed:
    """What the probe's events say: its games, whether it was isolated and what leaked, the load,
    and what it was ``running`` when its output ends (a game's label, :data:`LOADING`, or "")."""

    games: list[CheckedGame] = field(default_factory=list)
    isolated: bool | None = None
    leaks: set[str] = field(default_factory=set)
    last_callable: str = ""
    load: float | None = None
    running: str = ""
    stage_open: bool = False  # an isolation event (a stage's first) not followed by its done
    calling: dict | None = None  # the file's call announced last, until it returned
    project: set[str] = field(default_factory=set)  # the project's packages, which Kaggle lacks too
    solver: list[str] = field(default_factory=list)  # the lines the file's solver wrote on stderr


def verdict(
    base: FileFacts,
    events: list[dict],
    *,
    time_policy: str,
    crash: str,
    hung: bool,
    timeout: float,
    started: float,
    hang_forfeits: bool = True,
    late_move: bool = False,
) -> CheckReport:
    """The report of a probe that wrote ``events`` (both stages' in order). ``base``: the report's
    ``path``, ``size``, ``act_timeout`` and ``origin``; ``time_policy``: see :mod:`submissions.check`;
    ``crash``: the stderr of the probe's last stage when it exited non-zero ("" else); ``hung``: the
    last stage was killed after ``timeout`` seconds (of loading, when it was loading the file: see
    :mod:`submissions.check`); ``started``: ``perf_counter`` at the start; ``hang_forfeits``:
    ``timeout`` was at least the longest Kaggle lets the load or the games last, so a hang is one
    Kaggle would time out; ``late_move``: the stage was killed because a move of the file lasted
    ``timeout`` seconds, all Kaggle waits for it (its last ``call`` event says which)."""
    act_timeout = base["act_timeout"]
    reasons = _Reasons()
    probed = _read(events, act_timeout, time_policy, reasons)
    if probed.leaks:
        leaked = sorted(probed.leaks)
        reasons.unsure.append(f"modules of the project were imported during the check: {leaked}")
    if hung and late_move and probed.calling is not None:
        reasons.forfeits.append(_late(probed, act_timeout, timeout))
    elif hung:
        _hung(probed.running, act_timeout, timeout, hang_forfeits, reasons)
    else:
        _ended(probed, crash, bool(events), reasons)
    times = timing.move_times(probed.games, act_timeout)
    failures = reasons.forfeits + reasons.unsure + reasons.policy
    warnings = [size_warning(base["size"]), *timing.warnings(times, act_timeout, DEFAULT_OVERAGE)]
    return CheckReport(
        **base,
        passed=not failures,
        forfeit=True if reasons.forfeits else None if reasons.unsure else False,
        time_policy=time_policy,
        reasons=tuple(failures),
        warnings=tuple(warning for warning in warnings if warning),
        games=tuple(probed.games),
        times=times,
        last_callable=probed.last_callable,
        load=probed.load,
        isolated=probed.isolated,
        search=probed.solver[0].removeprefix(SOLVER_SAYS).strip() if probed.solver else "",
        details=tuple(reasons.details),
        seconds=time.perf_counter() - started,
    )


def _first_move(act_timeout: float) -> str:
    """The rule both reasons for a slow load cite."""
    return (
        f"that Kaggle lets the first move take (actTimeout {act_timeout:g} s plus the {DEFAULT_OVERAGE:g} s "
        f"overage bank; Kaggle loads the file inside the first move), so Kaggle would end it with TIMEOUT "
        f"at its first move"
    )


def _read(events: list[dict], act_timeout: float, time_policy: str, reasons: _Reasons) -> _Probed:
    """What ``events`` say, adding the reasons they give to ``reasons``."""
    probed = _Probed()
    for event in events:
        kind = event["event"]
        if kind == "isolation":
            probed.stage_open = True
            probed.project.update(event["importable"])
            found = [name for name, yes in event["importable"].items() if yes]
            if found and probed.isolated is not False:
                reasons.unsure.append(
                    f"could not make the project's packages unimportable in the probe: {found}"
                )
            probed.isolated = not found and probed.isolated is not False
        elif kind == "loading":
            probed.running = LOADING
        elif kind == "load":
            probed.running = ""
            if "error" in event:
                continue  # the games show Kaggle's verdict and traceback
            probed.load = event["seconds"]
            probed.last_callable = event.get("name", "")
            _slow_load(event["seconds"], act_timeout, time_policy, reasons)
        elif kind == "start":
            probed.running = event["label"]
        elif kind == "call":
            probed.calling = event
        elif kind == "returned":
            probed.calling = None
        elif kind == "game":
            probed.running = ""
            problem, more = game_problem(event, act_timeout, time_policy)
            reasons.details += more
            if problem:
                bad = any(event["statuses"][index] in BAD for index in event["ours"])
                if bad and (module := missing_module(event, probed.project)):
                    reasons.unsure.append(
                        f"{problem}; this machine lacks the module {module!r}, which Kaggle's image may "
                        "have (it ships numpy, scipy, torch and many more): install it here and check again"
                    )
                else:
                    (reasons.forfeits if bad else reasons.policy).append(problem)
            probed.games.append(_game(event, problem))
            probed.solver += event.get("solver", [])
        elif kind == "done":
            probed.stage_open = False
            probed.leaks.update(event["leaks"])
    return probed


def _slow_load(load: float, act_timeout: float, time_policy: str, reasons: _Reasons) -> None:
    """The reason a load of ``load`` seconds fails the file, if it does."""
    limit = timing.load_limit(act_timeout)
    if load > limit:
        reasons.forfeits.append(
            f"it takes too long to load: loading the file took {load:.1f} s, more than the "
            f"{limit:g} s {_first_move(act_timeout)}"
        )
    elif time_policy != "bank" and load > act_timeout:
        reasons.policy.append(
            f"loading the file (its module level, run by Kaggle's loader) took {load:.3f} s, over "
            f"actTimeout {act_timeout:g} s: Kaggle runs it inside the first move"
        )


def _where(running: str) -> str:
    """`` while loading the file``, `` during the game 'LABEL'``, or "": what the probe was doing."""
    return f" while {LOADING}" if running == LOADING else f" during the game {running!r}" if running else ""


def _hung(running: str, act_timeout: float, timeout: float, hang_forfeits: bool, reasons: _Reasons) -> None:
    """The reason of a check killed after ``timeout`` seconds while ``running``."""
    if running == LOADING and hang_forfeits:
        reasons.forfeits.append(
            f"it takes too long to load: loading the file did not finish within the {timeout:g} s "
            f"{_first_move(act_timeout)}"
        )
    elif running == LOADING:
        reasons.unsure.append(
            f"the check did not finish within {timeout:.0f} s while loading the file, before the "
            f"{timing.load_limit(act_timeout):g} s Kaggle lets it take: give the check a longer "
            "timeout to tell"
        )
    else:
        (reasons.forfeits if hang_forfeits else reasons.unsure).append(
            f"the check did not finish within {timeout:.0f} s{_where(running)}: an agent call that never "
            f"returns hangs Kaggle's referee"
        )


def _late(probed: _Probed, act_timeout: float, limit: float) -> str:
    """The reason of a check whose move did not return within ``limit`` seconds (its call event says
    whose)."""
    assert probed.calling is not None
    bank = limit - act_timeout
    return (
        f"{probed.running}: mark {probed.calling['mark']}'s move did not return within {limit:.1f} s "
        f"(actTimeout {act_timeout:g} s plus the {bank:.1f} s left of its overage bank), all Kaggle "
        "waits for a move: Kaggle would end it with TIMEOUT"
    )


def _ended(probed: _Probed, crash: str, any_events: bool, reasons: _Reasons) -> None:
    """The reason of a probe that was not killed but died (its stderr ``crash``) or ended without a
    result."""
    if crash:
        reasons.unsure.append(f"the check's process died{_where(probed.running)}: " + crash.splitlines()[-1])
        reasons.details.append(crash)
    elif probed.stage_open or not any_events:
        reasons.unsure.append(
            f"the check's process ended without a result{_where(probed.running)}: did the file end the "
            f"process (sys.exit, os._exit)?"
        )
