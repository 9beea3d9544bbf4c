"""The built negamax file searches compiled where numba imports and in pure Python where it does not,
choosing the same columns; the fallback is said once a process. One ``python -I`` process a mode,
each loading the file afresh for every position as Kaggle's loader does (so the file's modules, and
its compiled kernel, are shared across loads within a process: the solver says its line once).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.engine.board import Board
from agents.engine.solver import SAYS
from submissions import probe
from submissions.build import build_spec, write
from submissions.check import PROJECT_ROOT
from submissions.inline import ACCELERATORS
from tournament.refusal import REFEREE_UNNEEDED

pytest.importorskip("numba")

PONS = Path(__file__).parent / "data" / "pons"

PLAYER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import probe
probe.isolate(sys.argv[2], ["agents", "submissions", "tournament"])
for name in json.loads(sys.argv[4]):
    sys.modules[name] = None  # hidden: importing it raises ModuleNotFoundError
request = json.loads(sys.argv[3])
with probe.refusing(request["refuse"]):  # as the check's probe imports kaggle-environments
    from kaggle_environments.agent import get_last_callable
moves = []
for obs in request["observations"]:
    with open(request["path"]) as handle:
        agent = get_last_callable(handle.read(), path=request["path"])  # a fresh load, as Kaggle's
    moves.append(agent(obs, request["config"]))
print(json.dumps(moves))
"""


def positions() -> list[dict]:
    """50 of Pons' positions past the opening databases (more than 12 stones): 40 near the end of the
    game, 10 in its middle, all quick for the pure-Python search."""
    lines = (PONS / "Test_L3_R1.head").read_text().splitlines() + (
        PONS / "Test_L2_R1.head"
    ).read_text().splitlines()[:10]
    out = []
    for line in lines:
        board = Board.from_moves(line.split()[0])
        assert board.ply > 12
        out.append(
            {"board": board.to_kaggle(), "mark": board.mark, "remainingOverageTime": 60, "step": board.ply}
        )
    return out


def play(tmp_path: Path, path: Path, hidden: tuple[str, ...]) -> tuple[list[int], list[str]]:
    """The columns the file chooses for :func:`positions` in one isolated process with ``hidden``
    unimportable, and the solver's lines on its stderr."""
    (tmp_path / "probe.py").write_text(Path(probe.__file__).read_text())
    (tmp_path / "player.py").write_text(PLAYER)
    # actTimeout far beyond what any of these positions needs: the two searches must both finish
    config = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 60.0}
    request = {
        "path": str(path),
        "observations": positions(),
        "config": config,
        "refuse": list(REFEREE_UNNEEDED),
    }
    done = subprocess.run(
        [sys.executable, "-I", str(tmp_path / "player.py"), str(tmp_path), str(PROJECT_ROOT),
         json.dumps(request), json.dumps(list(hidden))],
        capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = [line for line in done.stderr.splitlines() if line.startswith(SAYS)]
    return json.loads(done.stdout.strip().splitlines()[-1]), said


def test_the_file_compiles_where_numba_imports_and_falls_back_to_the_same_moves(tmp_path):
    path = tmp_path / "main.py"
    write(build_spec("negamax"), path)
    compiled, said_compiled = play(tmp_path, path, ())
    pure, said_pure = play(tmp_path, path, tuple(sorted(ACCELERATORS)))
    assert len(compiled) == 50 and all(type(column) is int for column in compiled)
    assert compiled == pure
    assert len(said_compiled) == 1 and said_compiled[0].startswith(f"{SAYS} searching compiled: compiled in ")
    assert len(said_pure) == 1 and said_pure[0].startswith(f"{SAYS} searching in pure Python")
    assert "numba does not import" in said_pure[0] or "llvmlite" in said_pure[0]


def test_the_probe_reads_the_lines_the_solver_writes():
    assert probe.SOLVER_SAYS == SAYS
