"""The path of one run's data from the store into the written report: how many steps it takes through
the project's files, and how many of them go back into a file already left (issue 55, item 2).

Calls :func:`connectx.results.write_report` on RUN twice (the first loads the modules it imports on
the way) and traces the second with :func:`sys.setprofile`, in the main thread, restricted to the
project's packages (``agents``, ``tournament``, ``reports``, ``connectx``, ``web``; modules' own
code, i.e. imports, left out). A call from a function in one file to a function in another is a
move; a *step* is each distinct move (caller's file, callee's file), counted at its first occurrence,
so a loop that calls the same helper a thousand times is one step. A step goes *back* when its
callee's file was entered before and left (the trace returned out of it, or called out of it, at
least once) before that step first occurs. Steps into the small shared helpers (:data:`HELPERS`:
words, durations, the game record's methods, the board's notation) are also counted apart, and so
are the steps before the first into :mod:`reports.render` (the assembly) and from it on (the rendering).

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
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agents", "tournament", "reports", "connectx", "web")
HELPERS = (
    "reports/words.py",
    "reports/durations.py",
    "tournament/record.py",
    "agents/engine/board.py",
    "agents/engine/lines.py",
    "agents/engine/geometry.py",
)
"""Small shared helpers: steps into them are allowed by the goal, and counted apart."""
RENDER = "reports/render/"
"""The steps from the first into this folder on are the rendering's; those before, the assembly of the
:class:`reports.report.Report` (the store read, the statistics, the sections)."""


def _project(filename: str) -> str | None:
    """``filename`` relative to the project when it is in one of :data:`PACKAGES`, else None."""
    try:
        relative = Path(filename).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return relative if relative.split("/", 1)[0] in PACKAGES else None


def trace(run: Path) -> list[tuple[str, str, bool]]:
    """The steps of :func:`connectx.results.write_report` on ``run``, in order: ``(caller's file,
    callee's file, whether it goes back into a file already left)``."""
    from connectx.results import write_report
    from tournament.store import Store

    names: dict[str, str | None] = {}

    def name(frame: FrameType) -> str | None:
        filename = frame.f_code.co_filename
        if filename not in names:
            names[filename] = _project(filename)
        return names[filename]

    steps: dict[tuple[str, str], bool] = {}
    entered: set[str] = set()
    left: set[str] = set()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return") or frame.f_code.co_name == "<module>":
            return
        here = name(frame)
        if here is None:
            return
        caller = frame.f_back
        while caller is not None and name(caller) is None:
            caller = caller.f_back
        there = name(caller) if caller is not None else None
        if there is None or there == here:
            return
        if event == "return":
            left.add(here)
            return
        left.add(there)
        if (there, here) not in steps:
            steps[there, here] = here in entered and here in left
        entered.add(here)

    with tempfile.TemporaryDirectory() as out, Store.open(run, read_only=True) as store:
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            write_report(store, run, Path(out))
            sys.setprofile(profile)
            try:
                write_report(store, run, Path(out))
            finally:
                sys.setprofile(None)
    return [(a, b, back) for (a, b), back in steps.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run folder (tournament.db, perhaps moves.csv)")
    parser.add_argument("--list", action="store_true", help="print every step")
    args = parser.parse_args()
    steps = trace(args.run)
    if args.list:
        for caller, callee, back in steps:
            print(f"{'back ' if back else '     '}{caller} -> {callee}")
    rendering = next((k for k, (_, callee, _) in enumerate(steps) if callee.startswith(RENDER)), len(steps))
    stages = (("all", steps), ("to the Report", steps[:rendering]), ("rendering", steps[rendering:]))
    for stage, part in stages:
        backs = [callee for _, callee, back in part if back]
        helpers = sum(callee in HELPERS for callee in backs)
        print(
            f"{stage}: {len(part)} steps, {len(backs)} back into a file already left "
            f"({helpers} of them into a small shared helper, {len(backs) - helpers} elsewhere)"
        )
        print("  back into: " + ", ".join(f"{file} {n}" for file, n in Counter(backs).most_common()))


if __name__ == "__main__":
    main()
