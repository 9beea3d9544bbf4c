"""The path of one run's data from the store into the written report: how many steps it takes through
the project's files, and how many of them go back into a file already left (issue 55, item 2).

Calls :func:`connectx.results.write_report` on RUN twice (the first loads the modules it imports on
the way) and traces the second with :func:`sys.setprofile`, in the main thread, restricted to the
project's packages (``agents``, ``tournament``, ``reports``, ``connectx``, ``web``; modules' own
code, i.e. imports, left out). A call from a function in one file to a function in another is a
move; a *step* is each distinct move (caller's file, callee's file), counted at its first occurrence,
so a loop that calls the same helper a thousand times is one step. A step goes *back* when its
callee's file was entered before and left (the trace returned out of it, or called out of it, at
least once) before that step first occurs.

The goal allows a step back "to call a small shared helper". The rule for one, by what the trace
sees, the same for every file: a call goes into a *small shared helper* when the function called has
at most :data:`HELPER_LINES` lines of code in its body (lines holding bytecode, :meth:`code.co_lines`;
the ``def`` line, the docstring and comments hold none) and every function of the project it runs in
turn is such a helper too: a value's property or formatting method (``WDL.points``,
``Rating.label``), :func:`reports.words.plural`. A step back counts as one into a small shared
helper when every call made along it went into one; the others are *real* steps back. The rule
counts lines, not work: a short loop over every game would pass for a helper, so whether a
statistic is counted once, in one pass, is for the code to show
(:class:`reports.stats.results.Results`). The steps before the first into :mod:`reports.render` (the
assembly) and from it on (the rendering) are counted apart too. ``--list`` prints each step, and
for a step back the functions it called (``*`` marks one that is not a small shared helper).

    python -m scripts.report_path RUN
    python -m scripts.report_path RUN --list
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agents", "tournament", "reports", "connectx", "web")
HELPER_LINES = 12
"""The most lines of code in the body of a small shared helper."""
RENDER = "reports/render/"
"""The steps from the first into this folder on are the rendering's; those before, the assembly of the
:class:`reports.report.Report` (the store read, the statistics, the sections)."""


@dataclass(slots=True)
class Step:
    """One step: whether it went back at its first occurrence, and the functions called along it with
    whether each call went into a small shared helper (False once any did not)."""

    back: bool
    called: dict[str, bool] = field(default_factory=dict)

    @property
    def into_helpers(self) -> bool:
        """Whether every call along the step went into a small shared helper."""
        return all(self.called.values())


@dataclass(slots=True)
class _Call:
    """A project function running: its step (None within a file) and whether it is a helper so far."""

    step: tuple[str, str] | None
    name: str
    helper: bool
    parent: int | None


def _body_lines(code: CodeType) -> int:
    """Lines of code in the body of ``code``: lines holding bytecode, its first line (``def``) left out."""
    return len({line for _, _, line in code.co_lines() if line is not None and line != code.co_firstlineno})


def _project(filename: str) -> str | None:
    """``filename`` relative to the project when it is in one of :data:`PACKAGES`, else None."""
    try:
        relative = Path(filename).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return relative if relative.split("/", 1)[0] in PACKAGES else None


class _Tracer:
    """The profile function of :func:`trace` and what it books: the steps in order, the files entered
    and left, and the project's functions running."""

    def __init__(self) -> None:
        self.names: dict[str, str | None] = {}
        self.steps: dict[tuple[str, str], Step] = {}
        self.entered: set[str] = set()
        self.left: set[str] = set()
        self.running: dict[int, _Call] = {}

    def name(self, frame: FrameType) -> str | None:
        """The project file of ``frame``'s code (:func:`_project`)."""
        filename = frame.f_code.co_filename
        if filename not in self.names:
            self.names[filename] = _project(filename)
        return self.names[filename]

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        """:func:`sys.setprofile`'s callback."""
        if event not in ("call", "return") or frame.f_code.co_name == "<module>":
            return
        here = self.name(frame)
        if here is None:
            return
        caller = frame.f_back
        while caller is not None and self.name(caller) is None:
            caller = caller.f_back
        there = self.name(caller) if caller is not None else None
        if event == "return":
            self.returned(self.running.pop(id(frame), None))
            if there is not None and there != here:
                self.left.add(here)
            return
        step = None if there is None or there == here else (there, here)
        small = _body_lines(frame.f_code) <= HELPER_LINES
        parent = id(caller) if caller is not None else None
        self.running[id(frame)] = _Call(step, f"{here}:{frame.f_code.co_qualname}", small, parent)
        if step is not None:
            self.left.add(step[0])
            if step not in self.steps:
                self.steps[step] = Step(here in self.entered and here in self.left)
            self.entered.add(here)

    def returned(self, call: _Call | None) -> None:
        """Book a finished ``call``: a function that was no helper makes its caller none either, and the
        step it was called along records whether it was one."""
        if call is None:
            return
        if not call.helper and call.parent in self.running:
            self.running[call.parent].helper = False
        if call.step is not None and call.step in self.steps:
            called = self.steps[call.step].called
            called[call.name] = called.get(call.name, True) and call.helper


def trace(run: Path) -> dict[tuple[str, str], Step]:
    """The steps of :func:`connectx.results.write_report` on ``run``, in order, by ``(caller's file,
    callee's file)``."""
    from connectx.results import write_report
    from tournament.store import Store

    tracer = _Tracer()
    with tempfile.TemporaryDirectory() as out, Store.open(run, read_only=True) as store:
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            write_report(store, run, Path(out))
            sys.setprofile(tracer.profile)
            try:
                write_report(store, run, Path(out))
            finally:
                sys.setprofile(None)
    return tracer.steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run folder (tournament.db, perhaps moves.csv)")
    parser.add_argument("--list", action="store_true", help="print every step")
    args = parser.parse_args()
    steps = list(trace(args.run).items())
    if args.list:
        for (caller, callee), step in steps:
            print(f"{'back ' if step.back else '     '}{caller} -> {callee}")
            if step.back:
                for function, helper in step.called.items():
                    print(f"       {' ' if helper else '*'} {function.split(':', 1)[1]}")
    rendering = next((k for k, ((_, callee), _) in enumerate(steps) if callee.startswith(RENDER)), len(steps))
    for stage, part in (
        ("all", steps),
        ("to the Report", steps[:rendering]),
        ("rendering", steps[rendering:]),
    ):
        backs = [(callee, step) for (_, callee), step in part if step.back]
        real = [callee for callee, step in backs if not step.into_helpers]
        print(
            f"{stage}: {len(part)} steps, {len(backs)} back into a file already left "
            f"({len(backs) - len(real)} of them into a small shared helper, {len(real)} real)"
        )
        files = ", ".join(f"{file} {n}" for file, n in Counter(real).most_common())
        print(f"  real steps back into: {files or 'none'}")


if __name__ == "__main__":
    main()
