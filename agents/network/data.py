"""Training positions labelled by perfect play (offline; needs the numba solver or is slow).

Positions come from games between two "noisy tactical" players: each move is uniformly random with
probability ``epsilon`` (drawn per game from :data:`EPSILONS`), otherwise the player wins at once if
it can, blocks the opponent's immediate win if it must, avoids moves that let the opponent win at
once, and picks at random among what is left. The non-terminal positions of each game from ply
``min_ply`` on are labelled from the end of the game backwards (so the solver's transposition table
from later positions speeds up earlier ones) with the weak value of every legal move:

* ``2``: the move wins at once; ``1``: it keeps a win; ``0``: draw; ``-1``: loss (side to move);
* ``-2``: column full; ``-3``: not solved (another move wins at once, so the rest are not needed).

A shard is an ``.npz`` of ``position``, ``mask`` (int64 bitboards, :mod:`agents.board` layout), ``ply``
(int8) and ``values`` (int8, ``(n, 7)``); positions are unique within a shard.

Labels come from :class:`agents.solver.fast.FastSolver` (numba) when it imports, else from the pure
Python :class:`agents.solver.Solver` (about 30x slower).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.board import Board

__all__ = [
    "EPSILONS",
    "FULL",
    "UNSOLVED",
    "add_shard_arguments",
    "book_examples",
    "ensure_shards",
    "generate_shard",
    "label_game",
    "load_shards",
    "play_game",
    "shards_from_args",
]

EPSILONS = (1.0, 0.5, 0.25, 0.1)
FULL = -2
UNSOLVED = -3


def _solver():
    try:
        from agents.solver.fast import FastSolver

        return FastSolver(table_bits=22)
    except ImportError:  # pragma: no cover - numba missing
        from agents.solver import Solver

        return Solver()


def _tactical_move(board: Board, rng: random.Random) -> int:
    """A random immediate win, else a random block of an immediate threat, else a random move that
    does not lose at once (any legal move when all do)."""
    for cells in (board.winning_moves(), board.threats() & board.possible(), board.non_losing_moves()):
        if cells:
            return rng.choice(board.columns(cells))
    return rng.choice(board.legal_moves())


def play_game(rng: random.Random, epsilon: float) -> list[int]:
    """Moves (0-based columns) of one noisy-tactical game from the empty board to its end."""
    board = Board()
    moves: list[int] = []
    while not board.is_game_over():
        explore = rng.random() < epsilon
        column = rng.choice(board.legal_moves()) if explore else _tactical_move(board, rng)
        board.play(column)
        moves.append(column)
    return moves


def label_game(moves: list[int], solver, min_ply: int) -> list[tuple[int, int, int, list[int]]]:
    """``(position, mask, ply, values)`` of the game's non-terminal positions at ply >= ``min_ply``.

    Labelled backwards from the end of the game; ``values`` as in the module docstring.
    """
    boards = []
    board = Board()
    for column in moves:
        boards.append((board.position, board.mask, board.ply))
        board.play(column)
    out = []
    for position, mask, ply in reversed(boards):
        if ply < min_ply:
            break
        b = Board()
        b.position, b.mask, b.ply = position, mask, ply
        wins = b.winning_moves()
        values = []
        for c in range(7):
            if not b.can_play(c):
                values.append(FULL)
            elif wins:
                values.append(2 if wins & b.geo.column_masks[c] else UNSOLVED)
            elif ply + 1 == 42:
                values.append(0)
            else:
                cell = b.move_cell(c)
                child = solver.solve_bits(position ^ mask, mask | cell, ply + 1, weak=True)
                values.append(-int(child))
        out.append((position, mask, ply, values))
    return out


def generate_shard(
    path: Path,
    size: int,
    seed: int,
    min_ply: int,
    *,
    early_ply: int = 9,
    early_fraction: float = 0.2,
    log=print,
) -> None:
    """Write ``size`` unique labelled positions to ``path`` (an ``.npz``; see the module docstring).

    A game is labelled from ``min_ply`` on, or with probability ``early_fraction`` from ``early_ply``
    (early positions cost the solver seconds each, late ones milliseconds).
    """
    rng = random.Random(seed)
    solver = _solver()
    seen: set[int] = set()
    rows: list[tuple[int, int, int, list[int]]] = []
    start = time.perf_counter()
    games = 0
    while len(rows) < size:
        moves = play_game(rng, rng.choice(EPSILONS))
        games += 1
        first = early_ply if rng.random() < early_fraction else min_ply
        for row in label_game(moves, solver, first):
            key = row[0] + row[1]
            if key not in seen:
                seen.add(key)
                rows.append(row)
                if len(rows) % 500 == 0:
                    log(
                        f"  {path.name}: {len(rows)}/{size} positions, {games} games, "
                        f"{time.perf_counter() - start:.0f} s"
                    )
    rows = rows[:size]
    np.savez_compressed(
        path,
        position=np.array([r[0] for r in rows], dtype=np.int64),
        mask=np.array([r[1] for r in rows], dtype=np.int64),
        ply=np.array([r[2] for r in rows], dtype=np.int8),
        values=np.array([r[3] for r in rows], dtype=np.int8),
    )
    log(f"shard {path.name}: {size} positions from {games} games in {time.perf_counter() - start:.1f} s")


def load_shards(paths: list[Path]) -> dict[str, np.ndarray]:
    """Concatenate shards: ``position``, ``mask`` (uint64), ``ply`` (int8), ``values`` (int8 ``(n, 7)``)."""
    parts = [np.load(p) for p in paths]
    return {
        "position": np.concatenate([p["position"] for p in parts]).astype(np.uint64),
        "mask": np.concatenate([p["mask"] for p in parts]).astype(np.uint64),
        "ply": np.concatenate([p["ply"] for p in parts]),
        "values": np.concatenate([p["values"] for p in parts]),
    }


def book_examples() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The opening book (:mod:`agents.book`, 6x7) as training examples, in two parts.

    ``labelled``: the positions with a move (won or drawn), as :func:`load_shards` returns them, where
    ``values`` holds the book's weak value at its column and ``UNSOLVED`` at the other legal columns
    (other moves may be as good: the book keeps one). ``lost``: the lost positions (no move stored) as
    value-only examples, ``position``, ``mask`` and ``value`` (class 0, loss). Positions come in the
    book's canonical orientation (the smaller of a key and its mirror's). Raises ``FileNotFoundError``
    when the book file is missing.
    """
    from agents.book import NO_MOVE, load_book

    book = load_book()
    if book is None:
        raise FileNotFoundError("the opening book agents/data/book-6x7.bin is missing")
    height, columns = book.geo.height, book.geo.columns
    keys = book.keys.astype(np.uint64)
    position = np.zeros_like(keys)
    mask = np.zeros_like(keys)
    # Pons' key = position + mask: in each column, (stones below a 1 sentinel) + the mover's stones, so
    # the column's height h satisfies 2^h - 1 <= bits < 2^(h+1) - 1.
    stones = np.array([(x + 1).bit_length() - 1 for x in range(1 << height)], dtype=np.uint64)
    for c in range(columns):
        shift = np.uint64(c * height)
        bits = (keys >> shift) & np.uint64((1 << height) - 1)
        filled = (np.uint64(1) << stones[bits.astype(np.int64)]) - np.uint64(1)
        mask |= filled << shift
        position |= (bits - filled) << shift
    entries = book.entries.astype(np.int16)
    column, value = entries & 15, (entries >> 4) - 1
    ply = np.array([int(m).bit_count() for m in mask], dtype=np.int8)
    full = np.stack([(mask & np.uint64(top)) != 0 for top in book.geo.top_cells], axis=1)
    has_move = column != NO_MOVE
    values = np.where(full, FULL, UNSOLVED).astype(np.int8)
    rows = np.flatnonzero(has_move)
    values[rows, column[rows]] = value[rows]
    labelled = {
        "position": position[has_move],
        "mask": mask[has_move],
        "ply": ply[has_move],
        "values": values[has_move],
    }
    lost = {
        "position": position[~has_move],
        "mask": mask[~has_move],
        "value": np.zeros(int((~has_move).sum()), dtype=np.int32),
    }
    return labelled, lost


