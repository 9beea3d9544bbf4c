"""What every ``connectx`` subcommand shares: a parser whose errors are one line, numeric bounds, and
the options of more than one subcommand, each defined once here (its flag, type, default and help).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from agents.engine.board import Geometry, InvalidBoardError, geometry
from agents.kit.clock import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE
from tournament.limits import Limits

MAX_SECONDS = 3600.0
"""Longest ``--act-timeout``, in seconds."""
BOUNDS: dict[str, tuple[float, float]] = {
    "act_timeout": (0.0, MAX_SECONDS),
    "workers": (1, 256),
    "seed": (0, 2**63 - 1),
}
"""Bounds of the numeric options defined here (see :func:`check_ranges`), for the subcommands' own
bounds to include."""
AGENT_LIMITS: dict[str, tuple[float, float]] = {
    "agent_memory": (0, 1 << 24),  # MiB; 0: no limit
    "agent_processes": (1, 100_000),
    "agent_disk": (1, 1 << 24),  # MiB
    "agent_shm": (1, 1 << 24),  # MiB
}
"""Bounds of the options of :func:`agent_limit_options`."""


Handler = Callable[[argparse.Namespace, argparse.ArgumentParser], int]
"""What each subcommand sets as ``handler``: it runs the command on the parsed arguments, with its
own parser for one-line errors, and returns the exit status."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``connectx run: error: ...``), not usage plus
    error; its subcommand parsers are of this class too. Exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def flag(dest: str) -> str:
    """The command line's name of the option stored in ``dest``: ``act_timeout`` -> ``--act-timeout``."""
    return "--" + dest.replace("_", "-")


def range_error(
    values: Mapping[str, float | None],
    limits: Mapping[str, tuple[float, float]],
    name: Callable[[str], str] = flag,
) -> str | None:
    """None when every value of ``values`` (destination -> value) that ``limits`` bounds
    (destination -> (lowest, highest)) and is not None is finite and in range, else the sentence
    naming the first that is not (``name(dest)``: how the caller spells it). A lowest of ``0.0`` (a
    float) means "positive"; a float highest is printed with ``g``, an int one with thousands commas."""
    for dest, (low, high) in limits.items():
        value = values.get(dest)
        if value is None:
            continue
        positive = isinstance(low, float) and low == 0.0
        if math.isfinite(value) and (value > 0 if positive else value >= low) and value <= high:
            continue
        lowest = "positive" if positive else f">= {low:,}"
        highest = f"{high:,g}" if isinstance(high, float) else f"{high:,}"
        return f"{name(dest)} must be {lowest} and <= {highest}, got {value!r}"
    return None


def check_ranges(
    args: argparse.Namespace, parser: argparse.ArgumentParser, limits: Mapping[str, tuple[float, float]]
) -> None:
    """Exit with one line unless every numeric option in ``limits`` that ``args`` holds is in range
    (:func:`range_error`)."""
    why = range_error(vars(args), limits)
    if why is not None:
        parser.error(why)


def board_options(command: argparse.ArgumentParser) -> None:
    """``--rows``, ``--columns``, ``--inarow``: the board, with help (Kaggle's defaults 6, 7, 4)."""
    command.add_argument("--rows", type=int, default=6, help="rows of the board (default 6)")
    command.add_argument("--columns", type=int, default=7, help="columns of the board (default 7)")
    command.add_argument(
        "--inarow", type=int, default=4, help="stones in a line that win (default 4: Connect Four)"
    )


