"""``lms``: a linear evaluation of board features learnt by LMS (Widrow-Hoff), playing by 1-ply search.

The evaluation of a position for its side to move is ``V(b) = tanh(w . x(b))``, in (-1, 1), where
``x(b)`` (:func:`inputs`, shape ``(11,)``) is :func:`agents.features.features` times :data:`SCALE`
followed by a bias input of 1. The agent plays the legal move whose afterstate is worth the most to
the mover (:mod:`agents.afterstates`: a winning move is worth 1, a move filling the board 0, any
other ``-V`` of the position after it). This is the checkers learner of Mitchell, *Machine
Learning* (1997), ch. 1: a linear function of board features, weights fitted by the LMS rule to
targets taken from the successor position's value (``training.learners.lms``).

Features mean the same on every board, so the same weights play every configuration: there is no
fallback. Weights: ``agents/data/lms.npz`` (:mod:`agents.weights`, array ``w`` of shape ``(11,)``),
read through :func:`agents.resources.read` at the first move, or the file ``weights=PATH``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents import resources
from agents.afterstates import OnePly, PositionValues
from agents.engine.board import Geometry
from agents.features import FEATURES, features
from agents.kit.adapter import Agent, kaggle_agent
from agents.weights import load, require

__all__ = ["SCALE", "agent", "evaluator", "inputs", "make_agent", "values"]

SCALE = np.array([0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.5, 0.5, 1.0, 1.0])
"""Factors applied to :data:`agents.features.FEATURES` so that typical 6x7 inputs are of order 1
(window and centre counts reach about 14, threats about 6, playable threats 4)."""

INPUTS = len(FEATURES) + 1
"""Length of :func:`inputs`: the scaled features and a bias."""


def inputs(position: int, mask: int, geo: Geometry) -> np.ndarray:
    """``x(b)``: float64 ``(INPUTS,)``, the scaled features of the position then 1.0 (bias)."""
    return np.append(features(position, mask, geo) * SCALE, 1.0)


def values(w: np.ndarray, positions: Sequence[int], masks: Sequence[int], geo: Geometry) -> np.ndarray:
    """``tanh(w . x(b))`` of each position (bitboards) for its side to move: float64 ``(len(positions),)``."""
    x = np.array([inputs(p, m, geo) for p, m in zip(positions, masks, strict=True)])
    out: np.ndarray = np.tanh(x @ w)
    return out


def evaluator(w: np.ndarray) -> PositionValues:
    """The :data:`agents.afterstates.PositionValues` of the weights ``w`` (shape ``(INPUTS,)``)."""

    def evaluate(positions: Sequence[int], masks: Sequence[int], geo: Geometry) -> np.ndarray:
        return values(w, positions, masks, geo)

    return evaluate


def make_agent(weights: str | None = None) -> Agent:
    """The ``lms`` agent with the weights file ``weights`` (None: the shipped ``agents/data/lms.npz``).

    A missing ``weights`` path raises ``FileNotFoundError`` here; the file is read at the first move
    (``ValueError`` if it is not a weights file with an array ``w`` of shape ``(11,)``).
    """
    require(weights)
    loaded: list[PositionValues] = []

    def evaluate_for(geo: Geometry) -> PositionValues:
        if not loaded:
            w = load(weights, shipped=lambda: resources.read("lms.npz")).get("w")
            if w is None or w.shape != (INPUTS,):
                name = weights or "(shipped)"
                raise ValueError(f"weights file {name} lacks an array w of shape ({INPUTS},)")
            loaded.append(evaluator(w.astype(np.float64)))
        return loaded[0]

    return kaggle_agent(OnePly(evaluate_for))


agent = make_agent()
