"""The README's commands, followed in order on a fresh copy of the repository as a newcomer would (with
their own ``my_agent.py`` in its root), write only where git ignores -- ``runs/``, ``games/``,
``ladder/``, the built ``main.py``, the newcomer's file, the tools' caches -- and leave the README's
lint commands green.

The copy holds what a clone would: the files git tracks or would add (``git ls-files``), in a git
repository of its own, since ruff skips what git ignores. The commands run with this interpreter's
console scripts (its ``bin/``: ``.venv/bin`` under ``.ci/run``) in the copy's folder; each README
line is run as written, run cheaper (:data:`CHEAPER`: the same command on fewer games), or not run
(:data:`NOT_RUN`: why, and what it would write, which must be ignored too). A README line in neither
fails here until it is said which.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs import command_lines

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

NEWCOMER = """import random, numpy as np
def my_agent(observation, configuration):
    return random.choice([c for c in range(configuration.columns) if observation.board[c] == 0])
"""
"""A newcomer's ``my_agent.py``, as the README has them play it: an unused import, two on a line,
unformatted; ruff would fail on it (checked below, so that the test can fail)."""

CHEAPER = {
    ".venv/bin/connectx": "connectx --agents middle leftmost --games 1",  # the default run: 364 games
    ".venv/bin/connectx run --agents negamax minimax:depth=2 one_step my_agent.py "
    "--games 10 --out runs/mine": (
        "connectx run --agents negamax minimax:depth=2 one_step my_agent.py --games 1 --out runs/mine"
    ),
    ".venv/bin/connectx build negamax -o main.py": "connectx build negamax -o main.py --no-check",
}
"""README lines run with fewer games, or without the check that plays some (tests/test_submissions.py)."""

RUN = {
    ".venv/bin/ruff check .",
    ".venv/bin/ruff format --check .",
    ".venv/bin/connectx agents",
    ".venv/bin/connectx analyze runs/latest",
    "connectx run --help",
}
"""README lines run as written (the lint commands last, after everything else has written its files)."""

NOT_RUN = {
    "python3 -m venv .venv": ("the copy runs on this interpreter's environment", ".venv/bin/python"),
    ".venv/bin/pip install -e .": ("installs", "connectx_toolkit.egg-info/PKG-INFO"),
    ".venv/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu": ("installs", None),
    ".venv/bin/pip install -e '.[dev,ray,rl]'": ("installs", "connectx_toolkit.egg-info/PKG-INFO"),
    ".venv/bin/pip install -e '.[rl]'": ("installs", "connectx_toolkit.egg-info/PKG-INFO"),
    ".venv/bin/mypy": ("minutes, and checks no file the commands write", ".mypy_cache/3.11/x.json"),
    ".venv/bin/lint-imports": ("checks no file the commands write", ".import_linter_cache/x"),
    ".venv/bin/python -m pytest": ("this suite", ".pytest_cache/v/cache/lastfailed"),
    ".venv/bin/connectx report runs/mine": ("run wrote the same reports there", "runs/mine/report.html"),
    ".venv/bin/connectx report runs/v1 runs/v2": ("no runs v1, v2 here", "runs/v1/report.html"),
    ".venv/bin/connectx play one_step": ("a person plays (tests/test_play.py)", "games/one_step/x"),
    ".venv/bin/connectx play negamax --second": ("a person plays", "games/negamax/x"),
    "connectx report games/one_step": ("no game played by a person here", "games/one_step/report.html"),
    ".venv/bin/connectx serve runs/": ("a server (tests/test_web.py)", "runs/x"),
    ".venv/bin/connectx ladder init --builtins": ("364 games", "ladder/ladder.db"),
    ".venv/bin/connectx ladder add my_agent.py": ("needs the ladder", "ladder/ladder.db"),
    ".venv/bin/connectx sprt my_agent.py negamax --elo0 0 --elo1 10": ("plays until decided", "runs/sprt/x"),
    ".venv/bin/connectx check main.py": ("plays games (tests/test_submissions.py); writes nothing", None),
    ".venv/bin/connectx solve 32164625": ("writes nothing (tests/test_cli.py)", None),
    ".venv/bin/connectx solve -a 4453": ("writes nothing", None),
    ".venv/bin/connectx import 58639402.json 58639517.json --out runs/kaggle": (
        "Kaggle's replays are not here",
        "runs/kaggle/tournament.db",
    ),
    ".venv/bin/connectx train lms --games 10000 --out runs/lms": ("minutes", "runs/lms/lms.npz"),
    ".venv/bin/connectx run --agents lms:weights=runs/lms/lms.npz one_step "
    "--games 10 --out runs/lms-vs-one_step": (
        "needs the training",
        "runs/lms-vs-one_step/tournament.db",
    ),
    ".venv/bin/connectx train ppo --steps 1000000 --out runs/ppo": (
        "needs [rl]; hours",
        "runs/ppo/ppo.npz",
    ),
    "python -m benchmarks.silence": ("times the default run", None),
    "python -m connectx": ("the same command as connectx", None),
    "python -m scripts.make_figures --install": ("plays the default run, installs", "runs/figures/latest/x"),
}
"""README lines not run here: why, and a path each would write (None: nothing), which git must ignore."""

LINT = {".venv/bin/ruff check .", ".venv/bin/ruff format --check ."}


def _run(line: str, cwd: Path) -> None:
    words = shlex.split(line)
    program = BIN / Path(words[0]).name
    done = subprocess.run(
        [str(program), *words[1:]], cwd=cwd, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, f"`{line}` exited {done.returncode}:\n{done.stdout}\n{done.stderr}"


def _git(clone: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=clone, capture_output=True, text=True, check=True).stdout


def _fresh_copy(clone: Path) -> None:
    """What a clone of this checkout holds, in ``clone``, a git repository with it all added."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, files.split("\0")):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    _git(clone, "init", "-q")
    _git(clone, "add", "-A")


@pytest.mark.slow
def test_the_readme_commands_write_only_what_git_ignores_and_the_lints_stay_green(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if not (BIN / "connectx").exists() or not (BIN / "ruff").exists():
        pytest.skip(f"no connectx and ruff beside {sys.executable} (pip install -e '.[dev]')")
    lines = command_lines(ROOT / "README.md")
    unsaid = [line for line in lines if line not in {*CHEAPER, *RUN, *NOT_RUN}]
    assert unsaid == [], "README lines this test neither runs nor says why not: add them above"
    clone = tmp_path / "clone"
    _fresh_copy(clone)
    (clone / "my_agent.py").write_text(NEWCOMER)
    for line in lines:
        if line in CHEAPER or (line in RUN and line not in LINT):
            _run(CHEAPER.get(line, line), clone)
    assert (clone / "main.py").is_file() and (clone / "runs/mine/report.html").is_file()
    assert (clone / "runs/latest/tournament.db").is_file()
    assert _git(clone, "ls-files", "--others", "--exclude-standard") == ""  # nothing git would add
    would_write = sorted({path for _, path in NOT_RUN.values() if path is not None})
    ignored = _git(clone, "check-ignore", "--no-index", *would_write).split()
    assert sorted(ignored) == sorted(would_write)
    for line in lines:
        if line in LINT:
            _run(line, clone)
    dirty = subprocess.run(
        [str(BIN / "ruff"), "check", "--no-respect-gitignore", "--no-cache", "main.py", "my_agent.py"],
        cwd=clone,
        capture_output=True,
        check=False,
    )
    assert dirty.returncode == 1  # what git's ignoring keeps out of the lint
