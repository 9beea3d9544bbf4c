"""Fidelity: agents written in the patterns of public ConnectX submissions get the same verdict and
result from our runner (each agent in a sandboxed process) as from kaggle's own ``env.run``.

Every file of ``tests/compat/`` (and the ill-typed returns of ``tests/misbehaving/``) plays mark 1
against ``leftmost`` with ``actTimeout`` 1 s, both through :func:`tournament.runner.run_games` and
through ``kaggle_environments.make("connectx").run`` in this process, configured as Kaggle's
servers are (``timeout``, the older alias, equal to ``actTimeout``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kaggle_environments import make

from agents.registry import load_agent, parse_spec
from tests.records import game_task
from tournament.record import GameRecord
from tournament.runner import run_games

HERE = Path(__file__).parent
AGENTS = sorted(HERE.glob("compat/*.py")) + [
    HERE / "misbehaving" / name
    for name in ("returns_numpy_int.py", "returns_none.py", "returns_float.py", "returns_str.py")
]
ACT_TIMEOUT = 1.0


@pytest.fixture(scope="module")
def ours() -> dict[str, GameRecord]:
    tasks = [
        game_task(game_id=i, pair_id=i, first=str(path), second="leftmost", act_timeout=ACT_TIMEOUT, seed=3)
        for i, path in enumerate(AGENTS)
    ]
    records = {record.game_id: record for record in run_games(tasks, workers=2)}
    return {path.name: records[i] for i, path in enumerate(AGENTS)}


def _kaggle(path: Path) -> tuple[tuple[str, str], tuple[float | None, float | None]]:
    env = make("connectx", configuration={"actTimeout": ACT_TIMEOUT, "timeout": int(ACT_TIMEOUT)})
    final = env.run([str(path), load_agent(parse_spec("leftmost"))])[-1]
    return (final[0].status, final[1].status), (final[0].reward, final[1].reward)


@pytest.mark.parametrize("path", AGENTS, ids=lambda path: path.name)
def test_same_verdict_and_result_as_kaggle(ours, path):
    record = ours[path.name]
    assert (record.statuses, record.rewards) == _kaggle(path), record.detail


@pytest.mark.parametrize("name", [path.name for path in sorted(HERE.glob("compat/*.py"))])
def test_public_patterns_play_without_forfeit(ours, name):
    record = ours[name]
    assert record.offender is None, record.detail
    assert len(record.moves) >= 7  # leftmost needs four moves to win


def test_the_timeout_alias_follows_act_timeout(ours):
    """An agent budgeting ``config.timeout - 0.4`` s stays within a 1 s ``actTimeout``."""
    record = ours["config_timeout.py"]
    own = record.move_times[0::2]  # mark 1 moves first from the empty board
    assert own and max(own) < ACT_TIMEOUT, own
