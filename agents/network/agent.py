"""``network``: the trained policy/value network, searching with PUCT by default (numpy only).

* ``network`` (``search=puct``): each move, the moves of :func:`agents.kit.tactics.tactical_move`
  (the only legal move, a win at once, the only move that does not lose at once) are played; then,
  as negamax does (:class:`agents.kit.solved.SolvedPositions`), the solver
  (:meth:`agents.engine.solver.Solver.choose`) tries to prove a move within the time
  :func:`agents.kit.budget.move_budget` gives it, searching down to the solved game's opening
  databases (so from the empty board on); without them our opening book's move
  (:func:`agents.engine.book.book_move`) comes first and the solver runs with at most
  :data:`agents.kit.solved.EXACT_EMPTY_LIMIT` empty cells (``book=false`` leaves out the databases
  and the book, so that the network plays its own opening); otherwise, or for the rest of the time,
  :class:`agents.engine.puct.Puct` searches with the policy as prior and the value head's
  ``P(win) - P(loss)`` as leaf value (AlphaZero's search; Silver et al., Science 2018), over the
  moves the solver did not prove lost, and plays the most visited move. ``visits=N`` caps the search at N root
  visits; ``exact=false`` leaves the solver out; ``c`` is PUCT's exploration constant.
* ``network:search=none``: the network alone -- the legal column with the highest policy logit. No
  search and no hand-written rules.
* ``network:search=alphabeta,depth=N``: :class:`agents.engine.search.Search` N plies deep with the value
  head as the evaluation, as in the TD-trained evaluation of KnightCap used inside alpha-beta (Baxter,
  Tridgell & Weaver 1998): the children of a node one ply above the horizon are valued in one batched
  forward pass, moves are ordered by the policy, and the search's tactics score exactly the positions
  where a move wins or lets the opponent win at once. Without ``depth``: iterative deepening for the
  move's time.

Time: ``actTimeout`` minus :data:`PUCT_MARGIN` a move, or ``seconds`` when given, plus the share of
the overage bank :func:`agents.kit.budget.move_budget` lets exact solving draw, up to :data:`LONGEST`
seconds a move. After a failed solve PUCT gets the whole move (``bank_fallback``): the bank, not half
of PUCT's time, pays for exact solving. The first move compiles the solver's kernel before it
searches, drawn from the bank (:meth:`agents.kit.solved.SolvedPositions.prepare`; in a built file
where numba imports, seconds); PUCT stays numpy.

Weights: ``agents/data/network.npz`` read through :func:`agents.resources.read` (float16, converted
to float32); see ``agents/data/network.md`` for how they were made. The network knows only the board
of :mod:`agents.network.features` (6x7, four in a row); on any other configuration the agent plays
:mod:`agents.negamax` instead (a network input of another shape would be meaningless, and every agent
must play every configuration).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents import resources
from agents.engine.board import Board, geometry
from agents.engine.puct import Puct, cached
from agents.engine.search import Search
from agents.kit.adapter import agent_factory
from agents.kit.budget import charged, collector_paused, move_budget
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.kit.solved import SolvedPositions
from agents.kit.tactics import tactical_move
from agents.negamax import Negamax
from agents.network.features import COLUMNS, INAROW, ROWS, encode_batch
from agents.network.numpy_forward import Weights, forward, load_weights, value_of

__all__ = [
    "Network",
    "agent",
    "best_move",
    "make_agent",
    "network_search",
    "policy_logits",
    "puct_search",
]

GEOMETRY = geometry(ROWS, COLUMNS, INAROW)
"""The board the network plays (:mod:`agents.network.features`)."""

_cache: dict[str, Weights] = {}


def _shipped_weights() -> Weights:
    if "network" not in _cache:
        _cache["network"] = load_weights(resources.read("network.npz"))
    return _cache["network"]


def _forward(
    weights: Mapping[str, np.ndarray], positions: list[int], masks: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Policy and value logits of the positions given as bitboards (:func:`forward`)."""
    return forward(weights, encode_batch(np.array(positions, np.uint64), np.array(masks, np.uint64)))


