"""``connectx train``: train one of the learners, resumably, with a learning curve.

``connectx train METHOD --games N --out DIR`` trains ``METHOD`` (a key of
:data:`training.learners.LEARNERS`) on the board of ``--rows/--columns/--inarow`` with ``--seed``
(:mod:`training.driver` does the work); ``ppo``, counted in its moves, takes ``--steps N`` instead
(rounded up to whole rollouts) and its settings as ``--param NAME=VALUE``
(:class:`training.learners.ppo.Parameters`; without the ``[rl]`` extra it says what to install).
Progress on stderr; every ``--eval-every`` games (steps) and at the end the weights
``DIR/METHOD.npz``, a score against ``random`` and ``one_step`` over
``--eval-pairs`` game pairs each, a row of ``DIR/curve.csv`` and ``DIR/curve.png``, and
``DIR/checkpoint.pkl``. The same command again resumes from the checkpoint; a larger ``--games``
(``--steps``) trains on. The weights play as the spec ``METHOD:weights=DIR/METHOD.npz`` (``connectx run``,
``connectx build``).

Exit status: 0 trained, or the checkpoint already had ``--games``; 2 bad input -- an unknown method,
a bad option, a learner that is not installed, a checkpoint of another method / board / seed /
parameters in ``DIR`` (left untouched) -- in one line; 130 interrupted (the last checkpoint stays).
"""

from __future__ import annotations

import argparse
import sys

from agents.engine.board import InvalidBoardError, geometry
from connectx.options import BOUNDS, board_options, check_ranges, out_option, seed_option
from reports.words import plural
from training.driver import CHUNK, EVALUATIONS, Interrupted, RunError, TrainingSettings, run
from training.learners import LEARNERS, parameters, unit

MAX_GAMES = 100_000_000
LIMITS: dict[str, tuple[float, float]] = {
    "games": (1, MAX_GAMES),
    "steps": (1, MAX_GAMES),
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
        description="Train one of the learners by playing training games, resumably. Writes "
        "DIR/METHOD.npz (the weights: play them as METHOD:weights=DIR/METHOD.npz), DIR/curve.csv and "
        "DIR/curve.png (scores against random and one_step, the learner's metrics) and "
        "DIR/checkpoint.pkl; the same command again resumes. "
        "Examples: connectx train lms --games 2000 --out runs/lms; "
        "connectx train ppo --steps 1000000 --out runs/ppo (the [rl] extra)",
    )
    command.add_argument("method", metavar="METHOD", help="what to train: " + ", ".join(LEARNERS))
    length = command.add_mutually_exclusive_group(required=True)
    length.add_argument("--games", type=int, help="training games in all, those before a resume included")
    length.add_argument(
        "--steps",
        type=int,
        help="for ppo, counted in its moves: training steps in all, rounded up to whole rollouts",
    )
    out_option(command, "directory of the run", required=True)
    board_options(command)
    seed_option(command, 0, "the learner and the evaluations")
    command.add_argument(
        "--eval-every",
        type=int,
        default=None,
        metavar="GAMES",
        help=f"evaluate and checkpoint every this many games (ppo: steps), rounded up to a multiple of "
        f"{CHUNK} (ppo: of a rollout) (default: --games / {EVALUATIONS})",
    )
    command.add_argument(
        "--eval-pairs",
        type=int,
        default=10,
        metavar="PAIRS",
        help="game pairs (a two-ply opening, both colours) against each of random and one_step per "
        "evaluation (default 10)",
    )
    command.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the learner, repeatable; a list's items joined by + (ppo's: docs/rl.md; an "
        "unknown NAME lists them)",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    command.set_defaults(handler=_train)


def _train(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx train``: 0 trained or already done, 2 bad input (one line), 130 interrupted."""
    check_ranges(args, parser, LIMITS)
    if args.method not in LEARNERS:
        parser.error(f"unknown method {args.method!r} (known: {', '.join(LEARNERS)})")
    params = _params(args, parser)
    try:
        geo = geometry(args.rows, args.columns, args.inarow)
    except InvalidBoardError as error:
        parser.error(str(error))
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out}: not a directory")
    total = args.games if args.games is not None else args.steps
    settings = TrainingSettings(
        args.method, geo, total, args.seed, args.eval_every, args.eval_pairs, tuple(params.items())
    )
    try:
        summary = run(settings, args.out, progress=not args.quiet)
    except RunError as error:
        parser.error(str(error))
    except ImportError as error:  # a learner needing what is not installed (e.g. the jax extra)
        parser.error(f"cannot train {args.method}: {error}")
    except Interrupted as interrupted:
        where = (
            f"the checkpoint of {plural(interrupted.games, settings.unit())} stays"
            if interrupted.games
            else "nothing saved"
        )
        print(f"\ninterrupted: {where} in {args.out}; run the same command to resume", file=sys.stderr)
        return 130
    if summary.already_done:
        print(
            f"{args.out} already holds {plural(summary.done, summary.unit)} of {args.method} "
            f"(--{summary.unit}s {total}): "
            f"nothing to train; give a larger --{summary.unit}s to train on"
        )
    scores = ", ".join(f"{name} {100 * score:.1f} %" for name, score in summary.scores.items())
    print(
        f"{args.method}: {plural(summary.done, summary.unit)} trained on {geo.rows}x{geo.columns}, "
        f"{geo.inarow} in a row, {summary.train_seconds:.1f} s training, "
        f"{summary.seconds:.1f} s in all (evaluations too)\n"
        f"weights:  {summary.weights}  (agent spec: {summary.spec})\n"
        f"curve:    {summary.csv}, {summary.png}\n"
        f"scores:   {scores or 'none yet'} (wins + draws / 2, last evaluation)\n"
        f"resume or extend: connectx train {args.method} --{summary.unit}s N --out {args.out}"
        + "".join(f" --param {name}={text}" for name, text in params.items())
        + (f" --seed {args.seed}" if args.seed else "")
        + (
            ""
            if (geo.rows, geo.columns, geo.inarow) == (6, 7, 4)
            else f" --rows {geo.rows} --columns {geo.columns} --inarow {geo.inarow}"
        )
    )
    return 0


def _params(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, str]:
    """The ``--param`` texts by name, checked against the method's parameters and its unit (one line
    and exit 2 otherwise, as when the method's extra is not installed)."""
    given: dict[str, str] = {}
    for item in args.param:
        name, equals, text = item.partition("=")
        if not equals or not name:
            parser.error(f"--param {item!r}: give NAME=VALUE")
        given[name.strip().replace("-", "_")] = text.strip()
    try:
        counted = unit(args.method)
        parameters(args.method, given)
    except ImportError as error:
        parser.error(f"cannot train {args.method}: {error}")
    except ValueError as error:
        parser.error(f"--param: {error}")
    wrong = "games" if counted == "step" else "steps"
    if getattr(args, wrong) is not None:
        parser.error(f"{args.method} counts its training in {counted}s: give --{counted}s, not --{wrong}")
    return given
