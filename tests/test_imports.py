"""The installed package imports next to kaggle-environments, from any directory.

kaggle-environments appends ``kaggle_environments/envs/lux_ai_s3`` (which holds an ``agents.py``) to
``sys.path`` when it is imported. The project's install must put our ``agents`` package ahead of it
(see ``[tool.setuptools]`` in ``pyproject.toml``). These tests run the interpreter of the test run in
a fresh process, from a temporary directory, with no ``PYTHONPATH``: the way a user runs a script.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _run(script: str, cwd: Path) -> str:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def after_kaggle_environments(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """What one fresh interpreter printed (a line each) after importing kaggle-environments (2.5 s of
    CPU, hence one interpreter for both tests below): the rewards of a file agent that imports our
    package, played through ``evaluate`` (first, so that its import is the first of ``agents``), then
    the end of a game of our negamax through ``make``."""
    tmp_path = tmp_path_factory.mktemp("kaggle")
    (tmp_path / "my_agent.py").write_text(
        textwrap.dedent(
            """
            from agents.minimax import make_agent

            play = make_agent(depth=2)


            def my_agent(obs, config):
                return play(obs, config)
            """
        )
    )
    out = _run(
        """
        from kaggle_environments import evaluate, make

        print(evaluate("connectx", ["my_agent.py", "random"], num_episodes=2))

        from agents.negamax import agent

        env = make("connectx")
        env.run([agent, "random"])
        print(env.state[0].status, env.state[0].reward, env.state[1].reward)
        """,
        tmp_path,
    )
    return out.splitlines()


def test_negamax_imports_and_plays_after_kaggle_environments(after_kaggle_environments: list[str]) -> None:
    assert after_kaggle_environments[1].split() == ["DONE", "1", "-1"]


def test_a_file_agent_importing_our_package_plays_through_evaluate(
    after_kaggle_environments: list[str],
) -> None:
    rewards = ast.literal_eval(after_kaggle_environments[0].strip())
    assert len(rewards) == 2
    assert all(None not in episode for episode in rewards), rewards  # None: the file agent failed


OFFLINE = ("jax", "flax", "optax", "torch", "numba", "training")
ACCELERATORS = ("agents.engine.solver.fast",)
"""Modules of ``agents/`` that need numba; the solver imports them only inside a guarded import, and
a submission leaves them out."""


def test_no_module_of_agents_imports_offline_code() -> None:
    """Every module under ``agents/`` (what a submission inlines) but the numba accelerator imports
    without the training stack and without numba."""
    root = Path(__file__).resolve().parent.parent
    script = f"""
        import importlib, pkgutil, sys

        import agents

        modules = pkgutil.walk_packages(agents.__path__, "agents.")
        names = [m.name for m in modules if not m.name.endswith("__main__")]
        names = [name for name in names if name not in {ACCELERATORS!r}]
        for name in names:
            importlib.import_module(name)
        offline = sorted(m for m in sys.modules if m.split(".")[0] in {OFFLINE!r})
        print(len(names), *offline)
        """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    count, *offline = result.stdout.split()
    assert int(count) >= 20  # the walk found the package's modules
    assert offline == []


def test_the_command_line_starts_without_scipy_or_its_subcommands(tmp_path: Path) -> None:
    """scipy (0.6 s to import) is loaded only when a rating or an SPRT is computed: every command
    starts sooner, and the runner's game processes, forked before any rating, do not carry it (each
    megabyte of the runner makes every agent's fork dearer). No subcommand's module is imported
    before the command line knows which subcommand runs (``connectx.cli.MODULES``)."""
    script = """
        import sys, connectx.cli
        print('scipy' in sys.modules, sorted(set(connectx.cli.MODULES.values()) & set(sys.modules)))
        """
    assert _run(script, tmp_path).strip() == "False []"