def policy_logits(weights: Mapping[str, np.ndarray], board: Board) -> np.ndarray:
    """Policy logits ``(COLUMNS,)`` (float64) of ``board`` (the network's board), illegal columns ``-inf``."""
    logits: np.ndarray = _forward(weights, [board.position], [board.mask])[0][0].astype(np.float64)
    for c in range(COLUMNS):
        if not board.can_play(c):
            logits[c] = -np.inf
    return logits


def network_search(weights: Mapping[str, np.ndarray]) -> Search:
    """The :class:`agents.engine.search.Search` of the network's board with ``weights``: the value head as the
    evaluation (one position or a batch), the policy logits as the move order, the clock read at every
    node (a node costs a forward pass)."""

    def value(position: int, mask: int, ply: int) -> float:
        return float(value_of(_forward(weights, [position], [mask])[1])[0])

    def batch(positions: list[int], masks: list[int], ply: int) -> list[float]:
        values: list[float] = value_of(_forward(weights, positions, masks)[1]).tolist()
        return values

    def order(position: int, mask: int, ply: int, columns: list[int]) -> list[int]:
        logits = _forward(weights, [position], [mask])[0][0]
        return sorted(columns, key=lambda c: -logits[c])

    return Search(GEOMETRY, value, batch=batch, order=order, check_every=1)


def best_move(weights: Mapping[str, np.ndarray], board: Board, depth: int = 0, seconds: float = 0.0) -> int:
    """The column the agent plays on ``board`` (the network's board, game on, a legal move exists).

    ``seconds`` 0: ``depth`` 0 is the argmax of the policy over legal columns; ``depth`` >= 1 a search
    of that many plies (:func:`network_search`); among equal values the higher policy logit wins.
    ``seconds`` > 0: iterative deepening from depth 1 until ``seconds`` (wall clock) have passed,
    capped at ``depth`` plies when ``depth`` > 0; the deepest completed iteration is played (depth 1
    always completes). Searches stop early once a win or loss is proved.
    """
    if depth <= 0 and seconds <= 0:
        return int(np.argmax(policy_logits(weights, board)))
    search = network_search(weights)
    if seconds <= 0:
        return search.best(board, depth=depth).column
    deadline = time.perf_counter() + seconds
    return search.best(board, depth=depth if depth > 0 else None, deadline=deadline).column


SEARCHES = ("puct", "alphabeta", "none")
"""The ``search`` a :class:`Network` player may use (see the module docstring)."""

PUCT_MARGIN = 0.25
"""Seconds of ``actTimeout`` the PUCT search leaves unused: process and referee overhead."""

LONGEST = 20.0
"""Seconds a move may take, bank included, while the solver tries to prove it (``longest`` of
:func:`agents.kit.budget.move_budget`, whose share of the bank is the tighter bound with a 60 s bank).
Higher than negamax's 4 s: off the book at plies 6-12 PUCT with this network misses wins that only
the solver finds there, in 5-20 s; with negamax's cap it lost 3 of 8 games to ``mcts``."""


def puct_search(weights: Mapping[str, np.ndarray], c: float = 2.0) -> Puct:
    """The :class:`agents.engine.puct.Puct` search of the network's board with ``weights``: the policy
    logits as priors, ``P(win) - P(loss)`` of the value head as the value, one position a forward
    pass, each position's answer kept (:func:`agents.engine.puct.cached`)."""

    def evaluate(position: int, mask: int, ply: int) -> tuple[list[float], float]:
        policy, value = _forward(weights, [position], [mask])
        return policy[0].tolist(), float(value_of(value)[0])

    return Puct(GEOMETRY, cached(evaluate), c)


def _check(search: str, depth: int, seconds: float, visits: int, c: float) -> None:
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    if depth and search != "alphabeta":
        raise ValueError("depth is a parameter of search=alphabeta")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds >= 0:
        raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
    if isinstance(visits, bool) or not isinstance(visits, int) or visits < 0:
        raise ValueError(f"visits must be an integer >= 0, got {visits!r}")
    if visits and search != "puct":
        raise ValueError("visits is a parameter of search=puct")
    if not c >= 0:
        raise ValueError(f"c must be >= 0, got {c!r}")


