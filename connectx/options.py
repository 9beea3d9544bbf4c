"""What every ``connectx`` subcommand shares: a parser whose errors are one line, numeric bounds."""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import NoReturn

from agents.engine.board import Geometry, InvalidBoardError, geometry


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``connectx run: error: ...``), not usage plus
    error; its subcommand parsers are of this class too. Exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def check_ranges(
    args: argparse.Namespace, parser: argparse.ArgumentParser, limits: Mapping[str, tuple[float, float]]
) -> None:
    """Exit with one line unless every numeric option in ``limits`` (destination -> (lowest,
    highest)) that ``args`` holds and is not None is finite and in range. A lowest of ``0.0`` (a
    float) means "positive"; a float highest is printed with ``g``, an int one with thousands commas."""
    for dest, (low, high) in limits.items():
        value = getattr(args, dest, None)
        if value is None:
            continue
        positive = isinstance(low, float) and low == 0.0
        if math.isfinite(value) and (value > 0 if positive else value >= low) and value <= high:
            continue
        option = "--" + dest.replace("_", "-")
        lowest = "positive" if positive else f">= {low:,}"
        highest = f"{high:,g}" if isinstance(high, float) else f"{high:,}"
        parser.error(f"{option} must be {lowest} and <= {highest}, got {value!r}")


def board_options(command: argparse.ArgumentParser) -> None:
    """``--rows``, ``--columns``, ``--inarow``: the board, with help (Kaggle's defaults 6, 7, 4)."""
    command.add_argument("--rows", type=int, default=6, help="rows of the board (default 6)")
    command.add_argument("--columns", type=int, default=7, help="columns of the board (default 7)")
    command.add_argument(
        "--inarow", type=int, default=4, help="stones in a line that win (default 4: Connect Four)"
    )


def board_geometry(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Geometry:
    """The board of ``args.rows``, ``args.columns``, ``args.inarow`` (:func:`board_options`); exit
    with one line when it is impossible or no line fits on it."""
    try:
        geo = geometry(args.rows, args.columns, args.inarow)
    except InvalidBoardError as error:
        parser.error(str(error))
    if not geo.winnable:
        # Every game would be a draw or a forfeit, ratings would measure nothing, and searching
        # agents spend their whole time bank trying to prove the draw (negamax: about a minute a game).
        parser.error(
            f"--inarow {args.inarow} does not fit on a {args.rows}x{args.columns} board, so nobody can "
            f"win; use --inarow {max(args.rows, args.columns)} or less"
        )
    return geo