def _write_shard(
    directory: Path,
    k: int,
    size: int,
    seed: int,
    min_ply: int,
    early_ply: int,
    early_fraction: float,
    log: Callable[[str], object],
) -> Path:
    """Generate shard ``k`` under a temporary name, then rename it (a shard is whole or absent)."""
    path = directory / f"shard-{k:04d}.npz"
    tmp = directory / f"shard-{k:04d}.tmp.npz"
    generate_shard(
        tmp, size, seed * 100_003 + k, min_ply, early_ply=early_ply, early_fraction=early_fraction, log=log
    )
    tmp.rename(path)
    return path


def ensure_shards(
    directory: Path,
    count: int,
    size: int,
    seed: int,
    min_ply: int,
    *,
    early_ply: int,
    early_fraction: float,
    log: Callable[[str], object],
    workers: int = 1,
) -> list[Path]:
    """Paths of shards ``shard-0000.npz`` .. of ``directory`` (created if needed), generating the
    missing ones with :func:`generate_shard` (shard ``k`` seeded ``seed * 100_003 + k``; written to a
    temporary name and renamed, so an interrupted run resumes at the missing shards). With
    ``workers > 1`` the missing shards are generated in that many processes (``concurrent.futures``);
    only their completion is logged then, since ``log`` stays in this process. Raises ``ValueError``
    when ``workers < 1``."""
    if workers < 1:
        raise ValueError("workers must be >= 1")
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"shard-{k:04d}.npz" for k in range(count)]
    missing = [k for k, path in enumerate(paths) if not path.exists()]
    settings = (size, seed, min_ply, early_ply, early_fraction)
    if workers == 1 or len(missing) <= 1:
        for k in missing:
            _write_shard(directory, k, *settings, log)
        return paths
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # Spawned, not forked: the caller may hold threads (JAX's) that a fork would copy in a bad state.
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_write_shard, directory, k, *settings, _quiet) for k in missing]
        for done, future in enumerate(as_completed(futures), 1):
            log(f"shard {future.result().name} written ({done}/{len(missing)} missing shards)")
    return paths