class Network:
    """The network :class:`~agents.kit.player.Player` on the network's board, a
    :class:`~agents.negamax.Negamax` player on any other (see the module docstring for ``search``,
    ``depth``, ``seconds``, ``visits``, ``c``, ``exact`` and ``book``). ``weights``: the path of a
    weights file (as ``python -m training.network.train`` writes them: ``OUT/network.npz``), read at
    once (``FileNotFoundError``, or ``ValueError`` when it is not one); None: the shipped weights,
    read at the first move (``FileNotFoundError`` if the file is missing). A move's record
    (:class:`~agents.kit.record.MoveRecord`; the negamax player's on another board): stage
    only/win/block/book/exact/puct/alphabeta/policy, with the
    ``visits``, ``reused`` and ``simulations`` of a PUCT search. Raises ``ValueError`` for an unknown
    search, a negative number, ``depth`` without alpha-beta or ``visits`` without PUCT, and when
    asked to play a finished game. The PUCT tree and the solver's table live as long as the player."""

    def __init__(
        self,
        *,
        search: str = "puct",
        depth: int = 0,
        seconds: float = 0.0,
        visits: int = 0,
        c: float = 2.0,
        exact: bool = True,
        book: bool = True,
        weights: str | None = None,
    ) -> None:
        _check(search, depth, seconds, visits, c)
        self.weights: Mapping[str, np.ndarray] | None = (
            None if weights is None else load_weights(Path(weights).read_bytes())
        )
        self.search = search
        self.depth = depth
        self.seconds = seconds
        self.visits = visits
        self.c = float(c)
        self._solved = SolvedPositions(book=book, exact=exact)
        self._fallback: Negamax | None = None
        self._puct: Puct | None = None

    @classmethod
    def of_weights(cls, weights: Mapping[str, np.ndarray], **params: Any) -> Network:
        """The player of the network ``weights`` (arrays, as :func:`agents.network.numpy_forward.load_weights`
        gives them, e.g. while training) and the other parameters of the class."""
        player = cls(**params)
        player.weights = weights
        return player

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        """The move to play and how it was chosen (garbage collector off meanwhile: the PUCT tree
        makes many small objects); the board is left as it was. Raises ``ValueError`` when the game is
        over."""
        start = time.perf_counter()
        if board.geo != GEOMETRY:
            if self._fallback is None:
                self._fallback = Negamax()
            return self._fallback.play(board, clock)
        if board.winner() is not None:
            raise ValueError("the game is already over")
        weights = _shipped_weights() if self.weights is None else self.weights
        with collector_paused():
            if self.search == "puct" and (spent := self._solved.prepare()) > 0.0:
                clock, start = charged(clock, spent), time.perf_counter()
            return self._choose(weights, board, clock, start)

    def _choose(
        self, weights: Mapping[str, np.ndarray], board: Board, clock: Clock, start: float
    ) -> MoveRecord:
        if self.search == "none":
            return MoveRecord.since(start, board, "policy", best_move(weights, board))
        if self.search == "alphabeta":
            seconds = self.seconds or (0.0 if self.depth else clock.act_timeout - PUCT_MARGIN)
            return MoveRecord.since(start, board, "alphabeta", best_move(weights, board, self.depth, seconds))
        move = tactical_move(board)
        if move is not None:
            return MoveRecord.since(start, board, *move)
        budget = move_budget(
            clock, board.ply, GEOMETRY.size, margin=PUCT_MARGIN, longest=LONGEST, bank_fallback=True
        )
        verdict = self._solved.choose(board, start + budget.solve, refine_deadline=start + budget.total)
        if verdict.move is not None:
            return MoveRecord.since(start, board, *verdict.move, nodes=verdict.nodes or None)
        allowed = verdict.allowed or None  # PUCT searches every move when the solver proved all lost
        if self._puct is None:
            self._puct = puct_search(weights, self.c)
        if self.seconds:
            deadline = start + self.seconds
        else:
            deadline = budget.search_deadline(start, after_solving=allowed is not None)
        result = self._puct.run(board, deadline=deadline, visits=self.visits or None, allowed=allowed)
        return MoveRecord.of_tree_search(start, board, "puct", result)


make_agent = agent_factory(Network)

agent = make_agent()