def board_geometry(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Geometry:
    """The board of ``args.rows``, ``args.columns``, ``args.inarow`` (:func:`board_options`); exit
    with one line when it is impossible or no line fits on it (:func:`playable_board`)."""
    board = playable_board(args.rows, args.columns, args.inarow)
    if isinstance(board, str):
        parser.error(board)
    return board


def playable_board(rows: int, columns: int, inarow: int, name: Callable[[str], str] = flag) -> Geometry | str:
    """The board of ``rows`` x ``columns`` with ``inarow`` in a row, or the sentence saying why it is
    impossible or why nobody could win on it (options spelt ``name(dest)``)."""
    try:
        geo = geometry(rows, columns, inarow)
    except InvalidBoardError as error:
        return str(error)
    if not geo.winnable:
        # Every game would be a draw or a forfeit, ratings would measure nothing, and searching
        # agents spend their whole time bank trying to prove the draw (negamax: about a minute a game).
        return (
            f"{name('inarow')} {inarow} does not fit on a {rows}x{columns} board, so nobody can "
            f"win; use {name('inarow')} {max(rows, columns)} or less"
        )
    return geo


def act_timeout_option(command: argparse.ArgumentParser) -> None:
    """``--act-timeout SECONDS``: Kaggle's ``actTimeout`` of every game (default 2)."""
    command.add_argument(
        "--act-timeout",
        type=float,
        default=DEFAULT_ACT_TIMEOUT,
        metavar="SECONDS",
        help=f"seconds an agent has per move before its {DEFAULT_OVERAGE:g} s overage bank is drawn on "
        f"(Kaggle's actTimeout, default {DEFAULT_ACT_TIMEOUT:g})",
    )


def workers_option(command: argparse.ArgumentParser, what: str, default: str = "") -> None:
    """``--workers N``: how many of ``what`` at once, each in its own process (default None: the
    number of cores; ``default`` says more about it)."""
    command.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"{what} at once, each in its own process (default: number of cores{default})",
    )


def seed_option(command: argparse.ArgumentParser, default: int, of: str) -> None:
    """``--seed N``: the seed of ``of``, ``default`` by default."""
    command.add_argument("--seed", type=int, default=default, help=f"seed of {of} (default {default})")


def out_option(
    command: argparse.ArgumentParser,
    what: str,
    default: Path | None = None,
    *,
    required: bool = False,
    metavar: str = "DIR",
) -> None:
    """``--out DIR``: the directory ``what`` says (``default``, else None or ``required``)."""
    command.add_argument(
        "--out",
        type=Path,
        default=default,
        required=required,
        metavar=metavar,
        help=what if default is None else f"{what} (default {default})",
    )


def games_option(command: argparse.ArgumentParser, what: str, default: int | None = None) -> None:
    """``--games N``: how many games ``what`` says, ``default`` by default, else required."""
    command.add_argument(
        "--games",
        type=int,
        default=default,
        required=default is None,
        help=what if default is None else f"{what} (default {default})",
    )


def analyze_option(command: argparse.ArgumentParser) -> None:
    """``--analyze``: judge the moves against perfect play before the reports are written."""
    command.add_argument(
        "--analyze",
        action="store_true",
        help="judge every move against perfect play before writing the reports (as `connectx analyze`; "
        "6x7 boards with 4 in a row), so they show each agent's accuracy and worst moves",
    )


def agent_limit_options(command: argparse.ArgumentParser) -> None:
    """``--agent-memory``, ``--agent-processes``, ``--agent-disk``, ``--agent-shm``: the limits of
    each agent's process (:class:`~tournament.limits.Limits`; bounds :data:`AGENT_LIMITS`)."""
    default = Limits()
    command.add_argument(
        "--agent-memory",
        type=int,
        default=default.memory_mb,
        metavar="MB",
        help=(
            "memory of each agent's processes in all, in MiB (a memory cgroup; without one, the "
            f"address space of each process), 0 for no limit (default {default.memory_mb})"
        ),
    )
    command.add_argument(
        "--agent-processes",
        type=int,
        default=default.processes,
        metavar="N",
        help="processes and threads each agent may have, when agents run as users of their own "
        f"(the runner is root; default {default.processes})",
    )
    command.add_argument(
        "--agent-disk",
        type=int,
        default=default.disk_mb,
        metavar="MB",
        help="MiB each agent may write: the size of its working directory, a tmpfs of its own (in "
        "memory) where agents have mounts of their own, and the largest file it may write anywhere "
        f"(default {default.disk_mb})",
    )
    command.add_argument(
        "--agent-shm",
        type=int,
        default=default.shm_mb,
        metavar="MB",
        help="size in MiB of each agent's own /dev/shm (in memory), where agents have mounts of their "
        f"own (default {default.shm_mb}, Docker's)",
    )


def agent_limits(args: argparse.Namespace) -> Limits:
    """The :class:`~tournament.limits.Limits` of :func:`agent_limit_options`' options in ``args``
    (checked against :data:`AGENT_LIMITS` first)."""
    return Limits(args.agent_memory or None, args.agent_processes, args.agent_disk, args.agent_shm)
