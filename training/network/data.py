"""Training positions labelled by perfect play (offline; needs the numba solver or is slow).

Positions come from games between two "noisy tactical" players (:class:`NoisyTactical`, played by
:func:`agents.kit.player.play_game`): each move is uniformly random with probability ``epsilon`` (drawn
per game from :data:`EPSILONS`), otherwise the player wins at once if it can, blocks the opponent's
immediate win if it must, avoids moves that let the opponent win at once, and picks at random among
what is left. The non-terminal positions of each game from ply ``min_ply`` on are labelled from the
end of the game backwards (so the solver's transposition table from later positions speeds up
earlier ones) with the weak value of every legal move:

* ``2``: the move wins at once; ``1``: it keeps a win; ``0``: draw; ``-1``: loss (side to move);
* ``-2``: column full; ``-3``: not solved (another move wins at once, so the rest are not needed).

A shard is an ``.npz`` of ``position``, ``mask`` (int64 bitboards, :mod:`agents.engine.board` layout), ``ply``
(int8) and ``values`` (int8, ``(n, 7)``); positions are unique within a shard. Boards are 6x7
(:mod:`agents.network.features`).

With ``--balanced`` a game starts instead from a random opening of 6-8 plies whose exact score is
within 2 of a draw, the margin the built-in suite of balanced openings uses (``scripts/make_openings.py``;
the suite's own openings and their mirror images are never drawn, since tournaments test on them), and
goes on with ``epsilon`` drawn from :data:`BALANCED_EPSILONS`. Noisy games from the empty board reach
few such positions (at plies 6-8 the side to move wins 60-65 % of them and 11-13 % are drawn), and the
network's early value head learnt that bias (``agents/data/network.md``).

Labels come from :func:`training.solvers.weak_solver` (the numba :class:`agents.engine.solver.fast.FastSolver`
when it imports, else the pure-Python :class:`agents.engine.solver.Solver`, about 30x slower). Command::

    python -m training.network.data --out DIR --shards K --shard-size N [--min-ply P] [--seed S]
        [--workers W] [--balanced]
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable
from pathlib import Path

from agents.engine.board import Board, geometry
from agents.engine.book import mirror
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.kit.record import MoveRecord
from agents.network.features import COLUMNS, ROWS
from training.shards import build_shards, save_shard
from training.solvers import WeakSolver, weak_solver

__all__ = [
    "BALANCED_EPSILONS",
    "BALANCED_MARGIN",
    "BALANCED_PLIES",
    "EPSILONS",
    "FULL",
    "UNSOLVED",
    "NoisyTactical",
    "add_shard_arguments",
    "balanced_opening",
    "ensure_shards",
    "generate_shard",
    "label_game",
    "noisy_game",
    "shards_from_args",
]

EPSILONS = (1.0, 0.5, 0.25, 0.1)
BALANCED_PLIES = (6, 7, 8)
BALANCED_MARGIN = 2
"""Balanced openings (``--balanced``): 6-8 plies, exact score (Pons' convention) within +-2."""
BALANCED_EPSILONS = (0.25, 0.1)
"""Move noise after a balanced opening: lower than :data:`EPSILONS`, to stay near balance longer."""
FULL = -2
UNSOLVED = -3


class NoisyTactical:
    """The noisy tactical :class:`~agents.kit.player.Player` of the module docstring, drawing from ``rng``.

    With probability ``epsilon`` a uniformly random legal column; otherwise a random immediate win,
    else a random block of an immediate threat, else a random move that does not lose at once (any
    legal move when all do).
    """

    def __init__(self, rng: random.Random, epsilon: float) -> None:
        self.rng = rng
        self.epsilon = epsilon

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        start = time.perf_counter()
        rng = self.rng
        if rng.random() < self.epsilon:
            return MoveRecord.since(start, board, "explore", rng.choice(board.legal_moves()))
        for cells in (board.winning_moves(), board.threats() & board.possible(), board.non_losing_moves()):
            if cells:
                return MoveRecord.since(start, board, "tactics", rng.choice(board.columns(cells)))
        return MoveRecord.since(start, board, "tactics", rng.choice(board.legal_moves()))


def noisy_game(rng: random.Random, epsilon: float, start: Board | None = None) -> tuple[int, ...]:
    """Moves (0-based columns) of one game between two :class:`NoisyTactical` players sharing ``rng``,
    from ``start`` (its moves included; None: the empty 6x7 board) to its end."""
    player = NoisyTactical(rng, epsilon)
    return play_game([player, player], Board(ROWS, COLUMNS) if start is None else start).moves


def suite_keys() -> frozenset[int]:
    """Keys (``position + mask``) of the built-in suite's openings and of their mirror images."""
    from tournament.openings import resolve

    geo = geometry(ROWS, COLUMNS, 4)
    keys: set[int] = set()
    for opening in resolve("auto", geo, pairs=1, seed=0)[1]:
        board = Board.from_moves(opening, rows=ROWS, columns=COLUMNS)
        key = board.position + board.mask
        keys.update((key, mirror(key, geo)))
    return frozenset(keys)


def balanced_opening(
    rng: random.Random,
    solver: WeakSolver,
    exclude: frozenset[int] = frozenset(),
    plies: tuple[int, ...] = BALANCED_PLIES,
) -> Board:
    """A random opening of ``plies`` plies (one drawn from the tuple) in which nobody has four in a
    row, the side to move has no winning move, and the exact score is within :data:`BALANCED_MARGIN`
    of a draw (two null-window tests with ``solver``, as :func:`training.solvers.weak_solver`
    returns); its key (``position + mask``) and its mirror image's are not in ``exclude``. Candidates
    are drawn uniformly move by move until one qualifies (about 2 in 5 do at 6-8 plies)."""
    while True:
        board = Board(ROWS, COLUMNS)
        for _ in range(rng.choice(plies)):
            board.push(rng.choice(board.legal_moves()))
            if board.is_game_over():
                break
        if board.is_game_over() or board.winning_moves():
            continue
        key = board.position + board.mask
        if key in exclude or mirror(key, board.geo) in exclude:
            continue
        args = (board.position, board.mask, board.ply)
        if solver.at_least(*args, -BALANCED_MARGIN) and not solver.at_least(*args, BALANCED_MARGIN + 1):
            return board


def label_game(
    moves: tuple[int, ...], solver: WeakSolver, min_ply: int
) -> list[tuple[int, int, int, list[int]]]:
    """``(position, mask, ply, values)`` of the game's non-terminal positions at ply >= ``min_ply``.

    Labelled backwards from the end of the game (its moves taken back one by one); ``values`` as in
    the module docstring; ``solver`` as :func:`training.solvers.weak_solver` returns.
    """
    board = Board.from_moves(moves, rows=ROWS, columns=COLUMNS)
    out = []
    while board.ply > min_ply:
        board.pop()
        wins = board.winning_moves()
        values = []
        for c in range(COLUMNS):
            if not board.can_play(c):
                values.append(FULL)
            elif wins:
                values.append(2 if wins & board.move_cell(c) else UNSOLVED)
            elif board.ply + 1 == board.geo.size:
                values.append(0)
            else:
                child = board.mask | board.move_cell(c)
                values.append(-int(solver.solve_bits(board.opponent, child, board.ply + 1, weak=True)))
        out.append((board.position, board.mask, board.ply, values))
    return out


def generate_shard(
    path: Path,
    size: int,
    seed: int,
    min_ply: int,
    *,
    early_ply: int = 9,
    early_fraction: float = 0.2,
    balanced: bool = False,
    log: Callable[[str], object] = print,
) -> None:
    """Write ``size`` unique labelled positions to ``path`` (an ``.npz``; see the module docstring).

    A game is labelled from ``min_ply`` on, or with probability ``early_fraction`` from ``early_ply``
    (early positions cost the solver seconds each, late ones milliseconds). With ``balanced``, games
    start from a :func:`balanced_opening` (not one of the built-in suite's).
    """
    rng = random.Random(seed)
    solver = weak_solver(22)
    exclude = suite_keys() if balanced else frozenset()
    seen: set[int] = set()
    rows: list[tuple[int, int, int, list[int]]] = []
    start = time.perf_counter()
    games = 0
    while len(rows) < size:
        if balanced:
            moves = noisy_game(rng, rng.choice(BALANCED_EPSILONS), balanced_opening(rng, solver, exclude))
        else:
            moves = noisy_game(rng, rng.choice(EPSILONS))
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
    save_shard(path, rows[:size])
    log(f"shard {path.name}: {size} positions from {games} games in {time.perf_counter() - start:.1f} s")


def _write_shard(
    path: Path,
    k: int,
    *,
    size: int,
    seed: int,
    min_ply: int,
    early_ply: int,
    early_fraction: float,
    balanced: bool,
) -> None:
    """Shard ``k`` of :func:`ensure_shards`, seeded ``seed * 100_003 + k``."""
    generate_shard(
        path,
        size,
        seed * 100_003 + k,
        min_ply,
        early_ply=early_ply,
        early_fraction=early_fraction,
        balanced=balanced,
        log=_quiet,
    )


def ensure_shards(
    directory: Path,
    count: int,
    size: int,
    seed: int,
    min_ply: int,
    *,
    early_ply: int,
    early_fraction: float,
    workers: int = 1,
    balanced: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Paths of the noisy-game shards ``shard-0000.npz`` .. of ``directory``, the missing ones
    generated by :func:`generate_shard` through :func:`build_shards` (shard ``k`` seeded
    ``seed * 100_003 + k``). ``balanced`` as :func:`generate_shard`'s, for the missing shards only.
    Raises ``ValueError`` when ``workers < 1``."""
    write = functools.partial(
        _write_shard,
        size=size,
        seed=seed,
        min_ply=min_ply,
        early_ply=early_ply,
        early_fraction=early_fraction,
        balanced=balanced,
    )
    return build_shards(directory, count, write, workers=workers, unit_size=size, progress=progress)


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
    parser.add_argument(
        "--balanced",
        action="store_true",
        help="start games from random balanced 6-8 ply openings, not the suite's (module docstring)",
    )


def shards_from_args(args: argparse.Namespace, directory: Path, *, progress: bool = True) -> list[Path]:
    """:func:`ensure_shards` with the options of :func:`add_shard_arguments`."""
    return ensure_shards(
        directory,
        args.shards,
        args.shard_size,
        args.seed,
        args.min_ply,
        early_ply=args.early_ply,
        early_fraction=args.early_fraction,
        workers=args.workers,
        balanced=args.balanced,
        progress=progress,
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m training.network.data`` (see the module docstring); returns 0."""
    parser = argparse.ArgumentParser(
        prog="python -m training.network.data", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True)
    add_shard_arguments(parser)
    args = parser.parse_args(argv)
    shards_from_args(args, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
