"""Prove a single-file submission the way Kaggle loads it, before uploading it.

:func:`check_file` copies the file into a fresh temporary directory and runs
:mod:`submissions.probe` there in a new interpreter in isolated mode (``python -I``), where this
project's packages are made unimportable (verified). The probe hands the file's **path** to
``kaggle_environments.make("connectx").run``, so Kaggle's own loader
(``kaggle_environments.agent.build_agent`` / ``get_last_callable``: execute the file at the first
move, play its last callable) and Kaggle's referee decide everything. It plays the validation
episode (the file against itself, as Kaggle does on upload), then ``games`` games against each of
kaggle-environments' ``random`` and ``negamax``, colours alternating.

Before the games, the probe's ``load`` stage loads the file once with Kaggle's loader and times it,
in a child forked by the probe once it has imported kaggle-environments (a fresh process for the
file, as Kaggle's, which imports its package before it loads an agent; the games are played in the
probe itself, where the file was never loaded): the file's module level, its imports included, as
Kaggle runs it inside the first move. Kaggle lets that first move take ``actTimeout`` plus the whole
overage bank (:func:`submissions.timing.load_limit`, 62 s by default): a load still running that
long after it started is killed at once and reported as the hang Kaggle would forfeit (``TIMEOUT``),
and a load that took longer is a forfeit too; either way no game is played.

Why not :func:`tournament.runner.run_games`: it plays inside this process's children, where our
``agents`` package is imported -- exactly what a check must exclude. The probe still plays no game
loop of its own: each game is one ``env.run``.

A move of the file that does not return is killed once Kaggle's servers would have given up on it
(``actTimeout`` plus the overage bank it had left, plus :data:`LOAD_GRACE`: the probe announces each
call, :mod:`submissions.probe`), and reported as the ``TIMEOUT`` Kaggle would give it.

The probe and its child run in a process group of their own; on the way out -- finished, timed out,
or interrupted by SIGINT (``KeyboardInterrupt``) or SIGTERM (:class:`~tournament.signals.Terminated`, raised
while a check runs in the main thread) -- the whole group is killed (whatever the file started too) and the
temporary directory removed.

The file **fails** when

* it does not compile (Kaggle's loader would fail the same way at move one), or the probe cannot
  make the project unimportable, or loading it takes longer than Kaggle lets the first move take, or
  the check does not finish within ``timeout`` seconds (an agent call that never returns hangs
  Kaggle's referee);
* Kaggle gives it ``ERROR`` (raised, or failed to load), ``INVALID`` (not a legal column as a Python
  ``int`` -- a numpy integer is invalid -- or the overage bank ran out) or ``TIMEOUT`` in any game;
* something took longer than ``actTimeout``, as ``time_policy`` says. ``"load"`` (the default):
  executing the file's module level -- which Kaggle does inside the first move, timed on its own
  by the probe with Kaggle's loader -- must fit in ``actTimeout``; moves may draw on the 60 s overage
  bank, as Kaggle allows and an agent may plan to (ours does, for exact solving). ``"strict"``:
  loading and every move must fit. ``"bank"``: only Kaggle's own verdict (an overdrawn bank is
  ``TIMEOUT``/``INVALID``).

Losing a game is not a failure. The verdict says plainly whether Kaggle would forfeit the agent:
it would when Kaggle's referee forfeited it in a game of the check, when the file does not compile,
or when the check hung (with the default ``timeout``); a file failing only the time policy is one
Kaggle would not forfeit in these games; a check that could not isolate the file, or whose process
died, cannot tell (:mod:`submissions.verdict`).

The overage bank, by Kaggle's rule (:mod:`submissions.timing`): each agent has 60 s of it in each
game, a move's time beyond ``actTimeout`` (loading the file included in move one) is drawn from it,
and Kaggle forfeits an agent that overdraws it. The report states, for every game, the bank each
agent of the file used and had left, its slowest move and its moves over ``actTimeout``; then the
slowest move of all games, the share of moves over ``actTimeout`` and the most bank a game used.
Warnings (not failures): moves taking at least 80 % of ``actTimeout``, moves over it, and a game
that used more than half of the bank (a longer game could overdraw it). Times are Kaggle's own
measurements (seconds, ``perf_counter`` around each call) in a process that is not otherwise busy:
on a loaded machine they are longer.

This module runs the probe; :mod:`submissions.verdict` turns its events into the
:class:`~submissions.report.CheckReport`, with :mod:`submissions.timing` (move times, warnings);
:func:`submissions.report.format_report` prints it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import agents
from agents.kit.clock import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE
from submissions import probe
from submissions.build import provenance
from submissions.report import CheckReport
from submissions.timing import load_limit
from submissions.verdict import FileFacts, read_events, size_warning, verdict
from tournament.refusal import REFEREE_UNNEEDED
from tournament.signals import sigterm_raises

TIME_POLICIES = ("load", "strict", "bank")
"""Which moves may take longer than ``actTimeout`` (see the module docstring); the first is the default."""

OPPONENTS = ("random", "negamax")
"""kaggle-environments' ConnectX agents the file plays after the validation episode."""

