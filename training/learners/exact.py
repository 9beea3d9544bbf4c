"""Exact targets and balanced openings for the learners ``value_net`` and ``q_net``.

:class:`Oracle` values a position as perfect play would end it, discounted by its length: with the
side to move's perfect-play result ``z`` (+1 win, 0 draw, -1 loss) and ``n`` the plies until the game
ends when the winner wins as fast as it can and the loser holds out as long as it can (the final
move counted), the value is ``z * gamma ** (n - 1)``. This is the fixed point of the negamax Bellman
equation the learners use, ``V(s) = max_a Q(s, a)`` with ``Q(s, a) = r`` for a move ending the game
and ``-gamma * V(s')`` otherwise: a win on the next move is worth 1, a win three plies later
``gamma ** 2``, a draw 0. ``n`` comes from the solver's exact score in Pons' convention
(http://blog.gamesolver.org/solving-connect-four/02-test-protocol/): a side that wins with its
``k``-th stone scores ``(size + 2) // 2 - k``.

Scores come from :class:`agents.engine.solver.Solver` (the 12-ply opening databases where installed,
the numba kernel past them), each search bounded by ``max_nodes`` (:data:`NODES`), or by
``early_nodes`` (:data:`EARLY_NODES`) for a position before the databases' ply, which the pure-Python
search must take down to them: a position it cannot solve within the bound has no exact value (NaN),
and the learner falls back to its own target there. Positions of fewer than :data:`FIRST_PLY`
plies are not searched at all (on 6x7 half of those of plies 3-5 take more than a second). Where
the databases hold only win/draw/loss before their ply, ``n`` is unknown and the value is ``z``.

:func:`opening` draws where a training game starts: on the standard 6x7 board, with probability
:data:`BALANCED_SHARE`, a balanced opening of 6-8 plies (:func:`training.network.data.balanced_opening`:
exact score within 2 of a draw) that is not one of the tournament's built-in suite
(``tournament/data/openings-6x7.txt``) nor a mirror image of one, since tournaments test on those;
else the empty board, as Kaggle plays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

import numpy as np

from agents.engine.board import Board, Geometry, geometry
from agents.engine.book import mirror
from agents.engine.solver import SearchAborted, Solver
from training.network.data import balanced_opening

__all__ = ["BALANCED_SHARE", "EARLY_NODES", "FIRST_PLY", "NODES", "Oracle", "opening"]

NODES = 200_000
"""Nodes a search may take before the position counts as unsolved (about 25 ms for the numba
kernel; about 5 % of the positions of random games from balanced openings need more)."""

FIRST_PLY = 6
"""Positions of fewer plies have no exact value (the shortest balanced openings have 6)."""

EARLY_NODES = 2_000
"""The bound before the databases' ply (pure Python, about 20 ms): every position of plies 6-11
seen in a sample of random games took fewer, half of those of plies 3-5 more."""

BALANCED_SHARE = 0.75
"""Share of the 6x7 training games started from a balanced opening (the rest: the empty board)."""

STANDARD = geometry(6, 7, 4)
"""The board of the balanced openings."""


class Oracle:
    """Exact discounted values (module docstring) of positions on the board ``geo``, discount
    ``gamma`` a ply (0 < gamma <= 1), each search at most ``max_nodes`` nodes (``early_nodes`` at
    and before the databases' ply)."""

    def __init__(
        self, geo: Geometry, gamma: float, max_nodes: int = NODES, early_nodes: int = EARLY_NODES
    ) -> None:
        self.geo = geo
        self.gamma = gamma
        self.max_nodes = max_nodes
        self.early_nodes = early_nodes
        self.solver = Solver(geo.rows, geo.columns, geo.inarow)
        self.database_ply = self.solver.database.ply if self.solver.database else -1

    def values(self, positions: Sequence[int], masks: Sequence[int], plies: Sequence[int]) -> np.ndarray:
        """Values for the side to move, float32 of shape ``(len(positions),)``, NaN where the search
        ran out of nodes; positions as bitboards (:mod:`agents.engine.board`), none finished.

        The transposition tables are emptied first and the positions solved last first (a game's
        later positions fill the tables for its earlier ones), so that the answer depends on the
        arguments alone and a resumed training run labels as the uninterrupted one did."""
        self.solver.reset()
        out = np.full(len(positions), np.nan, np.float32)
        for i in reversed(range(len(positions))):
            value = self._value(positions[i], masks[i], plies[i])
            if value is not None:
                out[i] = value
        return out

    def _value(self, position: int, mask: int, ply: int) -> float | None:
        solver, geo = self.solver, self.geo
        if ply < FIRST_PLY:
            return None
        exact = solver.exact_from(ply)
        nodes = self.early_nodes if ply <= self.database_ply else self.max_nodes
        try:
            score = solver.solve_bits(position, mask, ply, weak=not exact, max_nodes=nodes)
        except SearchAborted:
            return None
        if score == 0 or not exact:
            return float(score)
        stones = (geo.size + 2) // 2 - abs(score)  # the winner's stones when it wins
        plies = 2 * (stones - ply // 2) - 1 if score > 0 else 2 * (stones - (ply + 1) // 2)
        return float(np.sign(score)) * self.gamma ** (plies - 1)


@cache
def _suite_keys() -> frozenset[int]:
    """Keys (``position + mask``) of the built-in suite's openings and their mirror images."""
    from tournament.openings import resolve

    keys: set[int] = set()
    for moves in resolve("auto", STANDARD, pairs=1, seed=0)[1]:
        board = Board.from_moves(moves)
        key = board.position + board.mask
        keys.update((key, mirror(key, STANDARD)))
    return frozenset(keys)


def opening(geo: Geometry, rng: np.random.Generator, oracle: Oracle) -> tuple[int, ...]:
    """The 0-based columns a training game starts from (module docstring), drawn from ``rng``;
    ``oracle`` scores the candidate openings. Always ``()`` on boards other than 6x7."""
    if geo != STANDARD or rng.random() >= BALANCED_SHARE:
        return ()
    return balanced_opening(random.Random(int(rng.integers(2**63))), oracle.solver, _suite_keys()).moves
