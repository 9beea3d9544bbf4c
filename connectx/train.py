"""``connectx train``: train one of the classic learners, resumably, with a learning curve.

``connectx train METHOD --games N --out DIR`` trains ``METHOD`` (a key of
:data:`training.learners.LEARNERS`) on the board of ``--rows/--columns/--inarow`` with ``--seed``
(:mod:`training.driver` does the work): progress on stderr; every ``--eval-every`` games and at
the end the weights ``DIR/METHOD.npz``, a score against ``random`` and ``one_step`` over
``--eval-pairs`` game pairs each, a row of ``DIR/curve.csv`` and ``DIR/curve.png``, and
``DIR/checkpoint.pkl``. The same command again resumes from the checkpoint; a larger ``--games``
trains on. The weights play as the spec ``METHOD:weights=DIR/METHOD.npz`` (``connectx run``,
``connectx build``).

Exit status: 0 trained, or the checkpoint already had ``--games``; 2 bad input -- an unknown method,
a bad option, a checkpoint of another method / board / seed in ``DIR`` (left untouched) -- in one
line; 130 interrupted (the last checkpoint stays).
"""

from __future__ import annotations

import argparse
import sys

from agents.engine.board import InvalidBoardError, geometry
from connectx.options import BOUNDS, board_options, check_ranges, games_option, out_option, seed_option
from reports.words import plural
from training.driver import CHUNK, EVALUATIONS, Interrupted, RunError, TrainingSettings, run
from training.learners import LEARNERS

MAX_GAMES = 100_000_000
LIMITS: dict[str, tuple[float, float]] = {
    "games": (1, MAX_GAMES),
    "eval_every": (1, MAX_GAMES),
    "eval_pairs": (1, 1000),
    "rows": (1, 16),
    "columns": (1, 16),
    "inarow": (1, 16),
    "seed": BOUNDS["seed"],
}
"""Bounds of the numeric options, checked before anything is done."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``train`` to the subcommands ``commands``."""
    command = commands.add_parser(
        "train",
        help=f"train a learner ({', '.join(LEARNERS)}) and write its weights and learning curve",
        description="Train one of the classic learners by playing training games, resumably. Writes "
        "DIR/METHOD.npz (the weights: play them as METHOD:weights=DIR/METHOD.npz), DIR/curve.csv and "
        "DIR/curve.png (scores against random and one_step, the learner's metrics) and "
        "DIR/checkpoint.pkl; the same command again resumes. "
        "Example: connectx train lms --games 2000 --out runs/lms",
    )
    command.add_argument("method", metavar="METHOD", help="what to train: " + ", ".join(LEARNERS))
    games_option(command, "training games in all, those before a resume included")
    out_option(command, "directory of the run", required=True)
    board_options(command)
    seed_option(command, 0, "the learner and the evaluations")
    command.add_argument(
        "--eval-every",
        type=int,
        default=None,
        metavar="GAMES",
        help=f"evaluate and checkpoint every this many games, rounded up to a multiple of {CHUNK} "
        f"(default: --games / {EVALUATIONS})",
    )
    command.add_argument(
        "--eval-pairs",
        type=int,
        default=10,
        metavar="PAIRS",
        help="game pairs (a two-ply opening, both colours) against each of random and one_step per "
        "evaluation (default 10)",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    command.set_defaults(handler=_train)


def _train(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx train``: 0 trained or already done, 2 bad input (one line), 130 interrupted."""
    check_ranges(args, parser, LIMITS)
    if args.method not in LEARNERS:
        parser.error(f"unknown method {args.method!r} (known: {', '.join(LEARNERS)})")
    try:
        geo = geometry(args.rows, args.columns, args.inarow)
    except InvalidBoardError as error:
        parser.error(str(error))
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out}: not a directory")
    settings = TrainingSettings(args.method, geo, args.games, args.seed, args.eval_every, args.eval_pairs)
    try:
        summary = run(settings, args.out, progress=not args.quiet)
    except RunError as error:
        parser.error(str(error))
    except ImportError as error:  # a learner needing what is not installed (e.g. the jax extra)
        parser.error(f"cannot train {args.method}: {error}")
    except Interrupted as interrupted:
        where = (
            f"the checkpoint of {plural(interrupted.games, 'game')} stays"
            if interrupted.games
            else "nothing saved"
        )
        print(f"\ninterrupted: {where} in {args.out}; run the same command to resume", file=sys.stderr)
        return 130
    if summary.already_done:
        print(
            f"{args.out} already holds {plural(summary.games, 'game')} of {args.method} "
            f"(--games {args.games}): "
            "nothing to train; give a larger --games to train on"
        )
    scores = ", ".join(f"{name} {100 * score:.1f} %" for name, score in summary.scores.items())
    print(
        f"{args.method}: {plural(summary.games, 'game')} trained on {geo.rows}x{geo.columns}, "
        f"{geo.inarow} in a row, {summary.train_seconds:.1f} s training, "
        f"{summary.seconds:.1f} s in all (evaluations too)\n"
        f"weights:  {summary.weights}  (agent spec: {summary.spec})\n"
        f"curve:    {summary.csv}, {summary.png}\n"
        f"scores:   {scores or 'none yet'} (wins + draws / 2, last evaluation)\n"
        f"resume or extend: connectx train {args.method} --games N --out {args.out}"
        + (f" --seed {args.seed}" if args.seed else "")
        + (
            ""
            if (geo.rows, geo.columns, geo.inarow) == (6, 7, 4)
            else f" --rows {geo.rows} --columns {geo.columns} --inarow {geo.inarow}"
        )
    )
    return 0
