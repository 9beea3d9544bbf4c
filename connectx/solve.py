"""``connectx solve``: the exact score of Connect-Four positions, and what it means.

Positions are Pons' notation -- the moves as 1-based column digits, ``4453`` -- given as arguments
or one a line on stdin (anything after a line's first blank is ignored). Each answer is one line::

    4453 -2  mark 1 to move loses: mark 2 wins with its 20th stone

the position, the score, then the score in words. Scores follow Pons' convention
(http://blog.gamesolver.org/solving-connect-four/02-test-protocol/), from the side to move: 0 a
draw; ``+N`` it wins with its ``(cells + 2) // 2 - N``-th stone (22 - N on 6x7: the sooner, the
higher); ``-N`` it loses, the opponent winning with that stone. ``--weak`` gives only 1 / 0 / -1;
``--analyse`` the score of playing each column (``-1000``: a full column, as Pons' program).

The solver is pure Python (:mod:`agents.engine.solver`) over the solved game's opening databases
(the ``bitbully-databases`` package): on 6x7 every position takes at most seconds (``-a ''``, the
seven columns of the empty board, about 3 s), since the search stops at the databases' 12-stone
positions. Without the databases, or on another board, a position with few stones can take minutes
(``4453``: about four). While a solve runs longer than :data:`QUIET` seconds, the seconds spent so far
are shown on stderr; afterwards the nodes searched and nodes per second.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Iterator

from agents.engine.board import BoardError, Geometry
from agents.engine.solver import Solver, parse_position
from connectx.options import board_geometry, board_options, check_ranges

INVALID_MOVE = -1000
"""Score printed for a full column with ``--analyse`` (Pons' ``Solver::INVALID_MOVE``)."""

FEW_STONES = 10
"""Without the databases, positions with fewer stones than this on a board of 42 cells or more get a
note up front that solving them can take minutes."""

QUIET = 3.0
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
    command.add_argument("-a", "--analyse", action="store_true", help="print the score of every column")
    command.add_argument("-w", "--weak", action="store_true", help="weak solve: 1 win, 0 draw, -1 loss")
    command.add_argument("--nodes", action="store_true", help="append the node count and microseconds")
    board_options(command)
    command.set_defaults(handler=_solve)


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def meaning(score: int, ply: int, cells: int, *, weak: bool = False) -> str:
    """``score`` (Pons' convention, side to move) in words, for a position after ``ply`` moves on a
    board of ``cells`` cells: who is to move, who wins and with which of its stones."""
    mover, other = (1, 2) if ply % 2 == 0 else (2, 1)
    if score == 0:
        return f"mark {mover} to move: a draw with best play"
    if weak:
        return f"mark {mover} to move {'wins' if score > 0 else 'loses'}"
    stone = ordinal((cells + 2) // 2 - abs(score))
    if score > 0:
        return f"mark {mover} to move wins with its {stone} stone"
    return f"mark {mover} to move loses: mark {other} wins with its {stone} stone"


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
    """Shows on stderr how long the solve of ``moves`` has run, from :data:`QUIET` seconds on, every
    ``interval`` seconds (a thread: the solver is pure Python and releases the interpreter lock
    between bytecodes, so the ticks come on time)."""

    def __init__(self, moves: str, interval: float) -> None:
        self.moves = moves
        self.interval = interval
        self.start = time.perf_counter()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def _tick(self) -> None:
        if self.done.wait(QUIET):
            return
        while True:
            seconds = time.perf_counter() - self.start
            print(
                f"{self.moves or '(empty board)'}: solving, {seconds:.0f} s so far",
                file=sys.stderr,
                flush=True,
            )
            if self.done.wait(self.interval):
                return

    def stop(self, nodes: int) -> float:
        """End the ticks; print the nodes and speed if the solve was long enough to show progress.
        Returns the seconds the solve took."""
        seconds = time.perf_counter() - self.start
        self.done.set()
        self.thread.join()
        if seconds >= QUIET:
            print(
                f"{self.moves or '(empty board)'}: solved in {seconds:.1f} s, {nodes:,} nodes "
                f"({nodes / seconds:,.0f} nodes/s)",
                file=sys.stderr,
                flush=True,
            )
        return seconds


def _solve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx solve``: 0 every position solved, 1 some position was refused (one line each: not a
    position of this board, or one already won or full), 2 bad input (a board option out of range,
    or a board on which no line fits, as ``run`` and ``play`` refuse it), 130 interrupted (Ctrl-C:
    one line; the positions answered so far stay printed)."""
    check_ranges(args, parser, LIMITS)
    geo = board_geometry(args, parser)
    try:
        return _answer(args, geo)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def _answer(args: argparse.Namespace, geo: Geometry) -> int:
    """Solve and print every position asked on the board ``geo``; 0 all solved, 1 some refused."""
    solver = Solver(args.rows, args.columns, args.inarow)
    interval = 10.0 if sys.stderr.isatty() else 60.0
    status = 0
    for where, moves in _positions(args):
        try:
            board = parse_position(moves, geo)
        except BoardError as error:
            print(f"{where}: invalid position {moves!r}: {error}", file=sys.stderr)
            status = 1
            continue
        if board.ply < FEW_STONES and solver.database is None and geo.size >= 42:
            print(
                f"{moves or '(empty board)'}: {board.ply} stones; positions with fewer than {FEW_STONES} "
                f"can take minutes in pure Python",
                file=sys.stderr,
                flush=True,
            )
        progress = _Progress(moves, interval)
        try:
            if args.analyse:
                scores = solver.analyse(moves, weak=args.weak)
                text = " ".join(str(INVALID_MOVE if s is None else s) for s in scores)
                best = max(s for s in scores if s is not None)
                words = f"best: column {scores.index(best) + 1}, " + meaning(
                    best, board.ply, geo.size, weak=args.weak
                )
            else:
                score = solver.solve(moves, weak=args.weak).score
                text, words = str(score), meaning(score, board.ply, geo.size, weak=args.weak)
        finally:
            seconds = progress.stop(solver.nodes)
        if args.nodes:
            text += f" {solver.nodes} {round(seconds * 1e6)}"
        print(f"{moves} {text}  {words}", flush=True)
    return status
