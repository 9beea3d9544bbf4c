"""``network``: the trained policy/value network as a ConnectX agent (numpy only, no framework).

* ``network`` (``depth=0``): the network alone -- the legal column with the highest policy logit.
  No search and no hand-written rules.
* ``network:depth=N`` (N >= 1): alpha-beta negamax (Knuth & Moore 1975) N plies deep with the
  network's value ``P(win) - P(loss)`` (side to move, in [-1, 1]) at the horizon, as in the TD-trained
  evaluation of KnightCap used inside alpha-beta (Baxter, Tridgell & Weaver 1998). Exact scores
  replace it where the game ends inside the tree (a win scores ``2 - ply / 100``, so faster wins
  rank higher); moves are ordered by the policy (except one ply above the horizon, where all
  children are evaluated in one batched forward pass instead); a move that lets the opponent win at
  once, or a position with two such threats, is scored exactly.
* ``network:seconds=S``: the same search by iterative deepening within about ``S`` seconds a move.

Weights: ``agents/data/network.npz`` read through :func:`agents.resources.read` (float16, converted
to float32); see ``agents/data/network.md`` for how they were made. The network knows only 6x7 boards
with four in a row; on any other configuration the agent plays :mod:`agents.negamax` instead (a
network input of another shape would be meaningless, and every agent must play every configuration).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents import negamax, resources
from agents.adapter import Agent, board_from_obs
from agents.board import Board
from agents.lines import has_line, winning_cells
from agents.network.features import encode_batch
from agents.network.numpy_forward import Weights, forward, load_weights, value_of

__all__ = ["agent", "best_move", "make_agent", "make_agent_from_weights", "policy_logits"]

_WIN = 2.0
_CENTRE = (3, 2, 4, 1, 5, 0, 6)
_cache: dict[str, Weights] = {}


def _shipped_weights() -> Weights:
    if "network" not in _cache:
        _cache["network"] = load_weights(resources.read("network.npz"))
    return _cache["network"]


def policy_logits(weights: Mapping[str, np.ndarray], board: Board) -> np.ndarray:
    """Policy logits ``(7,)`` of ``board`` (6x7), illegal columns set to ``-inf``."""
    planes = encode_batch(np.array([board.position], np.uint64), np.array([board.mask], np.uint64))
    logits = forward(weights, planes)[0][0].astype(np.float64)
    for c in range(7):
        if not board.can_play(c):
            logits[c] = -np.inf
    return logits


class _Timeout(Exception):
    """The search passed its deadline."""


def _negamax(
    weights: Mapping[str, np.ndarray],
    board: Board,
    depth: int,
    alpha: float,
    beta: float,
    deadline: float = float("inf"),
) -> float:
    """Score of ``board`` for the side to move (not won yet, maybe full); fail-hard alpha-beta.

    Raises :class:`_Timeout` when ``time.perf_counter()`` passes ``deadline`` (checked above the horizon).
    """
    geo = board.geo
    if board.is_full():
        return 0.0
    legal = [c for c in _CENTRE if board.can_play(c)]
    for c in legal:
        if board.is_winning_move(c):
            return _WIN - (board.ply + 1) / 100
    if depth == 0:
        planes = encode_batch(np.array([board.position], np.uint64), np.array([board.mask], np.uint64))
        return float(value_of(forward(weights, planes)[1])[0])
    opp_cells = winning_cells(board.opponent, geo) & ~board.mask
    forced = [c for c in legal if board.move_cell(c) & opp_cells]
    if len(forced) > 1:
        return -(_WIN - (board.ply + 2) / 100)
    moves = forced or legal
    if time.perf_counter() > deadline:
        raise _Timeout
    if depth == 1:
        # Children: the opponent may win at once (exact), else the network's value (one batch).
        scores: dict[int, float] = {}
        batch: list[int] = []
        for c in moves:
            cell = board.move_cell(c)
            child_mask = board.mask | cell
            if (cell << 1) & opp_cells & geo.column_masks[c]:
                scores[c] = -(_WIN - (board.ply + 2) / 100)
            elif child_mask == geo.board:
                scores[c] = 0.0
            else:
                batch.append(c)
        if batch:
            cells = [board.move_cell(c) for c in batch]
            pos = np.array([board.opponent for _ in batch], np.uint64)
            msk = np.array([board.mask | cell for cell in cells], np.uint64)
            values = value_of(forward(weights, encode_batch(pos, msk))[1])
            for c, v in zip(batch, values, strict=True):
                scores[c] = -float(v)
        return max(alpha, min(beta, max(scores.values())))
    if len(moves) > 1:  # order by the policy: good moves first make the cut-offs come early
        logits = policy_logits(weights, board)
        moves = sorted(moves, key=lambda c: -logits[c])
    best = -np.inf
    for c in moves:
        board.play(c)
        try:
            score = -_negamax(weights, board, depth - 1, -beta, -alpha, deadline)
        finally:
            board.pop()
        best = max(best, score)
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    return best


def _root(
    weights: Mapping[str, np.ndarray], board: Board, depth: int, order: list[int], deadline: float
) -> tuple[int, float]:
    best_column, alpha = order[0], -np.inf
    for c in order:
        if board.is_winning_move(c):
            return c, _WIN
        board.play(c)
        try:
            score = -_negamax(weights, board, depth - 1, -np.inf, -alpha, deadline)
        finally:
            board.pop()
        if score > alpha:
            best_column, alpha = c, score
    return best_column, alpha


def best_move(weights: Mapping[str, np.ndarray], board: Board, depth: int = 0, seconds: float = 0.0) -> int:
    """The column the agent plays on ``board`` (6x7, game not over, a legal move exists).

    ``seconds`` 0: ``depth`` 0 is the argmax of the policy over legal columns; ``depth`` >= 1 an
    alpha-beta negamax of that many plies (see the module docstring); ties go to the higher policy
    logit. ``seconds`` > 0: iterative deepening from depth 1 until ``seconds`` (wall clock) have
    passed, capped at ``depth`` plies when ``depth`` > 0; the deepest completed iteration is played
    (depth 1 always completes). Searches stop early once a win or loss is proved.
    """
    logits = policy_logits(weights, board)
    if depth <= 0 and seconds <= 0:
        return int(np.argmax(logits))
    order = sorted((c for c in range(7) if board.can_play(c)), key=lambda c: -logits[c])
    if seconds <= 0:
        return _root(weights, board, depth, order, float("inf"))[0]
    start = time.perf_counter()
    deadline = start + seconds
    column, score = _root(weights, board, 1, order, float("inf"))
    limit = depth if depth > 0 else 42 - board.ply
    for d in range(2, limit + 1):
        if abs(score) > 1.5 or time.perf_counter() > deadline:
            break
        try:
            column, score = _root(weights, board, d, [column] + [c for c in order if c != column], deadline)
        except _Timeout:
            break
    return column


def _check(depth: int, seconds: float) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds >= 0:
        raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")


def make_agent_from_weights(weights: Mapping[str, np.ndarray], depth: int = 0, seconds: float = 0.0) -> Agent:
    """A Kaggle agent playing ``best_move(weights, board, depth, seconds)`` on 6x7 boards with four in a
    row, and :mod:`agents.negamax` on any other configuration; raises ``ValueError`` for a negative
    depth or time."""
    _check(depth, seconds)

    def network_agent(obs: Any, config: Any) -> int:
        board = board_from_obs(obs, config)
        geo = board.geo
        if (geo.rows, geo.columns, geo.inarow) != (6, 7, 4):
            return negamax.agent(obs, config)
        if board.ply and has_line(board.opponent, geo):
            raise ValueError("the game is already over")
        return int(best_move(weights, board, depth, seconds))

    return network_agent


def make_agent(depth: int = 0, seconds: float = 0.0) -> Agent:
    """The ``network`` agent with the shipped weights (``agents/data/network.npz``).

    ``network`` (depth 0) is the network alone; ``network:depth=N`` adds an N-ply alpha-beta search
    with the network as evaluation; ``network:seconds=S`` searches by iterative deepening for about
    ``S`` seconds a move (``depth`` then caps the depth). Raises ``ValueError`` for a negative depth or
    time. The weights are read at the first move (``FileNotFoundError`` if the file is missing).
    """
    _check(depth, seconds)

    def network_agent(obs: Any, config: Any) -> int:
        return make_agent_from_weights(_shipped_weights(), depth, seconds)(obs, config)

    return network_agent


agent = make_agent()
