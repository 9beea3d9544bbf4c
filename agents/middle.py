"""``middle``: always the centre column, ``columns // 2`` -- the course's naive agent.

Kept on purpose: once the centre column is full it plays an illegal move and forfeits, which
exercises the tournament's invalid-move handling.
"""

from __future__ import annotations

from typing import Any

from agents.kit.adapter import Agent, field


def make_agent() -> Agent:
    """An agent that always returns ``config.columns // 2``, legal or not."""

    def agent(obs: Any, config: Any) -> int:
        return int(field(config, "columns")) // 2

    return agent


agent = make_agent()
