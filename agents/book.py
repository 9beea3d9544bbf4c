"""Opening book for 6x7 Connect Four: the move to play in the positions our agent reaches early.

Scores are from the point of view of the side to move; the book stores the weak value (1 win,
0 draw, -1 loss) and one column that keeps it.

Which positions (Pons' opening book, http://blog.gamesolver.org/solving-connect-four/, stores all
positions up to a ply; we only need the lines our agent can reach):

* as first player, the positions after each of the agent's book moves followed by every opponent
  reply (plies 0, 2, 4, ...);
* as second player, the positions after every opponent move (plies 1, 3, 5, ...).

Lost positions store no move and are not expanded (the agent searches them itself); positions are
folded by mirror symmetry (key = the smaller of the position key and its mirror's).

The move of a position: in the solver's move order (threats created, then centre first), the first
child proven below 0 (a win for us; one null-window search a child), else the first child proven at
most 0 (a draw), else the position is lost.

File format (``agents/data/book-6x7.bin``, read through :mod:`agents.resources`): zlib-compressed
bytes ``b"C4BK" | uint32 n | uint8 rows | uint8 columns | uint8 first | uint8 second |
n x uint64 keys (sorted) | n x uint8 entries``, little-endian; entry = ``(value + 1) << 4 | column``
with column 15 meaning "no move". ``first`` / ``second`` are the deepest plies to which the lines of
the agent as first / second player were complete when the file was built (255: none).

Generation (resumable, results appended to a text log; ``--jobs`` worker processes; uses the numba
twin :mod:`agents.solver.fast` when numba is installed, the pure-Python solver otherwise)::

    nice -n 19 python -m agents.book generate --max-ply 13 --side second --table-bits 26  # rerun to resume
    nice -n 19 python -m agents.book generate --max-ply 16 --side first --table-bits 26
    python -m agents.book build        # log -> agents/data/book-6x7.bin (generate does it per level)
    python -m agents.book status       # positions per ply, done / total

The log (``runs/book/book-6x7.log``, one line ``moves column value nodes seconds`` a position) is the
resumable state: keep it. Costs measured with the numba twin on a shared 2-core machine: the ply-1
and ply-2 positions take 2-12 minutes each (0.1-0.5 billion nodes); the first player's lines to
ply 12 (7,100 positions) took 22 minutes in all, most positions being table hits. Two facts
are taken from the literature instead of solved (:data:`KNOWN`).
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from agents.board import Board, Geometry, geometry

__all__ = ["Book", "BOOK_FILE", "load_book", "mirror", "main"]

BOOK_FILE = "book-6x7.bin"
NO_MOVE = 15
_MAGIC = b"C4BK"
_HEADER = struct.Struct("<4sIBBBB")
DEFAULT_LOG = Path("runs") / "book" / "book-6x7.log"
DEFAULT_OUT = Path(__file__).parent / "data" / BOOK_FILE


def mirror(key: int, geo: Geometry) -> int:
    """The bitboard ``key`` reflected left-right (column ``c`` -> ``columns - 1 - c``)."""
    h = geo.height
    column = (1 << h) - 1
    last = geo.columns - 1
    out = 0
    for c in range(geo.columns):
        out |= ((key >> (c * h)) & column) << ((last - c) * h)
    return out


def canonical(position: int, mask: int, geo: Geometry) -> tuple[int, bool]:
    """``(key, mirrored)``: the smaller of the position key and its mirror's; True when it is the mirror's."""
    key = position + mask
    other = mirror(key, geo)
    return (other, True) if other < key else (key, False)


class Book:
    """A loaded opening book: ``lookup(position, mask) -> (column | None, value) | None``.

    ``keys``: sorted uint64 array of canonical keys; ``entries``: uint8 array (see the module docs);
    ``depth``: ``(first, second)``, the deepest ply to which the lines of the agent as first / second
    player are complete (-1: none).
    """

    def __init__(
        self,
        keys: np.ndarray,
        entries: np.ndarray,
        *,
        rows: int = 6,
        columns: int = 7,
        depth: tuple[int, int] = (-1, -1),
    ) -> None:
        self.geo = geometry(rows, columns, 4)
        self.keys = keys
        self.entries = entries
        self.depth = depth

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @classmethod
    def from_bytes(cls, data: bytes) -> Book:
        """Parse the file format above. Raises ``ValueError`` for a corrupt or foreign file."""
        try:
            raw = zlib.decompress(data)
        except zlib.error as exc:
            raise ValueError(f"opening book is not zlib data: {exc}") from None
        if len(raw) < _HEADER.size:
            raise ValueError("opening book too short")
        magic, n, rows, columns, first, second = _HEADER.unpack_from(raw)
        if magic != _MAGIC or len(raw) != _HEADER.size + 9 * n:
            raise ValueError("not an opening book file (bad magic or length)")
        keys = np.frombuffer(raw, dtype="<u8", count=n, offset=_HEADER.size)
        entries = np.frombuffer(raw, dtype=np.uint8, count=n, offset=_HEADER.size + 8 * n)
        depth = (-1 if first == 255 else first, -1 if second == 255 else second)
        return cls(keys, entries, rows=rows, columns=columns, depth=depth)

    def to_bytes(self) -> bytes:
        """Serialise (zlib level 9)."""
        first, second = (255 if d < 0 else d for d in self.depth)
        header = _HEADER.pack(_MAGIC, len(self), self.geo.rows, self.geo.columns, first, second)
        body = self.keys.astype("<u8").tobytes() + self.entries.astype(np.uint8).tobytes()
        return zlib.compress(header + body, 9)

    def lookup(self, position: int, mask: int) -> tuple[int | None, int] | None:
        """``(column, value)`` for the side to move, column ``None`` when the position is lost;
        ``None`` when the position is not in the book. Bitboards as in :mod:`agents.board`."""
        key, mirrored = canonical(position, mask, self.geo)
        i = int(np.searchsorted(self.keys, np.uint64(key)))
        if i >= len(self) or int(self.keys[i]) != key:
            return None
        entry = int(self.entries[i])
        value = (entry >> 4) - 1
        column = entry & 15
        if column == NO_MOVE:
            return None, value
        return (self.geo.columns - 1 - column if mirrored else column), value


_cached: Book | None = None


def load_book() -> Book | None:
    """The packaged 6x7 book (cached after the first call), or None when the data file is absent."""
    global _cached
    if _cached is None:
        from agents import resources

        try:
            _cached = Book.from_bytes(resources.read("book-6x7.bin"))
        except FileNotFoundError:
            return None
    return _cached


# --- generation --------------------------------------------------------------------------------------


class _Evaluator:
    """Chooses the book move of a position with a weak solver (numba twin when available)."""

    def __init__(self, prefer_fast: bool = True, table_bits: int = 24) -> None:
        self.geo = geometry(6, 7, 4)
        self.solver = None
        if prefer_fast:
            try:
                from agents.solver.fast import FastSolver

                self.solver = FastSolver(table_bits=table_bits)
            except ImportError:
                self.solver = None
        if self.solver is None:
            from agents.solver import Solver

            self.solver = Solver()
        from agents.lines import wins_function
        from agents.solver import move_order

        self.wins = wins_function(self.geo)
        self.move_order = move_order

    def choose(self, moves: str) -> tuple[int, int, int]:
        """``(column or NO_MOVE, weak value, nodes)`` for the position after ``moves`` (game on)."""
        board = Board.from_moves(moves)
        geo = self.geo
        position, mask, ply = board.position, board.mask, board.ply
        possible = (mask + geo.bottom) & geo.board
        mine = self.wins(position) & possible
        if mine:
            return ((mine & -mine).bit_length() - 1) // geo.height, 1, 0
        nodes = 0
        order = self.move_order(position, mask, geo)
        other = position ^ mask
        children = {c: mask | ((mask + geo.bottom_cells[c]) & geo.column_masks[c]) for c in order}
        if ply + 1 == geo.size:
            return order[0], 0, 0
        for column in order:  # a win: a child scoring below 0 (one null-window search each)
            child_at_least_0 = self.solver.at_least(other, children[column], ply + 1, 0)
            nodes += self.solver.nodes
            if not child_at_least_0:
                return column, 1, nodes
        for column in order:  # a draw: a child scoring at most 0
            child_at_least_1 = self.solver.at_least(other, children[column], ply + 1, 1)
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


def _children_lines(moves: str, column: int, geo: Geometry) -> Iterator[str]:
    """Positions after our ``column`` then every opponent reply (games still on)."""
    board = Board.from_moves(moves)
    board.push(column)
    if board.is_game_over():
        return
    for reply in board.legal_moves():
        child = board.copy()
        child.push(reply)
        if not child.is_game_over():
            yield moves + str(column + 1) + str(reply + 1)


def _levels(done: dict[str, tuple[int, int]], max_ply: int) -> Iterator[tuple[int, list[str], bool]]:
    """Yield ``(ply, positions, whole)`` level by level; positions are deduplicated by canonical key.

    Level ``p`` is derived from the decisions (in ``done``) of level ``p - 2``: callers finish a
    level before asking for the one two plies deeper. ``whole`` is False when some parent was not
    solved yet (the level is then only partly known).
    """
    geo = geometry(6, 7, 4)
    frontier = {0: [""], 1: [str(c + 1) for c in range(geo.columns)]}
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
                nxt.extend(_children_lines(moves, column, geo))
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
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(book.to_bytes())
    tmp.replace(out)
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
    """``python -m agents.book {generate,build,status}`` (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m agents.book", description=__doc__.splitlines()[0])
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