MAX_PLIES = 42
"""Moves in a full 6x7 game: bounds the time a game may take."""

PROJECT_ROOT = Path(agents.__file__).resolve().parent.parent
"""Directory holding this project's packages, which must not be importable in the check."""


STARTUP = 30.0
"""Seconds allowed for each stage of the probe to start (an interpreter, kaggle-environments; the
games, after the load, start at once)."""

LOAD_GRACE = 1.0
"""Seconds a load may run past :func:`~submissions.timing.load_limit`, or a move past its own limit,
before it is killed as hung: the probe reports that it started at most :data:`POLL` s before this
process sees it (and Kaggle's servers wait a second more than the limit for a move)."""

POLL = 0.05
"""Seconds between looks at a running probe."""


class CheckInputError(ValueError):
    """The file to check does not exist or is not a file (a bad request, not a failing file)."""


def default_timeout(games: int, act_timeout: float, opponents: int = len(OPPONENTS)) -> float:
    """Seconds after which the probe is killed: loading the file for as long as Kaggle allows, then
    every game played to the last ply at ``act_timeout`` a move with both overage banks spent (the
    longest Kaggle would let it last), plus each stage's start-up."""
    per_game = MAX_PLIES * act_timeout + 2 * DEFAULT_OVERAGE + 5.0
    return 2 * STARTUP + load_limit(act_timeout) + LOAD_GRACE + (1 + games * opponents) * per_game


