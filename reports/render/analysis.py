"""The move analysis on a terminal: each agent's accuracy against perfect play, as a text table."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from reports.stats.analysis import AgentAccuracy

__all__ = ["accuracy_lines"]


def accuracy_lines(accuracy: Sequence[AgentAccuracy]) -> list[str]:
    """The lines of the accuracy table, one per agent, best first (as
    :func:`reports.stats.accuracy.accuracy` orders them).

    Columns: moves judged; ``best`` the share that kept the value; mistakes (the outcome changed);
    inaccuracies (a slower win or a faster loss); ``1st mistake`` the median ply of the agent's first
    mistake in a game ("-": none); ``lost by own mistake`` of its played-out lost games, how many it
    turned from a draw or a win into the loss itself.
    """
    rows = [
        {
            "agent": a.agent,
            "moves": a.moves,
            "best": f"{100 * a.best_share:.1f}%",
            "mistakes": a.mistakes,
            "inaccuracies": a.inaccuracies,
            "1st mistake": "-" if a.first_mistake_ply is None else f"ply {a.first_mistake_ply:g}",
            "lost by own mistake": f"{a.lost_by_own_mistake} of {a.lost}" if a.lost else "-",
        }
        for a in accuracy
    ]
    if not rows:
        return ["no agent moves to judge (every stored move was an opening move)"]
    table: str = pd.DataFrame(rows).to_string(index=False)
    return table.splitlines()
