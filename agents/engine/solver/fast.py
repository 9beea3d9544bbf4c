"""The solver's algorithm compiled with numba: :class:`FastSolver`, about 40x the pure-Python speed.

Same algorithm as :mod:`agents.engine.solver` (Pons' final solver, http://blog.gamesolver.org/):
alpha-beta negamax on bitboards, threat-count move ordering with centre-first ties, pruning of moves
that lose at once, bound transposition table, null-window bisection. Scores are from the side to
move, in Pons' convention. Differences that do not change any score: 64-bit bitboards (boards of at
most 64 bits, ``(rows + 1) * columns <= 64``, and ``inarow == 4``), and the transposition table is
Pons' fixed-size array (one entry per slot, always replaced) instead of a dict, so node counts differ
slightly from the pure-Python core. Given the distance database, it scores the positions of its
ply by it (``_probe``), as the pure-Python kernel does.

:class:`agents.engine.solver.Solver` hands it its searches wherever numba imports (a dependency of
the package; the first use in a process loads the compiled code from numba's cache, about 0.5 s,
or compiles it, a few seconds, the first time ever). A single-file submission carries this module
verbatim (:data:`submissions.inline.ACCELERATORS`): where numba imports, as on Kaggle's image, it
compiles the kernel in memory at the agent's first move (:func:`agents.engine.solver.warm_up`); its
modules name no file on disk, so numba's cache is off there (:data:`CACHE`) and nothing is written
beside the file. Where numba does not import, the pure-Python kernel runs. Offline work (opening
book, training data, benchmarks) uses it directly.

``_negamax`` is one long function on purpose, as is the pure-Python kernel: a call of a compiled
function costs reference counting for each array argument (the comment in ``_negamax`` measures it),
so the table probe, move generation and ordering stay inside. It and the two pure-Python kernels
(:mod:`agents.engine.solver.kernel`, :func:`agents.engine.search._kernel`) are the exceptions to the
project's functions of at most about 60 lines.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from agents.engine.board import Geometry, geometry
from agents.engine.solver.databases import Database
from agents.engine.solver.kernel import SearchAborted

__all__ = ["FastSolver"]

_U = np.uint64

CACHE = os.path.isfile(__file__)
"""numba caches the compiled kernel beside this module's source file (``__pycache__``) when there is
one. A built submission's modules have pseudo file names (:mod:`submissions.runtime`), for which
numba's ``cache=True`` finds no place and raises as the function is decorated (it needs the source
file, and a folder it can write: numba issues #4908, #5566): there the kernel compiles in memory,
once a process."""

_ABSENT = 1 << 20  # what _probe returns for a position not stored (no score is this large)

CLOCK_EVERY = 1 << 12
"""The compiled search reads the clock once every this many nodes (about 0.5 ms on an idle core)."""
_CLOCK_EVERY = _U(CLOCK_EVERY - 1)
_NEVER = (1 << 63) - 1
"""The deadline of a search without one (nanoseconds)."""


def _clock_gettime_ns(typingctx: Any, clock_id: Any) -> Any:
    """``clock_gettime(clock_id)`` in nanoseconds, called from compiled code (POSIX ``clock_gettime(2)``,
    a vDSO call on Linux). An intrinsic that declares the C function, rather than a ctypes pointer,
    so that numba can cache the code: the symbol is resolved again when the cache is loaded."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    timespec = ir.ArrayType(i64, 2)  # struct timespec on 64-bit POSIX: seconds, nanoseconds

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [i32, timespec.as_pointer()]), "clock_gettime"
        )
        spec = cgutils.alloca_once(builder, timespec)
        builder.call(function, [builder.trunc(args[0], i32), spec])
        seconds = builder.load(builder.gep(spec, [ir.Constant(i32, 0), ir.Constant(i32, 0)]))
        nanoseconds = builder.load(builder.gep(spec, [ir.Constant(i32, 0), ir.Constant(i32, 1)]))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)

    return types.int64(types.int64), codegen


_clock_ns: Any = intrinsic(_clock_gettime_ns)


