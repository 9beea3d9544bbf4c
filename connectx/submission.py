"""``connectx build`` and ``connectx check``: single-file Kaggle submissions.

* ``build SPEC [-o PATH]`` writes the single-file submission of an agent spec (``negamax``,
  ``minimax:depth=4``; see :mod:`agents.registry`), then checks it unless ``--no-check``;
* ``check PATH`` proves a file the way Kaggle loads it (:mod:`submissions.check`) and says plainly
  whether Kaggle would forfeit it, with the overage bank each game used and which search its solver
  ran (compiled, or pure Python where numba is missing); ``--kaggle-packages`` plays it with
  Kaggle's versions of numba, numpy, scipy and kaggle-environments, in an environment made once in
  the user's cache folder (:mod:`submissions.kaggle_packages`).

The verdict (``PASS: ...`` or ``FAIL: ...`` and why, :func:`submissions.report.headline`) opens the
report and, after the details (a traceback can be long), closes it as its last line, with the file.

Exit status: 0 built and/or passed; 1 the check failed; 2 bad input -- an unknown spec, a spec that
cannot be built (a ``.py`` file, a Kaggle built-in, an agent importing what a submission cannot),
a missing file, a bad option -- or an environment of Kaggle's packages that could not be made,
reported in one line, nothing written; 130 interrupted (SIGINT,
Ctrl-C) and 143 terminated (SIGTERM) during a check, one line, the check's processes killed and its
temporary directory removed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.registry import SpecError
from connectx.options import BOUNDS, act_timeout_option, check_ranges, games_option
from connectx.submitting import check, write_submission
from submissions.build import BuildError
from submissions.check import TIME_POLICIES, CheckInputError
from submissions.kaggle_packages import KagglePackagesError
from submissions.report import format_report
from tournament.signals import TERMINATED, Terminated

DEFAULT_OUTPUT = Path("submission.py")
MAX_GAMES = 1000
"""Most ``--games`` a check plays against each opponent."""

LIMITS: dict[str, tuple[float, float]] = {
    "games": (0, MAX_GAMES),
    "act_timeout": BOUNDS["act_timeout"],
    "timeout": (0.0, 7 * 24 * 3600.0),  # seconds: a week
}
"""Bounds of the numeric options (a lowest of 0.0 means positive), checked before anything is done."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``build`` and ``check`` to the subcommands ``commands``."""
    build = commands.add_parser("build", help="write the single-file Kaggle submission of an agent spec")
    build.add_argument("spec", help="agent spec: NAME or NAME:key=value[,key=value] (e.g. minimax:depth=4)")
    build.add_argument(
        "-o", "--output", type=Path, default=DEFAULT_OUTPUT, help=f"file to write (default {DEFAULT_OUTPUT})"
    )
    build.add_argument("--no-check", action="store_true", help="do not check the written file")
    _check_options(build)
    build.set_defaults(handler=_build)
    check = commands.add_parser(
        "check",
        help="play a submission file the way Kaggle loads it: would Kaggle forfeit it?",
        description="Play PATH the way Kaggle loads it (a fresh python -I process, our packages "
        "unimportable): the validation episode against itself, then games against kaggle's random and "
        "negamax. Says PASS or FAIL and whether Kaggle would forfeit the agent. A move may take "
        "actTimeout; Kaggle draws the time beyond it (loading the file counts in move one) from a 60 s "
        "overage bank each agent has in each game, and forfeits an agent that overdraws it: the report "
        "shows the bank each game used and left, warning when a game used more than half of it, and "
        "warns about a file over 5 MB. Exit status 0 passed, 1 failed, 2 bad input, 130 interrupted, "
        "143 terminated.",
    )
    check.add_argument("path", type=Path, help="the .py file to check")
    _check_options(check)
    check.set_defaults(handler=_check)


def _check_options(parser: argparse.ArgumentParser) -> None:
    games_option(parser, "games against each of kaggle's random and negamax", 2)
    act_timeout_option(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="kill a check still running after this long (default: the longest Kaggle lets the games "
        "last; loading the file is stopped sooner, past the actTimeout + 60 s bank Kaggle lets it take)",
    )
    parser.add_argument(
        "--time-policy",
        choices=TIME_POLICIES,
        default=TIME_POLICIES[0],
        help="what must fit in actTimeout: load (the default: executing the file, which "
        "Kaggle does inside move one; moves may draw on the overage bank), strict (loading "
        "and every move), bank (nothing: only Kaggle's verdict on an overdrawn bank)",
    )
    parser.add_argument(
        "--kaggle-packages",
        action="store_true",
        help="play the file with Kaggle's versions of numba, numpy, scipy and kaggle-environments "
        "(submissions/data/kaggle-packages.txt), in a virtual environment made once in the user's cache "
        "folder (minutes and about 2 GB the first time) and reused",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print Kaggle's logged tracebacks, and the builder's notes on the agent's code",
    )


def _check_file(path: Path, args: argparse.Namespace) -> int:
    """Check ``path`` (:func:`connectx.submitting.check`) and print its report, the verdict last."""
    try:
        result = check(
            path, games=args.games, act_timeout=args.act_timeout, timeout=args.timeout,
            time_policy=args.time_policy, kaggle_packages=args.kaggle_packages,
        )  # fmt: skip
    except KagglePackagesError as error:
        print(f"error: Kaggle's packages: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM's Terminated
        how, status = ("terminated", TERMINATED) if isinstance(stop, Terminated) else ("interrupted", 130)
        print(f"\n{how}: the check of {path} stopped; its processes were killed", file=sys.stderr)
        return status
    print(format_report(result.report, verbose=args.verbose))
    print(f"{path}: {result.headline}")  # last, where a person looks first when the command ends
    return 0 if result else 1


def _check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx check PATH``."""
    check_ranges(args, parser, LIMITS)
    try:
        return _check_file(args.path, args)
    except CheckInputError as error:
        parser.error(str(error))


def _build(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx build SPEC``: what the user can act on is a warning; the builder's notes on the
    agent's code (for who develops it) show with ``--verbose`` only."""
    check_ranges(args, parser, LIMITS)
    try:
        submission = write_submission(args.spec, args.output)
    except (SpecError, BuildError, SyntaxError) as error:
        parser.error(str(error))
    size = len(submission.text.encode("utf-8"))
    data = ", ".join(f"{name} {size} bytes" for name, size in submission.data) or "none"
    print(
        f"built {args.output}: {submission.spec}, {size} bytes ({size / 1024:.1f} KB), "
        f"modules {', '.join(submission.modules)}; data: {data}"
    )
    for warning in submission.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.verbose:
        for note in submission.notes:
            print(f"note: {note}")
    if args.no_check:
        return 0
    return _check_file(args.output, args)