def _quiet(message: str) -> None:
    """Progress sink of worker processes (their progress lines are dropped)."""


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return value


def add_shard_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that define the data shards, shared by the ``data`` and ``train`` commands."""
    parser.add_argument("--shards", type=_at_least_one, default=40, help="data shards (the last is held out)")
    parser.add_argument("--shard-size", type=_at_least_one, default=5000, help="positions a shard")
    parser.add_argument("--min-ply", type=int, default=12, help="label games from this ply on")
    parser.add_argument("--early-ply", type=int, default=9, help="... or from this ply, in --early-fraction")
    parser.add_argument("--early-fraction", type=float, default=0.2, help="share of games labelled early")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=_at_least_one, default=1, help="processes generating missing shards"
    )


def shards_from_args(args: argparse.Namespace, directory: Path, log: Callable[[str], object]) -> list[Path]:
    """:func:`ensure_shards` with the options of :func:`add_shard_arguments`."""
    return ensure_shards(
        directory,
        args.shards,
        args.shard_size,
        args.seed,
        args.min_ply,
        early_ply=args.early_ply,
        early_fraction=args.early_fraction,
        log=log,
        workers=args.workers,
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.network.data --out DIR --shards K --shard-size N [--min-ply P] [--seed S] ...``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    add_shard_arguments(parser)
    args = parser.parse_args(argv)
    shards_from_args(args, args.out, log=lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
