"""Generation of the opening book that :mod:`agents.engine.book` reads (offline).

Which positions (Pons' opening book, http://blog.gamesolver.org/solving-connect-four/, stores all
positions up to a ply; we only need the lines our agent can reach):

* as first player, the positions after each of the agent's book moves followed by every opponent
  reply (plies 0, 2, 4, ...);
* as second player, the positions after every opponent move (plies 1, 3, 5, ...).

Lost positions store no move and are not expanded (the agent searches them itself); positions are
folded by mirror symmetry (:func:`agents.engine.book.canonical`).

The move of a position: in the solver's move order (:func:`agents.engine.solver.move_order`: threats
created, then centre first), the first child proven below 0 (a win for us; one null-window search a
child), else the first child proven at most 0 (a draw), else the position is lost.

Generation (resumable, results appended to a text log; ``--jobs`` worker processes; uses the numba
twin :mod:`agents.engine.solver.fast` when numba is installed, the pure-Python solver otherwise)::

    nice -n 19 python -m training.book generate --max-ply 13 --side second --table-bits 26  # rerun to resume
    nice -n 19 python -m training.book generate --max-ply 16 --side first --table-bits 26
    python -m training.book build        # log -> agents/data/book-6x7.bin (generate does it per level)
    python -m training.book status       # positions per ply, done / total

The log (``runs/book/book-6x7.log``, one line ``moves column value nodes seconds`` a position) is the
resumable state: keep it. Costs measured with the numba twin on a shared 2-core machine: the ply-1
and ply-2 positions take 2-12 minutes each (0.1-0.5 billion nodes); the first player's lines to
ply 12 (7,100 positions) took 22 minutes in all, most positions being table hits. Two facts
are taken from the literature instead of solved (:data:`KNOWN`).
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from agents.engine.board import Board, geometry
from agents.engine.book import BOOK_FILE, HEADER, MAGIC, NO_MOVE, Book, canonical
from agents.engine.solver import move_order
from agents.files import replace_atomically
from agents.resources import DATA_DIR
from training.solvers import weak_solver

__all__ = ["KNOWN", "build", "generate", "main", "status", "to_bytes"]

DEFAULT_LOG = Path("runs") / "book" / "book-6x7.log"
DEFAULT_OUT = DATA_DIR / BOOK_FILE


def to_bytes(book: Book) -> bytes:
    """``book`` in the file format of :mod:`agents.engine.book` (zlib level 9); ``Book.from_bytes``
    reads it."""
    first, second = (255 if d < 0 else d for d in book.depth)
    header = HEADER.pack(MAGIC, len(book), book.geo.rows, book.geo.columns, first, second)
    body = book.keys.astype("<u8").tobytes() + book.entries.astype(np.uint8).tobytes()
    return zlib.compress(header + body, 9)


class _Evaluator:
    """Chooses the book move of a position with a weak solver (:func:`training.solvers.weak_solver`)."""

    def __init__(self, prefer_fast: bool = True, table_bits: int = 24) -> None:
        self.solver = weak_solver(table_bits, prefer_fast=prefer_fast)

    def choose(self, moves: str) -> tuple[int, int, int]:
        """``(column or NO_MOVE, weak value, nodes)`` for the position after ``moves`` (game on)."""
        board = Board.from_moves(moves)
        mine = board.winning_moves()
        if mine:
            return board.columns(mine)[0], 1, 0
        order = move_order(board.position, board.mask, board.geo)
        if board.ply + 1 == board.geo.size:
            return order[0], 0, 0
        other = board.opponent
        children = {c: board.mask | board.move_cell(c) for c in order}
        nodes = 0
        for column in order:  # a win: a child scoring below 0 (one null-window search each)
            child_at_least_0 = self.solver.at_least(other, children[column], board.ply + 1, 0)
            nodes += self.solver.nodes
            if not child_at_least_0:
                return column, 1, nodes
        for column in order:  # a draw: a child scoring at most 0
            child_at_least_1 = self.solver.at_least(other, children[column], board.ply + 1, 1)
            nodes += self.solver.nodes
            if not child_at_least_1:
                return column, 0, nodes
        return NO_MOVE, -1, nodes


KNOWN = {"": (3, 1), "4": (NO_MOVE, -1)}
"""Published facts used instead of solving the two most expensive positions (Allis 1988; Pons,
gamesolver.org): the first player wins by starting in the centre and only so, hence the second
player is lost after it."""


def _read_log(path: Path) -> dict[str, tuple[int, int]]:
    done: dict[str, tuple[int, int]] = dict(KNOWN)
    if path.exists():
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 3:
                moves = "" if fields[0] == "-" else fields[0]
                done[moves] = (int(fields[1]), int(fields[2]))
    return done


def _children_lines(moves: str, column: int) -> Iterator[str]:
    """Positions after our ``column`` then every opponent reply (games still on)."""
    board = Board.from_moves(moves)
    board.push(column)
    if board.is_game_over():
        return
    for reply in board.legal_moves():
        child = board.copy()
        child.push(reply)
        if not child.is_game_over():
            yield child.notation()


def _levels(done: dict[str, tuple[int, int]], max_ply: int) -> Iterator[tuple[int, list[str], bool]]:
    """Yield ``(ply, positions, whole)`` level by level; positions are deduplicated by canonical key.

    Level ``p`` is derived from the decisions (in ``done``) of level ``p - 2``: callers finish a
    level before asking for the one two plies deeper. ``whole`` is False when some parent was not
    solved yet (the level is then only partly known).
    """
    geo = geometry(6, 7, 4)
    frontier = {0: [""], 1: [Board.from_moves([c]).notation() for c in range(geo.columns)]}
    whole = {0: True, 1: True}
    for ply in range(max_ply + 1):
        level = frontier.pop(ply, [])
        seen: dict[int, str] = {}
        for moves in level:
            board = Board.from_moves(moves)
            key, _ = canonical(board.position, board.mask, geo)
            if key not in seen or moves < seen[key]:
                seen[key] = moves
        positions = sorted(seen.values(), key=lambda m: (len(m), m))
        yield ply, positions, whole[ply]
        nxt: list[str] = []
        whole[ply + 2] = whole[ply]
        for moves in positions:
            if moves not in done:
                whole[ply + 2] = False
                continue
            column, _value = done[moves]
            if column != NO_MOVE:
                nxt.extend(_children_lines(moves, column))
        frontier[ply + 2] = nxt


def _worker_init(table_bits: int = 24) -> None:
    global _worker_evaluator
    _worker_evaluator = _Evaluator(table_bits=table_bits)


_worker_evaluator: _Evaluator | None = None


def _worker_choose(moves: str) -> tuple[str, int, int, int, float]:
    assert _worker_evaluator is not None
    start = time.perf_counter()
    column, value, nodes = _worker_evaluator.choose(moves)
    return moves, column, value, nodes, time.perf_counter() - start


def build(log: Path, out: Path) -> Book:
    """Compile the generation log into the book file (written atomically); returns the book.

    The header records, for each side, the deepest ply to which its levels are complete.
    """
    done = _read_log(log)
    geo = geometry(6, 7, 4)
    depth = [-1, -1]
    broken = [False, False]
    for ply, positions, whole in _levels(done, 64):
        side = ply % 2
        if broken[side]:
            continue
        if not positions or not whole or any(m not in done for m in positions):
            broken[side] = True
        else:
            depth[side] = ply
        if all(broken):
            break
    keys: list[int] = []
    entries: list[int] = []
    for moves, (column, value) in done.items():
        board = Board.from_moves(moves)
        key, mirrored = canonical(board.position, board.mask, geo)
        if column != NO_MOVE and mirrored:
            column = geo.columns - 1 - column
        keys.append(key)
        entries.append(((value + 1) << 4) | column)
    order = np.argsort(np.array(keys, dtype=np.uint64), kind="stable")
    book = Book(
        np.array(keys, dtype=np.uint64)[order],
        np.array(entries, dtype=np.uint8)[order],
        depth=(depth[0], depth[1]),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    data = to_bytes(book)
    replace_atomically(out, lambda temporary: temporary.write_bytes(data))
    return book


def generate(
    log: Path,
    out: Path | None,
    max_ply: int,
    jobs: int,
    *,
    side: str = "both",
    table_bits: int = 24,
    quiet: bool = False,
) -> None:
    """Solve every book position up to ``max_ply`` not yet in ``log`` (appending to it), level by level,
    with ``jobs`` processes; rebuild ``out`` after each completed level when given. ``side``:
    ``"first"`` (even plies: the agent moves first), ``"second"`` (odd plies) or ``"both"``;
    ``table_bits``: transposition table of each worker, ``2**table_bits`` slots of 8 bytes."""
    skip = {"first": 1, "second": 0}.get(side)
    log.parent.mkdir(parents=True, exist_ok=True)
    done = _read_log(log)
    pool = None
    if jobs > 1:
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(
            jobs, initializer=_worker_init, initargs=(table_bits,)
        )
    else:
        _worker_init(table_bits)
    try:
        with log.open("a") as handle:
            for ply, positions, _ in _levels(done, max_ply):
                if skip is not None and ply % 2 == skip:
                    continue
                todo = [m for m in positions if m not in done]
                if not quiet:
                    print(f"ply {ply}: {len(positions)} positions, {len(todo)} to solve", flush=True)
                start = time.perf_counter()
                results = (
                    pool.imap_unordered(_worker_choose, todo, chunksize=4)
                    if pool
                    else map(_worker_choose, todo)
                )
                for i, (moves, column, value, nodes, seconds) in enumerate(results, 1):
                    done[moves] = (column, value)
                    handle.write(f"{moves or '-'} {column} {value} {nodes} {seconds:.3f}\n")
                    handle.flush()
                    if not quiet and (i % 500 == 0 or i == len(todo)):
                        rate = i / max(time.perf_counter() - start, 1e-9)
                        print(f"  ply {ply}: {i}/{len(todo)} ({rate:.1f}/s)", flush=True)
                if out is not None and todo:
                    build(log, out)
    finally:
        if pool is not None:
            pool.terminate()


def status(log: Path, max_ply: int) -> list[tuple[int, int, int, bool]]:
    """``(ply, positions known, positions solved, whole)`` per level up to ``max_ply``; ``whole`` is
    False when the level is only partly known (some parent two plies up is unsolved)."""
    done = _read_log(log)
    return [(ply, len(p), sum(m in done for m in p), whole) for ply, p, whole in _levels(done, max_ply)]


def main(argv: list[str] | None = None) -> int:
    """``python -m training.book {generate,build,status}`` (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m training.book", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("generate", "build", "status"):
        p = sub.add_parser(name)
        p.add_argument("--log", type=Path, default=DEFAULT_LOG)
        p.add_argument("--out", type=Path, default=DEFAULT_OUT)
        p.add_argument("--max-ply", type=int, default=12)
        if name == "generate":
            p.add_argument("--jobs", type=int, default=1, help="worker processes")
            p.add_argument("--table-bits", type=int, default=24, help="2**N table slots (8 bytes) a worker")
            p.add_argument("--side", choices=("first", "second", "both"), default="both")
    args = parser.parse_args(argv)
    if args.command == "generate":
        try:
            generate(args.log, args.out, args.max_ply, args.jobs, side=args.side, table_bits=args.table_bits)
        except KeyboardInterrupt:
            print("interrupted; rerun the same command to resume", file=sys.stderr)
            return 130
    elif args.command == "build":
        book = build(args.log, args.out)
        first, second = book.depth
        print(
            f"{len(book)} positions; lines complete to ply {first} (first player), {second} (second player); "
            f"{args.out.stat().st_size} bytes"
        )
    else:
        for ply, total, finished, whole in status(args.log, args.max_ply):
            print(f"ply {ply:2d}: {finished}/{total}{'' if whole else ' (level partly known)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
