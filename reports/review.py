"""What a report shows of the move analysis (:class:`reports.stats.analysis.Analysis`, ``RUN/moves.csv``):
:func:`review` lays out what :func:`reports.stats.accuracy.figures` counted of it once (each agent's
accuracy with its worst moves, the move that decided each game) and, when an agent made no mistake,
each agent's Elo relative to it (perfect play), as plain data with the words a reader needs.

Columns count from 1 and plies from 1 (the opening included), as in ``moves.csv``; a move's
``anchor`` is the report's address of its replay at that ply (``game-12-ply-9``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reports.stats.accuracy import MoveFigures
from reports.stats.analysis import AgentAccuracy, JudgedMove, Verdict, outcome
from reports.stats.ratings import Rating

__all__ = ["AccuracyLine", "MoveLink", "Review", "change", "link", "review"]

_OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


@dataclass(frozen=True, slots=True)
class MoveLink:
    """One judged move as the report links it: where (``game``, ``ply``, ``anchor``), who, the column
    played and the best ones, the verdict, and what the move changed (:func:`change`)."""

    game: int
    ply: int
    agent: str
    column: int
    best_columns: tuple[int, ...]
    verdict: str
    change: str
    anchor: str


@dataclass(frozen=True, slots=True)
class AccuracyLine:
    """An agent's accuracy against perfect play and its worst moves (mistakes first, then by value
    given away; at most :data:`reports.stats.accuracy.WORST`)."""

    accuracy: AgentAccuracy
    worst: list[MoveLink]


@dataclass(frozen=True, slots=True)
class Review:
    """The move analysis of a run as a report shows it.

    Attributes:
        accuracy: every agent's line, best first (fewest mistakes per move, as
            :func:`reports.stats.accuracy.accuracy` orders them).
        deciding: the move that decided each game it can name, by game id
            (:func:`reports.stats.accuracy.deciding`).
        perfect: the agents that made no mistake in any judged move, best first.
        reference: the agent that stands for perfect play
            (:func:`reports.stats.accuracy.perfect_reference`), or None.
        versus: each agent's Elo relative to ``reference``, by name
            (:meth:`~reports.stats.results.Results.relative_to`; ``reference`` is 0); empty without one.
        games: how many of the run's games were judged.
    """

    accuracy: list[AccuracyLine]
    deciding: dict[int, MoveLink]
    perfect: list[str]
    reference: str | None
    versus: dict[str, Rating]
    games: int

    @property
    def reference_moves(self) -> int:
        """How many moves ``reference`` made, all judged without a mistake (0 without a reference)."""
        lines = (line.accuracy for line in self.accuracy)
        return next((accuracy.moves for accuracy in lines if accuracy.agent == self.reference), 0)


def change(move: JudgedMove) -> str:
    """What a move did to its side's outcome: ``draw → loss`` for a mistake, ``win → slower win`` or
    ``loss → faster loss`` for an inaccuracy, ``kept the win`` (draw, loss) for a best move."""
    before, after = _OUTCOMES[outcome(move.value_before)], _OUTCOMES[outcome(move.value_after)]
    if move.verdict is Verdict.MISTAKE:
        return f"{before} → {after}"
    if move.verdict is Verdict.INACCURACY:
        return "win → slower win" if before == "win" else "loss → faster loss"
    return f"kept the {before}"


def link(move: JudgedMove) -> MoveLink:
    """The :class:`MoveLink` of a judged move."""
    return MoveLink(
        move.game, move.ply, move.agent, move.column, move.best_columns, str(move.verdict), change(move),
        move.anchor,
    )  # fmt: skip


def review(figures: MoveFigures, versus: Mapping[str, Rating]) -> Review:
    """The :class:`Review` of a run's move analysis from what was counted of it once (``figures``,
    :func:`reports.stats.accuracy.figures`) and each agent's Elo relative to the entrant that stands
    for perfect play (``versus``, :meth:`~reports.stats.results.Results.relative_to`; empty without one)."""
    return Review(
        accuracy=[AccuracyLine(a, [link(m) for m in figures.worst[a.agent]]) for a in figures.accuracy],
        deciding={game: link(move) for game, move in figures.deciding.items()},
        perfect=[line.agent for line in figures.accuracy if line.moves and not line.mistakes],
        reference=figures.reference,
        versus=dict(versus),
        games=figures.games,
    )