@dataclass(frozen=True, slots=True)
class _Outcome:
    """How the probe ended. ``events``: what it wrote; ``crash``: its stderr when it
    exited non-zero ("" else); ``hung``: it was killed after ``timeout`` seconds (of loading, when it
    was loading the file; of one move, with ``move``); ``forfeits``: that was no shorter than
    Kaggle's own limit, so Kaggle would forfeit the hang."""

    events: list[dict]
    crash: str = ""
    hung: bool = False
    timeout: float = 0.0
    forfeits: bool = False
    move: bool = False


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the process group that ``process`` leads (the probe and whatever the file started) and
    reap ``process``."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _run_probe(
    request: dict,
    work: Path,
    deadline: float,
    timeout: float,
    longest: float,
    on_event: Callable[[dict], object],
    python: str,
) -> _Outcome:
    """Run the probe (both its stages) on ``request`` in ``work``, in a new process group, until it
    ends or ``deadline`` (``time.monotonic``; the check's ``timeout`` s, ``longest``: the default)
    passes; a load is also killed :data:`LOAD_GRACE` s past :func:`~submissions.timing.load_limit`
    after it started, and a move once Kaggle would have given up on it. ``on_event`` is called with
    each of the probe's events as it comes (within :data:`POLL` s). The group is killed on the way
    out, whatever happens (an exception, ``KeyboardInterrupt``,
    :class:`~tournament.signals.Terminated`). ``python``: the interpreter that runs the probe."""
    out = work / "events.jsonl"
    arguments = json.dumps({**request, "stage": "check", "out": str(out)})
    command = [python, "-I", str(work / "probe.py"), arguments]
    errors = work / "probe.stderr"
    stderr = open(errors, "w", encoding="utf-8")  # noqa: SIM115 - closed once the process runs
    process = subprocess.Popen(
        command, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
        start_new_session=True,
    )  # fmt: skip
    kill_at, limit = deadline, None  # limit: the load's, once it started
    loaded = False  # the load has ended
    seen = 0  # events passed to on_event
    moves = _Moves(out)
    try:
        stderr.close()
        while True:
            try:
                code = process.wait(timeout=POLL)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            events = read_events(out)
            for event in events[seen:]:
                on_event(event)
            seen = max(seen, len(events))
            if limit is None and any(e["event"] == "loading" for e in events):
                limit = request["load_limit"]
                kill_at = min(deadline, now + limit + LOAD_GRACE)
            if not loaded and any(e["event"] == "load" for e in events):
                loaded, kill_at = True, deadline
            if (late := moves.late(now)) is not None:
                return _Outcome(moves.events, hung=True, timeout=late, forfeits=True, move=True)
            if now >= kill_at:
                events = read_events(out)
                if limit is not None and not loaded and kill_at < deadline:
                    return _Outcome(events, hung=True, timeout=limit, forfeits=True)
                # a probe killed before it started loading: the file had not run yet
                forfeits = timeout >= longest and limit is not None
                return _Outcome(events, hung=True, timeout=timeout, forfeits=forfeits)
    finally:
        _kill_group(process)
    events = read_events(out)
    for event in events[seen:]:
        on_event(event)
    crash = ""
    if code != 0:
        crash = errors.read_text(encoding="utf-8", errors="replace").strip() or (
            f"exit status {code} and nothing on stderr: did the file end the process (sys.exit, os._exit)?"
        )
    return _Outcome(events, crash=crash)


