"""``leftmost``: the leftmost non-full column (the course's baseline)."""

from __future__ import annotations

from typing import Any

from agents.kit.adapter import Agent, board_from_obs


def make_agent() -> Agent:
    """An agent playing the lowest-numbered non-full column."""

    def agent(obs: Any, config: Any) -> int:
        return board_from_obs(obs, config).legal_moves()[0]

    return agent


agent = make_agent()
