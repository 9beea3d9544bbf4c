"""Build the built-in suite of balanced 6x7 openings, ``tournament/data/openings-6x7.txt``.

Run from the repository root (one process, one core; numba, a dependency, needed)::

    .venv/bin/python -m scripts.make_openings            # 28 minutes on one core

**Notation.** An opening is a move string in Pascal Pons' notation: one 1-based column digit per move
(``1`` is the leftmost column, ``7`` the rightmost), read left to right, played from the empty board of
6 rows x 7 columns with four to connect; mark 1 (the first player) moves first. ``4453`` is: mark 1
in the centre column, mark 2 on top of it, mark 1 in column 5, mark 2 in column 3.

**Score.** The exact game-theoretic score of the position after the opening, from the point of view
of the side to move, in Pons' convention (http://blog.gamesolver.org/solving-connect-four/,
part 2, "test protocol"; the same as :mod:`agents.engine.solver`): 0 for a draw; ``22 - s`` when the side to
move wins with its ``s``-th stone; minus the winner's score when it loses. The empty board scores +1
(the first player wins with its 21st and last stone).

**Selection.** The candidates of a length ``n`` are all positions reached by ``n`` legal moves from
the empty board in which nobody has four in a row and the side to move has no winning move; a
position and its mirror image (column ``c`` <-> ``8 - c``) form one candidate, whatever the move order
that reaches them (transpositions count once). Each candidate is written as its canonical move
string: the lexicographically smallest string of ``n`` moves that reaches the position or its mirror
image. The candidates of a length are sorted by that string and shuffled by ``--seed``; they are then
solved exactly in that order with the numba solver (:class:`agents.engine.solver.fast.FastSolver`, fresh
transposition table for each, so one candidate's result never depends on the others) until
``count`` of them have ``|score| <= margin``. A candidate whose solve needs more than
``--max-nodes`` negamax calls is skipped (counted in the summary). Everything is deterministic: node
limits, not wall-clock limits, and a fixed seed.

**Why margin 2 and lengths 6, 7, 8.** Measured by the default run (its histograms are in the file
header; 836 candidates solved, 28 minutes 24 seconds on one core):

* Scores near 0 are common at these lengths, but +-1 is about half as frequent as 0 or +-2 (all
  solved candidates: 69 at -2, 37 at -1, 91 at 0, 37 at +1, 116 at +2). ``|score| <= 1`` would keep
  mostly draws; ``|score| <= 2`` keeps draws and wins by either side that come only with the
  winner's 20th or 21st stone, i.e. at most one stone earlier than the first player's win from the
  empty board (+1). Margin 2 keeps 42 % of the 6-ply, 46 % of the 7-ply and 39 % of the 8-ply
  candidates solved; margin 1 would keep only 22 %, 22 % and 16 %.
* Exact solves cost about 3.8 s a candidate at 6 plies, 1.7 s at 7 and 1.0 s at 8 (4-ply positions
  take 5-35 s each, so they are left out), i.e. about 9.5 s, 3.8 s and 2.5 s per kept opening with
  margin 2 and about 2.3 times that with margin 1: 350 openings at margin 1 would not fit a
  40-minute budget on one core. Mixing 6, 7 and 8 plies gives either colour the move after the
  opening; 100 + 100 + 150 openings keep the run under 30 minutes.

**Output.** ``#`` comment lines (what the file is, the command, margin, counts, score histogram, date),
then one ``MOVES SCORE`` line per opening, sorted by length, then by move string. Readers take the
first whitespace-separated token of each non-comment, non-blank line
(:func:`tournament.openings.parse_openings`).

**Errors.** Bad command-line options make :mod:`argparse` exit with status 2 and a message.
:func:`candidates` and :func:`select` raise ``ValueError`` for a length outside 1-10, a negative
margin or a count below 1. Importing numba (a dependency) fails with ``ImportError`` where it is not
installed.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agents.engine.board import Board, geometry
from agents.engine.book import mirror

__all__ = ["Candidate", "LengthReport", "candidates", "main", "render", "select"]

GEO = geometry(6, 7, 4)
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tournament" / "data" / "openings-6x7.txt"
DEFAULT_PLIES = (6, 7, 8)
DEFAULT_COUNTS = (100, 100, 150)
DEFAULT_MARGIN = 2
DEFAULT_MAX_NODES = 100_000_000
DEFAULT_SEED = 20261122
DEFAULT_TABLE_BITS = 24
DEFAULT_DATE = "2026-11-22"
MAX_PLIES = 10
SOURCE = "http://blog.gamesolver.org/solving-connect-four/"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A candidate opening: its canonical move string and the position it reaches (side to move)."""

    moves: str
    position: int
    mask: int

    @property
    def ply(self) -> int:
        return len(self.moves)


