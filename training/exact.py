"""Exact training data: positions of balanced games labelled by perfect play, cheaply.

Every 6x7 position with 12 stones has an exact score in the solved game's opening databases
(:mod:`agents.engine.solver.databases`, Markus Thill's ``bitbully-databases``), so the solver
(:class:`agents.engine.solver.Solver`) scores any earlier position exactly after a shallow search down
to them, compiled (:mod:`agents.engine.solver.fast`): every column's score in 8 ms at ply 4, under
1 ms at plies 8-11 (``python -m benchmarks.early_search``). Past the databases the numba kernel
(:mod:`agents.engine.solver.fast`) gives the weak value (win, draw or loss) in milliseconds at late
plies and up to about a second at plies 12-16 of balanced games.

Positions are those that decide games between good agents:

* every game starts from a random **balanced opening** (:func:`training.network.data.balanced_opening`:
  6-8 plies, exact score within 2 of a draw, never one of the built-in suite's openings or their
  mirror images, which tournaments test on); the opening's own earlier positions (plies 0-7) are
  labelled too;
* it goes on with **near-perfect play**: with probability ``epsilon`` (drawn per game from
  :data:`EPSILONS`) a uniformly random legal move, otherwise a random move among those of the best
  outcome class, so that games stay balanced for long and sometimes tip;
* a game is labelled up to the last ply of its part (:data:`PARTS`), and its positions before the
  part's first ply are left out.

A shard is an ``.npz`` in the format of :mod:`training.network.data` (``position``, ``mask`` int64
bitboards of :mod:`agents.engine.board`; ``ply`` int8; ``values`` int8 ``(n, 7)``: 2 wins at once,
1 / 0 / -1 win / draw / loss for the mover, -2 full, -3 not solved because another move wins at once),
so :mod:`training.network.train` reads both, plus ``scores`` int8 ``(n, 7)``: each move's exact score in
Pons' convention, from the mover's side (positive: a win, the larger the sooner; 0 a draw; negative
a loss; see :mod:`agents.engine.solver`), where it is known exactly, i.e. at plies up to 11, whose
children lie at or above the databases' 12 stones; else :data:`NO_SCORE`. Positions are unique
within a shard up to mirror images.

The set has two parts (:data:`PARTS`), each a folder of shards: ``book`` (plies 0-11, scored exactly
through the databases: about 135 positions a second a core once the first plies are remembered) and
``deep`` (plies 12-22, weak-solved by the numba kernel: a few positions a second). Command (resumable:
shards are written whole under a temporary name and renamed; the same command again generates only
the missing ones; a progress bar counts positions)::

    python -m training.exact --out DIR [--book-shards K] [--deep-shards K] [--seed S] [--workers W]

The defaults (:data:`SHARDS` of :data:`SHARD_SIZES`: 180,000 and 8,000 positions) took 16 min for
the book part on two busy cores and 25 min for the deep part on one (``agents/data/network.md``).
Needs the databases (a dependency of the package) and numba.
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable
from pathlib import Path

from agents.engine.board import Board
from agents.engine.book import canonical
from agents.engine.solver import Solver
from agents.engine.solver.databases import DATABASE_PLY
from agents.network.features import COLUMNS, ROWS
from training.network.data import FULL, UNSOLVED, balanced_opening, suite_keys
from training.shards import build_shards, save_shard

__all__ = [
    "EPSILONS",
    "NO_SCORE",
    "PARTS",
    "SHARDS",
    "SHARD_SIZES",
    "ensure_exact_shards",
    "generate_shard",
    "label_position",
    "main",
]

EPSILONS = (0.03, 0.1, 0.2)
"""Per-game probability of a random move instead of a best one."""
PARTS = {"book": (0, DATABASE_PLY - 1), "deep": (DATABASE_PLY, 22)}
"""The data set's two parts and their plies: the book part is scored exactly through the databases
(milliseconds a position), the deep part by the numba solver past them (a tenth of a second or so)."""
SHARD_SIZES = {"book": 3000, "deep": 1000}
"""Positions a shard of each part."""
SHARDS = {"book": 60, "deep": 8}
"""Shards of each part by default: the set the shipped network was fine-tuned on."""
MEMO_PLY = 6
"""Labels of positions up to this ply are remembered within a process (every game passes some)."""
NO_SCORE = -128
"""``scores`` entry of a full column, or of a move whose exact score is not computed."""


def label_position(board: Board, solver: Solver) -> tuple[list[int], list[int]]:
    """``(values, scores)`` of every column of ``board`` (6x7, game on), as in the module docstring.

    Exact scores (the solver's ``analyse_bits``) at plies below :data:`DATABASE_PLY`, weak values
    after it. Raises ``ValueError`` when the solver has no databases (exact scores before them would
    need hours).
    """
    if solver.database is None:
        raise ValueError("exact labels need the opening databases (pip install bitbully-databases)")
    win_now = board.winning_moves()
    exact = board.ply < DATABASE_PLY
    if win_now:
        win = (board.geo.size + 1 - board.ply) // 2
        values, scores = [], []
        for c in range(COLUMNS):
            if not board.can_play(c):
                values.append(FULL)
                scores.append(NO_SCORE)
            elif win_now & board.move_cell(c):
                values.append(2)
                scores.append(win)
            else:
                values.append(UNSOLVED)
                scores.append(NO_SCORE)
        return values, scores
    found = solver.analyse_bits(board.position, board.mask, board.ply, weak=not exact)
    values = [FULL if s is None else (s > 0) - (s < 0) for s in found]
    scores = [NO_SCORE if s is None or not exact else s for s in found]
    return values, scores


def _choose(values: list[int], rng: random.Random, epsilon: float) -> int:
    """A random legal column with probability ``epsilon``, else a random one of the best class."""
    legal = [c for c, v in enumerate(values) if v != FULL]
    if rng.random() < epsilon:
        return rng.choice(legal)
    best = max(values[c] for c in legal)
    return rng.choice([c for c in legal if values[c] == best])


class _Labeller:
    """:func:`label_position` with the early positions remembered (plies up to :data:`MEMO_PLY`,
    which every game's opening passes through: the empty board costs about 0.7 s)."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.memo: dict[int, tuple[list[int], list[int]]] = {}

    def __call__(self, board: Board) -> tuple[list[int], list[int]]:
        if board.ply > MEMO_PLY:
            return label_position(board, self.solver)
        key = board.position + board.mask
        if key not in self.memo:
            self.memo[key] = label_position(board, self.solver)
        return self.memo[key]


@functools.cache
def _labeller() -> _Labeller:
    """The process's labeller: its memo and transposition table serve every shard it writes."""
    return _Labeller(Solver(table_limit=2_000_000))


def _game(
    rng: random.Random, label: _Labeller, exclude: frozenset[int], last: int
) -> list[tuple[Board, list[int], list[int]]]:
    """One game's labelled positions up to ply ``last`` (module docstring)."""
    opening = balanced_opening(rng, label.solver, exclude)
    epsilon = rng.choice(EPSILONS)
    out = []
    board = Board(ROWS, COLUMNS)
    for column in opening.moves:
        if not board.winning_moves():  # positions with a win at once are not balanced play
            out.append((board.copy(), *label(board)))
        board.push(column)
    while board.ply <= last and not board.is_game_over():
        values, scores = label(board)
        out.append((board.copy(), values, scores))
        board.push(_choose(values, rng, epsilon))
    return out


def generate_shard(
    path: Path, size: int, seed: int, plies: tuple[int, int], *, log: Callable[[str], object] = print
) -> None:
    """Write ``size`` labelled positions with ``plies[0] <= ply <= plies[1]``, unique up to mirror
    images, to ``path`` (an ``.npz``; see the module docstring), from games seeded by ``seed``."""
    rng = random.Random(seed)
    label = _labeller()
    exclude = suite_keys()
    seen: set[int] = set()
    rows: list[tuple[int, int, int, list[int]]] = []
    scores_of: list[list[int]] = []
    start = time.perf_counter()
    games = 0
    while len(rows) < size:
        games += 1
        for board, values, scores in _game(rng, label, exclude, plies[1]):
            key = canonical(board.position, board.mask, board.geo)[0]
            if board.ply < plies[0] or key in seen:
                continue
            seen.add(key)
            rows.append((board.position, board.mask, board.ply, values))
            scores_of.append(scores)
    save_shard(path, rows[:size], scores=scores_of[:size])
    log(f"{path.name}: {size} positions from {games} games in {time.perf_counter() - start:.1f} s")


def ensure_exact_shards(
    directory: Path,
    part: str,
    count: int,
    seed: int,
    *,
    size: int | None = None,
    workers: int = 1,
    progress: bool = True,
) -> list[Path]:
    """Paths of ``directory/PART/shard-0000.npz`` .. ``count - 1`` for a part of :data:`PARTS`, the
    missing ones generated with ``size`` positions (default :data:`SHARD_SIZES`; shard ``k`` seeded
    ``seed * 100_003 + 2 * k``, plus 1 for the deep part) by
    :func:`training.shards.build_shards`. Raises ``KeyError`` for an unknown part."""
    plies = PARTS[part]
    size = SHARD_SIZES[part] if size is None else size
    write = functools.partial(_write, size=size, seed=seed * 100_003 + (part == "deep"), plies=plies)
    return build_shards(directory / part, count, write, workers=workers, unit_size=size, progress=progress)


def _write(path: Path, k: int, *, size: int, seed: int, plies: tuple[int, int]) -> None:
    generate_shard(path, size, seed + 2 * k, plies, log=_quiet)


def _quiet(message: str) -> None:
    """Per-shard lines are left out: the progress bar counts positions."""


def main(argv: list[str] | None = None) -> int:
    """``python -m training.exact`` (module docstring); returns 0, or 2 on bad options."""
    parser = argparse.ArgumentParser(prog="python -m training.exact", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory of the data set")
    for part, (first, last) in PARTS.items():
        parser.add_argument(
            f"--{part}-shards",
            type=int,
            default=SHARDS[part],
            help=f"shards of {SHARD_SIZES[part]} positions of plies {first}-{last} (default {SHARDS[part]})",
        )
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    if args.workers < 1 or min(args.book_shards, args.deep_shards) < 0:
        parser.error("--workers must be >= 1, the shard counts >= 0")
    for part, count in (("book", args.book_shards), ("deep", args.deep_shards)):
        ensure_exact_shards(args.out, part, count, args.seed, workers=args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
