"""``random``: a uniformly random legal column."""

from __future__ import annotations

import random
from typing import Any

from agents.kit.adapter import Agent, board_from_obs


def make_agent(*, seed: int | None = None) -> Agent:
    """An agent choosing uniformly among the non-full columns.

    ``seed`` seeds the agent's own ``random.Random`` (None: seeded from the OS). Raises
    :class:`~agents.engine.board.InvalidBoardError` on an impossible observation.
    """
    rng = random.Random(seed)

    def agent(obs: Any, config: Any) -> int:
        return rng.choice(board_from_obs(obs, config).legal_moves())

    return agent


agent = make_agent()