@dataclass(slots=True)
class LengthReport:
    """What happened to the candidates of one length (see :func:`select`)."""

    plies: int
    available: int
    examined: int = 0
    aborted: int = 0
    histogram: Counter[int] = field(default_factory=Counter)  #: exact score -> solved candidates
    kept: list[tuple[str, int, int]] = field(default_factory=list)  #: (moves, score, nodes)
    seconds: float = 0.0

    @property
    def solved(self) -> int:
        return self.examined - self.aborted


def candidates(plies: int) -> list[Candidate]:
    """Every candidate opening of ``plies`` moves on 6x7, sorted by canonical move string.

    A candidate is a position (folded with its mirror image) reached by ``plies`` legal moves with no
    four in a row and no winning move for the side to move; its move string is the lexicographically
    smallest one reaching the position or its mirror. Raises ``ValueError`` unless ``1 <= plies <= 10``.
    """
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
        raise ValueError(f"plies must be an integer from 1 to {MAX_PLIES}, got {plies!r}")
    # level: canonical key -> (smallest move string of the class, position, mask). The smallest string
    # of a child class is always (smallest string of a parent class) + one column: a string reaching
    # the mirror of the parent's best representative is beaten by that representative's string.
    level: dict[int, tuple[str, int, int]] = {0: ("", 0, 0)}
    for _ in range(plies):
        following: dict[int, tuple[str, int, int]] = {}
        for moves, position, mask in sorted(level.values()):
            for column in range(GEO.columns):
                if mask & GEO.top_cells[column]:
                    continue
                board = Board()
                board.position, board.mask, board.ply = position, mask, len(moves)
                board.play(column)
                if board.winner() is not None:
                    continue
                key = board.key()
                canonical_key = min(key, mirror(key, GEO))
                text = moves + str(column + 1)
                best = following.get(canonical_key)
                if best is None or text < best[0]:
                    following[canonical_key] = (text, board.position, board.mask)
        level = following
    out = []
    for moves, position, mask in sorted(level.values()):
        board = Board()
        board.position, board.mask, board.ply = position, mask, len(moves)
        if not board.winning_moves():
            out.append(Candidate(moves, position, mask))
    return out


def select(
    plies: int,
    count: int,
    *,
    margin: int = DEFAULT_MARGIN,
    max_nodes: int = DEFAULT_MAX_NODES,
    seed: int = DEFAULT_SEED,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress_every: int = 25,
    log: Callable[[str], None] = print,
) -> LengthReport:
    """Solve the candidates of ``plies`` moves in seeded order until ``count`` have ``|score| <= margin``.

    Returns the :class:`LengthReport` (the kept openings in the order found). Fewer than ``count`` are
    kept when the candidates run out. Raises ``ValueError`` for a bad ``plies``, ``count < 1`` or
    ``margin < 0``.
    """
    from agents.engine.solver import SearchAborted
    from agents.engine.solver.fast import FastSolver

    if count < 1 or margin < 0 or max_nodes < 1:
        raise ValueError("count and max_nodes must be >= 1 and margin >= 0")
    pool = candidates(plies)
    random.Random(f"openings-6x7:{seed}:{plies}").shuffle(pool)
    report = LengthReport(plies=plies, available=len(pool))
    solver = FastSolver(table_bits=table_bits)
    start = time.perf_counter()
    for candidate in pool:
        if len(report.kept) >= count:
            break
        report.examined += 1
        solver.reset()
        try:
            score = solver.solve_bits(candidate.position, candidate.mask, plies, max_nodes=max_nodes)
        except SearchAborted:
            report.aborted += 1
            continue
        report.histogram[score] += 1
        if abs(score) <= margin:
            report.kept.append((candidate.moves, score, solver.nodes))
        if report.examined % progress_every == 0:
            log(
                f"  {plies} plies: {report.examined} examined, {report.solved} solved, "
                f"{report.aborted} over the node limit, {len(report.kept)}/{count} kept, "
                f"{time.perf_counter() - start:.0f} s"
            )
    report.seconds = time.perf_counter() - start
    return report


def _histogram_text(histogram: Counter[int]) -> str:
    return " ".join(f"{score:+d}:{histogram[score]}".replace("+0:", "0:") for score in sorted(histogram))


