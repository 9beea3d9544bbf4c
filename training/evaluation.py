"""How strong a trained agent is: game pairs against fixed opponents, scored as a fraction.

Used by ``connectx train`` (:mod:`training.driver`) and by the network's training
(:mod:`training.network.train`). Games are played by :func:`agents.kit.player.play_game` under
:data:`training.selfplay.UNTIMED`: the agents evaluated during training play a fixed computation per
move (a forward pass, a one-ply lookahead) and never read the clock, so an untimed game gives the
same moves on a loaded machine as on an idle one, and a resumed run evaluates exactly as an
uninterrupted one. (An agent that manages its time would think forever under it: evaluate those with
``connectx run``, which plays through Kaggle's referee and limits.)
"""

from __future__ import annotations

from collections.abc import Sequence

from agents import one_step, random_agent
from agents.engine.board import Board, Geometry
from agents.kit.adapter import Agent, as_player
from agents.kit.player import play_game
from training.selfplay import UNTIMED

__all__ = ["OPPONENTS", "opponent", "paired_score"]

OPPONENTS = ("random", "one_step", "negamax")
"""The opponents :func:`opponent` makes."""


def opponent(name: str, seed: int) -> Agent:
    """A fresh Kaggle agent to evaluate against: ``"random"`` (:mod:`agents.random_agent`) or
    ``"one_step"`` (:mod:`agents.one_step`, random tie-breaks), both seeded with ``seed``, or
    ``"negamax"`` (kaggle-environments' ``negamax_agent``, which draws from the global ``random``).
    Raises ``ValueError`` for another name."""
    if name == "random":
        return random_agent.make_agent(seed=seed)
    if name == "one_step":
        return one_step.make_agent(seed=seed)
    if name == "negamax":
        # Imported after ``agents``, so the directory kaggle_environments appends to sys.path (its
        # lux_ai_s3 folder holds an agents.py) cannot shadow our package; through
        # tournament.environments, which spares the import what the referee does not need (1.1 s).
        from tournament.environments import BUILTIN_AGENTS

        kaggle_negamax: Agent = BUILTIN_AGENTS["negamax"]
        return kaggle_negamax
    raise ValueError(f"unknown opponent {name!r}: one of {', '.join(OPPONENTS)}")


def paired_score(agent: Agent, other: Agent, geo: Geometry, openings: Sequence[Sequence[int]]) -> float:
    """Score of ``agent`` against ``other``, (wins + draws / 2) / games, in ``2 * len(openings)``
    games on the board ``geo``: each opening (0-based columns; ``()`` the empty board) played once
    with ``agent`` as mark 1 and once as mark 2 (a game pair). Raises ``ValueError``
    for no openings or an illegal one, :class:`~agents.engine.board.IllegalMoveError` for an illegal move."""
    if not openings:
        raise ValueError("paired_score needs at least one opening")
    mine, theirs = as_player(agent), as_player(other)
    total = 0.0
    for opening in openings:
        board = Board(geo.rows, geo.columns, geo.inarow)
        for column in opening:
            board.push(column)
        total += play_game([mine, theirs], board, clock=UNTIMED).result  # agent plays mark 1
        total += 1 - play_game([theirs, mine], board, clock=UNTIMED).result  # agent plays mark 2
    return total / (2 * len(openings))
