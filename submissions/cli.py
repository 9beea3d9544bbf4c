"""The ``python -m submissions`` command.

* ``build SPEC [-o PATH]`` writes the single-file submission of an agent spec (``negamax``,
  ``minimax:depth=4``; see :mod:`agents.registry`), then checks it unless ``--no-check``;
* ``check PATH`` proves a file the way Kaggle loads it (:mod:`submissions.check`).

Exit status: 0 built and/or passed; 1 the check failed; 2 bad input -- an unknown spec, a spec that
cannot be built (a ``.py`` file, a Kaggle built-in, an agent importing what a submission cannot),
a missing file, a bad option -- reported in one line, nothing written.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import NoReturn

from agents.registry import SpecError
from submissions.build import BuildError, build_spec, write
from submissions.check import KAGGLE_ACT_TIMEOUT, TIME_POLICIES, CheckInputError, check_file, format_report

DEFAULT_OUTPUT = Path("submission.py")
MAX_GAMES = 1000
"""Most ``--games`` a check plays against each opponent."""
MAX_ACT_TIMEOUT = 3600.0
"""Longest ``--act-timeout``, in seconds."""
MAX_TIMEOUT = 7 * 24 * 3600.0
"""Longest ``--timeout`` (a week), in seconds."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``error: ...``, like the command's other errors."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message}\n")


def _check_numbers(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Exit with one line unless ``--games`` is within [0, MAX_GAMES] and the times are finite,
    positive and within their maximum."""
    if not 0 <= args.games <= MAX_GAMES:
        parser.error(f"--games must be >= 0 and <= {MAX_GAMES}, got {args.games}")
    for option, value, highest in (
        ("--act-timeout", args.act_timeout, MAX_ACT_TIMEOUT),
        ("--timeout", args.timeout, MAX_TIMEOUT),
    ):
        if value is not None and not (math.isfinite(value) and 0 < value <= highest):
            parser.error(f"{option} must be positive and <= {highest:g} seconds, got {value!r}")


def _check_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=2,
                        help="games against each of kaggle's random and negamax (default 2)")
    parser.add_argument("--act-timeout", type=float, default=KAGGLE_ACT_TIMEOUT, metavar="SECONDS",
                        help=f"Kaggle's actTimeout for every game (default {KAGGLE_ACT_TIMEOUT:g})")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="kill a check still running after this long (default: longest Kaggle allows)")
    parser.add_argument("--time-policy", choices=TIME_POLICIES, default=TIME_POLICIES[0],
                        help="what must fit in actTimeout: load (the default: executing the file, which "
                        "Kaggle does inside move one; moves may draw on the overage bank), strict (loading "
                        "and every move), bank (nothing: only Kaggle's verdict on an overdrawn bank)")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print Kaggle's logged tracebacks")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m submissions",
        description="Single-file Kaggle ConnectX submissions: build them from our agents, check them "
        "as Kaggle loads them.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{build,check}")
    build = commands.add_parser("build", help="write the single-file submission of an agent spec")
    build.add_argument("spec", help="agent spec: NAME or NAME:key=value[,key=value] (e.g. minimax:depth=4)")
    build.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT,
                       help=f"file to write (default {DEFAULT_OUTPUT})")
    build.add_argument("--no-check", action="store_true", help="do not check the written file")
    _check_options(build)
    check = commands.add_parser("check", help="play a submission file the way Kaggle loads it")
    check.add_argument("path", type=Path, help="the .py file to check")
    _check_options(check)
    return parser


def _check(path: Path, args: argparse.Namespace) -> int:
    if path.is_file():
        print(
            f"checking {path} as Kaggle loads it: the validation episode, then {args.games} game(s) "
            f"against each of kaggle's random and negamax, actTimeout {args.act_timeout:g} s ...",
            flush=True,
        )
    report = check_file(path, games=args.games, act_timeout=args.act_timeout, timeout=args.timeout,
                        time_policy=args.time_policy)
    print(format_report(report, verbose=args.verbose))
    return 0 if report.passed else 1


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    _check_numbers(args, parser)
    try:
        if args.command == "check":
            return _check(args.path, args)
        submission = build_spec(args.spec)
        if args.output.is_dir() or not args.output.parent.is_dir():
            raise CheckInputError(f"cannot write {args.output}: not a file in an existing directory")
        size = write(submission, args.output)
    except (SpecError, BuildError, CheckInputError, SyntaxError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    data = ", ".join(f"{name} {size} bytes" for name, size in submission.data) or "none"
    print(f"built {args.output}: {submission.spec}, {size} bytes ({size / 1024:.1f} KB), "
          f"modules {', '.join(submission.modules)}; data: {data}")
    for warning in submission.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.no_check:
        return 0
    return _check(args.output, args)