def render(reports: Sequence[LengthReport], *, margin: int, command: str, date: str, max_nodes: int) -> str:
    """The file text: ``#`` header, then ``MOVES SCORE`` lines sorted by length, then move string."""
    lines = sorted(
        ((moves, score) for report in reports for moves, score, _ in report.kept),
        key=lambda line: (len(line[0]), line[0]),
    )
    total = Counter[int]()
    for report in reports:
        total.update(report.histogram)
    header = [
        "Balanced openings for 6x7 Connect Four (four in a row): the tournament runner's built-in suite.",
        "",
        "One opening a line: MOVES SCORE. MOVES is Pascal Pons' notation: 1-based column digits (1 = left),",
        "played from the empty 6x7 board, mark 1 (first player) moves first. SCORE is the exact score of the",
        "position after MOVES from the side to move, in Pons' convention: 0 draw, 22 - s when the side to",
        "move wins with its s-th stone, the negative when it loses (" + SOURCE + ").",
        "Readers take the first whitespace-separated token of each non-comment, non-blank line.",
        "",
        f"Made {date} by: {command}",
        "(agents.engine.solver.fast.FastSolver, one process; see the docstring of scripts/make_openings.py).",
        f"Margin: |score| <= {margin} (with 2: a draw, or a win that comes only with the winner's 20th or",
        "21st stone; the empty board is +1). Neither side has four in a row or a winning move.",
        "Candidates: every such position of the given length, a position and its mirror image (column",
        "c <-> 8 - c) counted once whatever the move order; written as the lexicographically smallest",
        "move string reaching it or its mirror; solved in seeded random order until enough were kept;",
        f"a solve over {max_nodes} nodes is skipped.",
        "",
    ]
    for report in reports:
        header.append(
            f"{report.plies} plies: {report.available} candidates, {report.examined} examined, "
            f"{report.solved} solved, {report.aborted} over the node limit, {len(report.kept)} kept"
        )
        header.append(f"  scores of the solved ones: {_histogram_text(report.histogram)}")
    header.append(f"Total: {len(lines)} openings; scores of all solved candidates: {_histogram_text(total)}")
    kept = Counter(score for _, score in lines)
    header.append(f"Scores of the openings kept: {_histogram_text(kept)}")
    out = [f"# {text}".rstrip() for text in header]
    out.extend(f"{moves} {score}" for moves, score in lines)
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; returns 0, or exits with status 2 on a bad option (argparse)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(args_list)
    if len(args.counts) != len(args.plies):
        parser.error("--counts needs one number per --plies entry")
    if any(not 1 <= p <= MAX_PLIES for p in args.plies) or len(set(args.plies)) != len(args.plies):
        parser.error(f"--plies must be distinct lengths from 1 to {MAX_PLIES}")
    if any(c < 1 for c in args.counts) or args.margin < 0 or args.max_nodes < 1:
        parser.error("--counts and --max-nodes must be >= 1, --margin >= 0")
    if not 10 <= args.table_bits <= 30:
        parser.error("--table-bits must be from 10 to 30")

    command = " ".join(["python -m scripts.make_openings", *map(shlex.quote, args_list)])
    start = time.perf_counter()
    reports = []
    for plies, count in zip(args.plies, args.counts, strict=True):
        print(f"{plies} plies: enumerating candidates", flush=True)
        report = select(
            plies,
            count,
            margin=args.margin,
            max_nodes=args.max_nodes,
            seed=args.seed,
            table_bits=args.table_bits,
            log=lambda text: print(text, flush=True),
        )
        reports.append(report)
        print(
            f"{plies} plies: {report.available} candidates, {report.examined} examined, {report.solved} "
            f"solved, {report.aborted} over the node limit, {len(report.kept)} kept, {report.seconds:.0f} s\n"
            f"  histogram: {_histogram_text(report.histogram)}",
            flush=True,
        )
    text = render(reports, margin=args.margin, command=command, date=args.date, max_nodes=args.max_nodes)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    _summary(reports, args.margin, time.perf_counter() - start)
    print(f"wrote {args.out}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.make_openings", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output file (default: %(default)s)")
    parser.add_argument(
        "--plies", type=int, nargs="+", default=list(DEFAULT_PLIES), help="opening lengths (default: 6 7 8)"
    )
    parser.add_argument(
        "--counts",
        type=int,
        nargs="+",
        default=list(DEFAULT_COUNTS),
        help="openings to keep of each length, one number per --plies entry (default: 100 100 150)",
    )
    parser.add_argument(
        "--margin", type=int, default=DEFAULT_MARGIN, help="keep |score| <= this (default: %(default)s)"
    )
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        help="skip a candidate whose solve needs more negamax calls (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="order of the candidates")
    parser.add_argument(
        "--table-bits", type=int, default=DEFAULT_TABLE_BITS, help="transposition table of 2**N slots"
    )
    parser.add_argument("--date", default=DEFAULT_DATE, help="date written in the header")
    return parser


def _summary(reports: Sequence[LengthReport], margin: int, seconds: float) -> None:
    """Print the totals over every length, the score histogram and the cheapest openings kept."""
    total = Counter[int]()
    for report in reports:
        total.update(report.histogram)
    kept = [line for report in reports for line in report.kept]
    print(
        f"summary: {sum(r.available for r in reports)} candidates, {sum(r.examined for r in reports)} "
        f"examined, {sum(r.solved for r in reports)} solved, {sum(r.aborted for r in reports)} over the "
        f"node limit, {len(kept)} kept (|score| <= {margin}), {seconds:.0f} s"
    )
    print(f"score histogram of the solved candidates: {_histogram_text(total)}")
    cheapest = sorted(kept, key=lambda line: (line[2], line[0]))[:8]
    print("cheapest kept openings (moves score nodes): " + ", ".join(f"{m} {s} {n}" for m, s, n in cheapest))


if __name__ == "__main__":
    sys.exit(main())
