"""A move and how it was chosen: :class:`MoveRecord`, what a player's ``play`` returns.

Like python-chess's ``PlayResult`` (``chess.engine``: ``play(board, limit)`` returns the move with
what the engine says of it), a player's ``play(board, clock)`` returns the column with its stage,
timing and search figures; the game loop plays its ``column``, and benchmarks and tests read the rest
(which stage decides how often, how deep the search went, how long a move took). At the Kaggle edge,
whose agents return a bare column, :func:`agents.kit.adapter.kaggle_agent` keeps the record of the
last move as the agent's ``last_move``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from agents.engine.board import Board

__all__ = ["MoveRecord", "TreeSearchResult"]


class TreeSearchResult(Protocol):
    """What a tree search reports of its move (as :class:`agents.engine.puct.PuctResult` does): the
    ``column`` chosen, the root's ``visits``, those ``reused`` from the last tree, ``simulations`` run."""

    @property
    def column(self) -> int: ...

    @property
    def visits(self) -> int: ...

    @property
    def reused(self) -> int: ...

    @property
    def simulations(self) -> int: ...


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One decision: the ``stage`` that chose ``column`` (0-based) at ``ply`` (stones on the board),
    in ``seconds`` (wall clock, from the start of the player's ``play``).

    Stages of the kit: ``only``, ``draw``, ``win``, ``block`` (:mod:`agents.kit.tactics`), ``book``,
    ``exact`` (:mod:`agents.kit.solved`); a player's own search names its stage (``search``,
    ``puct``...). What a search adds, None otherwise: ``depth`` (plies of the deepest completed
    alpha-beta iteration) and ``nodes`` searched; for a tree search, the root's ``visits``, those
    ``reused`` from the previous move's tree and the ``simulations`` run; ``value``, the move's worth
    to the mover by the player's own evaluation, where it has one.
    """

    stage: str
    ply: int
    column: int
    seconds: float
    depth: int | None = None
    nodes: int | None = None
    visits: int | None = None
    reused: int | None = None
    simulations: int | None = None
    value: float | None = None

    @classmethod
    def since(
        cls,
        start: float,
        board: Board,
        stage: str,
        column: int,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        visits: int | None = None,
        reused: int | None = None,
        simulations: int | None = None,
        value: float | None = None,
    ) -> MoveRecord:
        """The record of ``column`` chosen by ``stage`` on ``board``, the move having started at
        ``start`` (``time.perf_counter()`` seconds) and ending now."""
        seconds = time.perf_counter() - start
        return cls(stage, board.ply, column, seconds, depth, nodes, visits, reused, simulations, value)

    @classmethod
    def of_tree_search(cls, start: float, board: Board, stage: str, result: TreeSearchResult) -> MoveRecord:
        """:meth:`since` for the move of a tree search (``result``, e.g. of
        :class:`agents.engine.puct.Puct`), with its root's visits, those reused and the simulations run."""
        return cls.since(
            start,
            board,
            stage,
            result.column,
            visits=result.visits,
            reused=result.reused,
            simulations=result.simulations,
        )