class _Moves:
    """The moves of the file in the games stage's output ``out``, as they are announced
    (:mod:`submissions.probe`'s ``call`` and ``returned`` events)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.events: list[dict] = []
        self._size = -1
        self._call: tuple[int, float, float] | None = None  # the open call: its index, seen at, limit

    def late(self, now: float) -> float | None:
        """The limit in seconds of the move that has lasted longer than Kaggle waits for it, if any:
        its ``limit`` plus :data:`LOAD_GRACE` since this process first saw it announced (at most
        :data:`POLL` s after it was)."""
        try:
            size = self.out.stat().st_size
        except FileNotFoundError:
            return None
        if size != self._size:
            self._size, self.events = size, read_events(self.out)
            last = len(self.events) - 1
            if last < 0 or self.events[last]["event"] != "call":
                self._call = None
            elif self._call is None or self._call[0] != last:
                self._call = (last, now, float(self.events[last]["limit"]))
        if self._call is not None and now - self._call[1] > self._call[2] + LOAD_GRACE:
            return self._call[2]
        return None


def check_file(
    path: str | os.PathLike[str],
    *,
    games: int = 2,
    act_timeout: float = DEFAULT_ACT_TIMEOUT,
    timeout: float | None = None,
    time_policy: str = "load",
    seed: int = 1,
    on_event: Callable[[dict], object] = lambda event: None,
    python: str | os.PathLike[str] | None = None,
    packages: str = "",
) -> CheckReport:
    """Check the submission file at ``path`` as described in the module docstring.

    ``games``: games against each Kaggle opponent (≥ 0); ``act_timeout``: Kaggle's ``actTimeout``
    in seconds for every game; ``timeout``: seconds before a hung check is killed (default
    :func:`default_timeout`; a load is killed sooner, past Kaggle's own limit); ``time_policy``: what
    must fit in ``act_timeout`` (:data:`TIME_POLICIES`, see the module docstring); ``seed`` seeds the
    global generators Kaggle's built-in agents use; ``on_event`` is called with each event of the
    probe as it comes (``{"event": "loading"}``, ``{"event": "start", "game": 0, "label": ...}``,
    ...: :mod:`submissions.probe`), for a progress display; ``python``: the interpreter that plays
    the file (default this one; :func:`submissions.kaggle_packages.environment` gives one with
    Kaggle's packages), and ``packages`` says in the report what it holds ("" for this one). Raises
    :class:`CheckInputError` when ``path`` is not an existing file or an option is out of range;
    everything wrong with the file itself is reported in the :class:`CheckReport`.
    ``KeyboardInterrupt`` (SIGINT) and :class:`~tournament.signals.Terminated` (SIGTERM,
    :func:`~tournament.signals.sigterm_raises`) propagate, the probe's processes killed and its temporary
    directory removed.
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
    reason = _compile_failure(text, source)
    if reason:
        return CheckReport(
            path=str(source), size=size, act_timeout=act_timeout, origin=origin, packages=packages,
            passed=False, forfeit=True, time_policy=time_policy,
            warnings=tuple(filter(None, [size_warning(size)])), reasons=(reason,),
            seconds=time.perf_counter() - started,
        )  # fmt: skip
    del text
    longest = default_timeout(games, act_timeout)
    timeout = longest if timeout is None else timeout
    request = {
        "act_timeout": act_timeout,
        "games": games,
        "opponents": list(OPPONENTS),
        "project_root": str(PROJECT_ROOT),
        "packages": sorted(p.name for p in PROJECT_ROOT.iterdir() if (p / "__init__.py").is_file()),
        "refuse": list(REFEREE_UNNEEDED),
        "seed": seed,
        "stop_over": act_timeout if time_policy == "strict" else None,
        "load_limit": load_limit(act_timeout),
    }
    interpreter = str(python or sys.executable)
    events, ended = _probe(source, request, timeout, longest, on_event, interpreter)
    facts = FileFacts(path=str(source), size=size, act_timeout=act_timeout, origin=origin, packages=packages)
    return verdict(
        facts, events,
        time_policy=time_policy, crash=ended.crash, hung=ended.hung, timeout=ended.timeout,
        started=started, hang_forfeits=ended.forfeits, late_move=ended.move,
    )  # fmt: skip


def _compile_failure(text: bytes, source: Path) -> str:
    """Why the file's ``text`` does not compile, as a reason ("" when it does)."""
    try:
        compile(text, str(source), "exec", dont_inherit=True)
    except SyntaxError as error:
        return (f"the file does not compile: {type(error).__name__} at line {error.lineno}: {error.msg}; "
                f"Kaggle's loader fails alike at the first move")  # fmt: skip
    except ValueError as error:  # e.g. a null byte
        return f"the file does not compile: {error}; Kaggle's loader fails alike at the first move"
    return ""


def _probe(
    source: Path,
    request: dict,
    timeout: float,
    longest: float,
    on_event: Callable[[dict], object],
    python: str,
) -> tuple[list[dict], _Outcome]:
    """Run the probe on a copy of ``source`` in a temporary directory (``request`` without the copy's
    path): the events of both its stages, and how it ended."""
    deadline = time.monotonic() + timeout
    with sigterm_raises(), tempfile.TemporaryDirectory(prefix="connectx-check-") as tmp:
        work = Path(tmp)
        (work / "submission").mkdir()
        target = work / "submission" / source.name
        shutil.copyfile(source, target)
        shutil.copyfile(probe.__file__, work / "probe.py")
        request = {"path": str(target), **request}
        ended = _run_probe(request, work, deadline, timeout, longest, on_event, python)
    return ended.events, ended
