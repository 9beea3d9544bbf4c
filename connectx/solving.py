"""``connectx solve``: the exact score of Connect-Four positions, and what it means.

Positions are Pons' notation -- the moves as 1-based column digits, ``4453`` -- given as arguments
or one a line on stdin (anything after a line's first blank is ignored). Each answer is one line::

    4453 -2  Red (mark 1) to move loses: Yellow wins with its 20th stone

the position, the score, then the score in words (:func:`reports.exact.meaning`; with
``--analyse``, the position's value with its best columns, :func:`reports.exact.summary`, as the
board page says it): what :func:`connectx.boards.solve` returns, printed. Scores follow Pons' convention
(http://blog.gamesolver.org/solving-connect-four/02-test-protocol/), from the side to move: 0 a
draw; ``+N`` it wins with its ``(cells + 2) // 2 - N``-th stone (22 - N on 6x7: the sooner, the
higher); ``-N`` it loses, the opponent winning with that stone. ``--weak`` gives only 1 / 0 / -1;
``--analyse`` the score of playing each column, ``-`` for a full one (Pons' program prints
``-1000``).

A position that is not one of this board (a digit that is no column, a full column, a move after
the game was won) or one already won or full is bad input, as every ``connectx`` command treats it:
``connectx solve: error: position 2: ...`` (``line 2`` on stdin) and exit status 2. The positions
given as arguments are all checked before any is solved; on stdin, the positions before the bad line
stay answered.

The solver (:mod:`agents.engine.solver`: numba's, or pure Python) searches to the solved game's databases
(the ``bitbully-databases`` package): on 6x7 every position takes at most seconds (``-a ''``, the
seven columns of the empty board, about 3 s), since the search stops at the databases' 12-stone
positions. Without the databases, or on another board, a position with few stones can take minutes
(``4453``: about four). While a solve runs longer than :data:`QUIET` seconds, the seconds spent so far
are shown on stderr, redrawn in place every second on a terminal; afterwards the nodes searched and
nodes per second. A machine's first run compiles the solver's numba kernel before the first
position (:func:`compile_solver`: seconds, shown), outside the positions' times and ``--nodes``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator

from agents.engine.board import Board, BoardError, Geometry
from agents.engine.solver import parse_position
from agents.engine.solver.databases import load_database
from connectx.boards import solve
from connectx.options import board_geometry, board_options, check_ranges
from connectx.progress import Ticking, bar

FULL = "-"
"""Shown for a full column with ``--analyse`` (Pons' program prints ``-1000``, its ``INVALID_MOVE``)."""

FEW_STONES = 10
"""Without the databases, positions with fewer stones than this on a board of 42 cells or more get a
note up front that solving them can take minutes."""

QUIET = 1.0
"""Seconds a solve runs before its progress is shown on stderr."""

LIMITS: dict[str, tuple[float, float]] = {"rows": (1, 16), "columns": (1, 16), "inarow": (1, 16)}
"""Bounds of the board options (the solver's bitboards grow with the board; 16 x 16 is already huge)."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``solve`` to the subcommands ``commands``."""
    command = commands.add_parser(
        "solve",
        help="solve positions exactly and say what the score means",
        description="Solve Connect-Four positions exactly (Pons' notation: 1-based column digits). "
        "Scores are Pons', from the side to move: 0 a draw; +N it wins with its (cells + 2) // 2 - N-th "
        "stone (22 - N on 6x7); -N it loses, the opponent winning with that stone. Each line says it "
        "in words. Example: connectx solve 32164625",
    )
    command.add_argument(
        "positions",
        nargs="*",
        metavar="MOVES",
        help="positions as 1-based column digits, e.g. 4453 (default: one a line on stdin)",
    )
    command.add_argument(
        "-a",
        "--analyse",
        action="store_true",
        help=f"print the score of every column ({FULL} for a full one) and the best columns in words",
    )
    command.add_argument("-w", "--weak", action="store_true", help="weak solve: 1 win, 0 draw, -1 loss")
    command.add_argument("--nodes", action="store_true", help="append the node count and microseconds")
    board_options(command)
    command.set_defaults(handler=_solve)


def compile_solver() -> None:
    """Have the solver's numba kernel compiled in this process now
    (:func:`agents.engine.solver.warm_up`), before anything is timed or forked: numba compiles it on
    a machine's first run (about 10 s on the 2-core development machine) and loads it from its cache
    in a fraction of a second afterwards. While it takes longer than :data:`QUIET` seconds, a line on
    a terminal says so, its clock running, and is cleared when done. Nothing where numba does not
    import (the solver is pure Python there)."""
    try:
        import agents.engine.solver.fast  # noqa: F401 - numba imported before the clock starts
    except ImportError:
        return
    from agents.engine.solver import warm_up

    shown = bar(
        desc="compiling the solver (the first run only)",
        bar_format="{desc} [{elapsed}]",
        delay=QUIET,
        leave=False,
    )
    with Ticking(shown, delay=QUIET):
        warm_up()
    shown.close()


def _positions(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """``(where, moves)`` of every position asked: the arguments, else the lines of stdin."""
    if args.positions:
        for number, moves in enumerate(args.positions, 1):
            yield f"position {number}", moves
        return
    if sys.stdin.isatty():
        print("reading positions from stdin, one a line (e.g. 32164625); end with Ctrl-D", file=sys.stderr)
    for number, line in enumerate(sys.stdin, 1):
        fields = line.split()
        yield f"line {number}", fields[0] if fields else ""


class _Progress:
    """While the solve of ``moves`` runs, from :data:`QUIET` seconds on, a line on stderr with the
    seconds so far, redrawn every second on a terminal (:class:`connectx.progress.Ticking`; the
    solver is pure Python between its numba searches, so the ticks come on time), cleared when the
    solve ends; then, for a solve that long, the nodes searched and nodes per second."""

    def __init__(self, moves: str) -> None:
        self.moves = moves or "(empty board)"
        self.start = time.perf_counter()
        self.bar = bar(
            desc=f"{self.moves}: solving", bar_format="{desc} [{elapsed}]", delay=QUIET, leave=False
        )
        self.ticking = Ticking(self.bar, delay=QUIET)

    def stop(self, nodes: int) -> float:
        """End the ticks; print the nodes and speed if the solve was long enough to show progress.
        Returns the seconds the solve took."""
        seconds = time.perf_counter() - self.start
        self.ticking.stop()
        self.bar.close()
        if seconds >= QUIET:
            print(
                f"{self.moves}: solved in {seconds:.1f} s, {nodes:,} nodes ({nodes / seconds:,.0f} nodes/s)",
                file=sys.stderr,
                flush=True,
            )
        return seconds


def _solve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx solve``: 0 every position solved; 2 bad input, one line (``connectx solve: error:
    ...``): a board option out of range, a board on which no line fits (as ``run`` and ``play`` refuse
    it), or a position that is not one of this board or is already won or full (the arguments are
    all checked first; on stdin, the lines before it stay answered); 130 interrupted (Ctrl-C: one
    line; the positions answered so far stay printed)."""
    check_ranges(args, parser, LIMITS)
    geo = board_geometry(args, parser)
    positions: Iterable[tuple[str, str]] = _positions(args)
    if args.positions:  # all checked before the first is solved
        positions = list(positions)
        for where, moves in positions:
            _board(where, moves, geo, parser)
    try:
        _answer(args, geo, positions, parser)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0


def _board(where: str, moves: str, geo: Geometry, parser: argparse.ArgumentParser) -> Board:
    """The position ``moves`` (``where``: ``position 2``, ``line 3``) on ``geo``; exit with one line
    when it is not a position of this board, or is already won or full."""
    try:
        return parse_position(moves, geo)
    except BoardError as error:
        parser.error(f"{where}: invalid position {moves!r}: {error}")


def _answer(
    args: argparse.Namespace,
    geo: Geometry,
    positions: Iterable[tuple[str, str]],
    parser: argparse.ArgumentParser,
) -> None:
    """Solve (:func:`connectx.boards.solve`) and print every position of ``positions`` (``(where,
    moves)``) on the board ``geo``."""
    compile_solver()  # not in the first position's time
    for where, moves in positions:
        board = _board(where, moves, geo, parser)
        if board.ply < FEW_STONES and load_database() is None and geo.size >= 42:
            print(
                f"{moves or '(empty board)'}: {board.ply} stones; positions with fewer than {FEW_STONES} "
                f"can take minutes in pure Python",
                file=sys.stderr,
                flush=True,
            )
        progress, nodes = _Progress(moves), 0
        try:
            solved = solve(
                moves,
                rows=geo.rows,
                columns=geo.columns,
                inarow=geo.inarow,
                weak=args.weak,
                analyse=args.analyse,
            )
            nodes = solved.nodes
        finally:
            progress.stop(nodes)
        if solved.scores is not None:
            text = " ".join(FULL if s is None else str(s) for s in solved.scores)
            words = solved.summary
        else:
            text, words = str(solved.score), solved.words
        if args.nodes:
            text += f" {nodes} {round(solved.seconds * 1e6)}"
        print(f"{moves} {text}  {words}", flush=True)