def _address_to_pointer(typingctx: Any, address: Any) -> Any:
    """A pointer to int64 at ``address`` (uint64), for :func:`numba.carray` (see ``_negamax``'s comment)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())

    return types.CPointer(types.int64)(types.uint64), codegen


_pointer: Any = intrinsic(_address_to_pointer)


@njit(cache=CACHE, inline="always")
def _popcount(x: np.uint64) -> np.int64:
    x = x - ((x >> _U(1)) & _U(0x5555555555555555))
    x = (x & _U(0x3333333333333333)) + ((x >> _U(2)) & _U(0x3333333333333333))
    x = (x + (x >> _U(4))) & _U(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * _U(0x0101010101010101)) >> _U(56))


@njit(cache=CACHE, inline="always")
def _wins(p: np.uint64, board: np.uint64, h: np.uint64) -> np.uint64:
    """Cells completing four in a row with ``p`` (same formula as ``agents.engine.lines.wins_function``)."""
    x = p & (p >> _U(1))
    r = (x << _U(2)) & (p << _U(3))
    s = h
    x = p & (p >> s)
    r |= ((x >> s) & ((p >> (_U(3) * s)) | (p << s))) | ((x << (_U(2) * s)) & ((p << (_U(3) * s)) | (p >> s)))
    s = h - _U(1)
    x = p & (p >> s)
    r |= ((x >> s) & ((p >> (_U(3) * s)) | (p << s))) | ((x << (_U(2) * s)) & ((p << (_U(3) * s)) | (p >> s)))
    s = h + _U(1)
    x = p & (p >> s)
    r |= ((x >> s) & ((p >> (_U(3) * s)) | (p << s))) | ((x << (_U(2) * s)) & ((p << (_U(3) * s)) | (p >> s)))
    return r & board


@njit(cache=CACHE)
def _probe(first: np.uint64, mask: np.uint64, h: np.uint64, ncols: np.int64, db: np.ndarray) -> np.int64:
    """``Database.score`` compiled, or :data:`_ABSENT`: the Huffman codes of a 6x7 position and of its
    mirror image (:func:`agents.engine.solver.databases.huffman_code`; 32 bits, signed) searched among
    the sorted ``code << 8 | (score + 128)`` of ``db`` (``Database.entries()``)."""
    code = mirror = bits = np.int64(0)
    for c in range(ncols):
        stones = np.int64(first >> (_U(c) * h))
        filled = np.int64(mask >> (_U(c) * h))
        piece, n = np.int64(0), np.int64(1)  # 10: mark 1's stone, 11: mark 2's, 0 atop the column
        while filled >> (n >> 1) & 1:
            piece = (piece << 2) | (3 - (stones >> (n >> 1) & 1))
            n += 2
        code = (code << n) | (piece << 1)
        mirror |= (piece << 1) << bits  # columns right to left
        bits += n
    for key in (code << 1, mirror << 1):
        key -= (key >> 31 & 1) << 32 if bits == 31 else 0
        i = np.searchsorted(db, key << 8)
        if i < db.shape[0] and db[i] >> 8 == key:
            return np.int64((db[i] & 255) - 128)
    return np.int64(_ABSENT)


@njit(cache=CACHE)
def _negamax(
    cur: np.uint64,
    msk: np.uint64,
    ply: np.int64,
    alpha: np.int64,
    beta: np.int64,
    opp_wins: np.uint64,
    board: np.uint64,
    bottom: np.uint64,
    h: np.uint64,
    size: np.int64,
    ncols: np.int64,
    tt: np.ndarray,
    sc: np.ndarray,
) -> np.int64:
    # tt: one uint64 a slot, key << 8 | (bound + 128), bound = 2 * score + is_lower; 0 = empty.
    # sc: rows 0..size: per-ply move lists (masks | winning cells | threat counts, ncols each);
    # last row: column masks centre first; its last eight cells: the distance database's length,
    # address and ply (none: size + 1), the clock's id and the deadline on it (nanoseconds), abort
    # flag, node limit, node count. Two arrays only: every array argument costs reference counting on
    # each call (this layout is 2.7x faster than six arrays; the database as a third: 10 % slower).
    ctr = sc.shape[0] - 1
    w = sc.shape[1]
    sc[ctr, w - 1] += _U(1)
    if sc[ctr, w - 1] >= sc[ctr, w - 2]:  # node limit (the pure kernel's: its max_nodes-th call): unwind
        sc[ctr, w - 3] = _U(1)
        return np.int64(0)
    if (sc[ctr, w - 1] & _CLOCK_EVERY) == _U(0) and _U(_clock_ns(np.int64(sc[ctr, w - 5]))) > sc[ctr, w - 4]:
        sc[ctr, w - 3] = _U(1)  # deadline: unwind without storing
        return np.int64(0)
    if ply == np.int64(sc[ctr, w - 6]):  # the database's ply: its score, as the pure-Python kernel's leaf
        known = _probe(cur, msk, h, ncols, carray(_pointer(sc[ctr, w - 7]), int(sc[ctr, w - 8])))
        if known != _ABSENT:
            return known
    empty = board ^ msk
    opp_wins = opp_wins & empty
    possible = (msk + bottom) & board
    forced = possible & opp_wins
    if forced:
        if forced & (forced - _U(1)):
            return -((size - ply) // 2)
        possible = forced
    possible = possible & ((opp_wins >> _U(1)) ^ _U(0xFFFFFFFFFFFFFFFF))
    if not possible:
        return -((size - ply) // 2)
    if ply >= size - 2:
        return np.int64(0)
    low = -((size - 2 - ply) // 2)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (size - 1 - ply) // 2
    # The table's bounds narrow the window as in the pure-Python kernel (kernel.py's negamax): this is
    # its compiled twin, so the same steps stand in both on purpose (module docstring).
    key = cur + msk
    slot = key % _U(tt.shape[0])
    e = tt[slot]
    if e != _U(0) and (e >> _U(8)) == key:
        entry = np.int64(e & _U(255)) - 128
        if entry & 1:
            low = entry >> 1
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        else:
            high = entry >> 1
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    n = 0
    for i in range(ncols):
        m = possible & sc[ctr, i]
        if m:
            r = _wins(cur | m, board, h)
            s = _U(_popcount(r & empty))
            pos = n
            while pos > 0 and sc[ply, 2 * ncols + pos - 1] < s:
                sc[ply, pos] = sc[ply, pos - 1]
                sc[ply, ncols + pos] = sc[ply, ncols + pos - 1]
                sc[ply, 2 * ncols + pos] = sc[ply, 2 * ncols + pos - 1]
                pos -= 1
            sc[ply, pos] = m
            sc[ply, ncols + pos] = r
            sc[ply, 2 * ncols + pos] = s
            n += 1
    other = cur ^ msk
    for k in range(n):
        m = sc[ply, k]
        score = -_negamax(
            other, msk | m, ply + 1, -beta, -alpha, sc[ply, ncols + k], board, bottom, h, size, ncols, tt, sc
        )
        if sc[ctr, w - 3]:
            return np.int64(0)
        if score >= beta:
            tt[slot] = (key << _U(8)) | _U(((score << 1) | 1) + 128)
            return score
        if score > alpha:
            alpha = score
    tt[slot] = (key << _U(8)) | _U((alpha << 1) + 128)
    return alpha


@njit(cache=CACHE)
def _solve(
    cur: np.uint64,
    msk: np.uint64,
    ply: np.int64,
    weak: bool,
    lo: np.int64,
    hi: np.int64,
    board: np.uint64,
    bottom: np.uint64,
    h: np.uint64,
    size: np.int64,
    ncols: np.int64,
    tt: np.ndarray,
    sc: np.ndarray,
) -> np.int64:
    # lo < hi: search only that score range (the result is then clamped to it).
    possible = (msk + bottom) & board
    if _wins(cur, board, h) & possible:
        return np.int64(1) if weak else (size + 1 - ply) // 2
    low = -((size - ply) // 2)
    high = (size + 1 - ply) // 2
    if weak:
        low = max(low, np.int64(-1))
        high = min(high, np.int64(1))
    if lo < hi:
        low, high = lo, hi
    opp_wins = _wins(cur ^ msk, board, h)
    while low < high:
        med = low + (high - low) // 2
        half_low = -((-low) // 2) if low < 0 else low // 2
        half_high = -((-high) // 2) if high < 0 else high // 2
        if med <= 0 and half_low < med:
            med = half_low
        elif med >= 0 and half_high > med:
            med = half_high
        r = _negamax(cur, msk, ply, med, med + 1, opp_wins, board, bottom, h, size, ncols, tt, sc)
        if sc[sc.shape[0] - 1, sc.shape[1] - 3]:
            return np.int64(-1000)
        if r <= med:
            high = r
        else:
            low = r
    if weak:
        return np.int64(low > 0) - np.int64(low < 0)
    return low


class FastSolver:
    """numba twin of :class:`agents.engine.solver.Solver` (``inarow == 4``, boards of at most 64 bits).

    ``table_bits`` sets the transposition table to about ``2**table_bits`` slots (8 bytes each).
    ``database``: the distance database (:class:`~agents.engine.solver.databases.Database`, exact),
    whose ply the search then scores by it instead of searching on. Raises ``ValueError`` for an
    unsupported geometry. ``nodes`` counts the last solve's negamax calls.

    Deadlines are kept by the clock, not by an assumed speed: the compiled search reads the clock
    (``clock_gettime``, :func:`_clock_ns`) every :data:`CLOCK_EVERY` nodes, so a process that gets a
    third of a core stops on time, where a node budget sized for an idle core would not. Where
    ``time.clock_gettime_ns`` is missing (not a POSIX system), ``ValueError`` too: the pure-Python
    kernel then searches.
    """

    def __init__(
        self,
        rows: int = 6,
        columns: int = 7,
        inarow: int = 4,
        *,
        table_bits: int = 23,
        database: Database | None = None,
    ) -> None:
        geo: Geometry = geometry(rows, columns, inarow)
        if inarow != 4 or geo.height * columns > 64:
            raise ValueError("FastSolver needs inarow == 4 and (rows + 1) * columns <= 64")
        if not hasattr(time, "clock_gettime_ns"):
            raise ValueError("FastSolver needs clock_gettime (a POSIX system)")
        self.geo = geo
        slots = (1 << table_bits) + 1  # the next prime: a prime table size spreads keys, as in Pons' table
        while any(slots % k == 0 for k in range(2, math.isqrt(slots) + 1)):
            slots += 1
        self._tt = np.zeros(slots, dtype=np.uint64)
        self._sc = np.zeros((geo.size + 2, 3 * columns + 8), dtype=np.uint64)
        for i, c in enumerate(geo.centre_order):
            self._sc[-1, i] = geo.column_masks[c]
        self._sc[-1, -6:-4] = geo.size + 1, time.CLOCK_MONOTONIC  # the database's ply: none yet
        if database is not None:
            if (rows, columns) != (6, 7):
                raise ValueError("the opening databases hold 6x7 positions only")
            self._db = database.entries()  # kept alive while the kernel reads it by its address
            self._sc[-1, -8:-5] = len(self._db), self._db.ctypes.data, database.ply
        consts = (_U(geo.board), _U(geo.bottom), _U(geo.height), np.int64(geo.size), np.int64(columns))
        self._args = (*consts, self._tt, self._sc)
        self.nodes = 0

    def reset(self) -> None:
        """Empty the transposition table."""
        self._tt[:] = 0

    def solve_bits(
        self,
        position: int,
        mask: int,
        ply: int,
        *,
        weak: bool = False,
        max_nodes: int = 1 << 62,
        deadline: float = math.inf,
    ) -> int:
        """Score (side to move, Pons' convention) of a position given as bitboards; the game must be on.

        Raises :class:`agents.engine.solver.SearchAborted` past ``max_nodes`` negamax calls or past
        ``deadline`` (``time.perf_counter()`` seconds); the table keeps only completed results.
        """
        return self.solve_window(position, mask, ply, weak, 0, 0, max_nodes, deadline)

    def at_least(self, position: int, mask: int, ply: int, value: int, *, max_nodes: int = 1 << 62) -> bool:
        """True when the score is ``>= value`` (one null-window search), as ``Solver.at_least``."""
        return self.solve_window(position, mask, ply, False, value - 1, value, max_nodes) >= value

    def solve_window(
        self,
        position: int,
        mask: int,
        ply: int,
        weak: bool,
        lo: int,
        hi: int,
        max_nodes: int,
        deadline: float = math.inf,
    ) -> int:
        """The score searched only within ``lo < hi`` (clamped to it; ``lo == hi``: the whole range),
        or its sign when ``weak``. Raises :class:`~agents.engine.solver.kernel.SearchAborted` past
        ``max_nodes`` or past ``deadline`` (``time.perf_counter()`` seconds, read every
        :data:`CLOCK_EVERY` nodes; one already past stops the search at its first node)."""
        last = self._sc[-1]
        last[-1] = last[-3] = 0
        now, left = time.clock_gettime_ns(time.CLOCK_MONOTONIC), deadline - time.perf_counter()
        last[-4] = _NEVER if deadline == math.inf else max(0, now + int(left * 1e9))  # the kernel's clock
        last[-2] = max_nodes if deadline > time.perf_counter() else 0
        score = _solve(_U(position), _U(mask), np.int64(ply), weak, np.int64(lo), np.int64(hi), *self._args)
        self.nodes = int(last[-1])
        if last[-3]:
            raise SearchAborted(f"search aborted after {self.nodes} nodes")
        return int(score)
