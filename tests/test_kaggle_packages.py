"""``connectx check --kaggle-packages``: Kaggle's pins, the environment made once and reused; what the
check reports of the file's search; a built file's modules run once a process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from submissions import kaggle_packages
from submissions.build import build_spec
from submissions.kaggle_packages import KagglePackagesError, environment, location, pins
from submissions.report import CheckedGame, CheckReport, search_line
from submissions.runtime import _load
from submissions.timing import move_times

KAGGLE = {"numba": "0.65.1", "llvmlite": "0.47.0", "numpy": "2.4.6", "scipy": "1.16.3"}


def test_the_pins_are_kaggles_and_name_their_source():
    text = Path(kaggle_packages.__file__).with_name("data").joinpath(kaggle_packages.PINS).read_text()
    assert "Kaggle/docker-python" in text and "installed_cpu_packages.txt" in text
    pinned = dict(line.split("==") for line in pins())
    assert {name: pinned[name] for name in KAGGLE} == KAGGLE
    assert "kaggle-environments" in pinned


def fake_make(made: list[Path]):
    def make(work: Path) -> dict[str, str]:
        made.append(work)
        (work / "bin").mkdir()
        (work / "bin" / "python").write_text("")
        return dict(KAGGLE)

    return make


def test_the_environment_is_made_once_then_reused(tmp_path, monkeypatch):
    made: list[Path] = []
    said: list[str] = []
    monkeypatch.setattr(kaggle_packages, "_make", fake_make(made))
    first = environment(tmp_path, say=said.append)
    second = environment(tmp_path, say=said.append)
    assert len(made) == 1 and len(said) == 1 and "once" in said[0]
    assert first == second and first.python == location(tmp_path) / "bin" / "python"
    assert first.describe().startswith("numba 0.65.1, llvmlite 0.47.0")
    assert location(tmp_path).name.startswith(f"py{sys.version_info[0]}.{sys.version_info[1]}-")
    assert [p.name for p in location(tmp_path).parent.iterdir()] == [location(tmp_path).name]


def test_a_failed_install_leaves_nothing_half_made(tmp_path, monkeypatch):
    def failing(work: Path) -> dict[str, str]:
        (work / "partial").write_text("")
        raise KagglePackagesError("pip install failed (exit status 1): no such version")

    monkeypatch.setattr(kaggle_packages, "_make", failing)
    with pytest.raises(KagglePackagesError, match="pip install failed"):
        environment(tmp_path, say=lambda text: None)
    assert list(location(tmp_path).parent.iterdir()) == []


def game(durations: tuple[float, ...]) -> CheckedGame:
    return CheckedGame(
        label="vs kaggle-negamax, file first", agents=("FILE", "negamax"), ours=(0,),
        statuses=("DONE", "DONE"), rewards=(1, -1), durations=(durations, (0.1,) * len(durations)),
        plies=2 * len(durations), seconds=9.0,
    )  # fmt: skip


def test_the_slowest_later_move_leaves_out_the_first_which_compiles():
    times = move_times([game((6.5, 0.4, 1.2)), game((0.3, 0.9))], 2.0)
    assert times.first_move == 6.5 and times.slowest == 6.5 and times.later == 1.2
    assert move_times([game((6.5,))], 2.0).later is None


def test_the_report_says_which_search_ran_and_where_it_would_compile():
    times = move_times([game((6.5, 0.4))], 2.0)
    compiled = "searching compiled: compiled in 4.10 s (2.20 s of CPU) with numba 0.65.1"
    report = CheckReport(path="main.py", size=1, act_timeout=2.0, passed=True, reasons=(), times=times)
    assert search_line(report).startswith("the file's solver said nothing")
    line = search_line(CheckReport(**{**_fields(report), "search": compiled}))
    assert line == f"{compiled}; slowest move after the first 0.400 s"
    pure = "searching in pure Python, no compiled kernel: numba does not import (ModuleNotFoundError: x)"
    here = search_line(CheckReport(**{**_fields(report), "search": pure}))
    assert "--kaggle-packages" in here
    kaggles = CheckReport(**{**_fields(report), "search": pure, "packages": "numba 0.65.1"})
    assert "--kaggle-packages" not in search_line(kaggles)


def _fields(report: CheckReport) -> dict:
    return {name: getattr(report, name) for name in CheckReport.__slots__}


def test_a_files_modules_run_once_a_process_and_its_agents_are_new(tmp_path):
    text = build_spec("leftmost").text
    first, second = {}, {}
    exec(compile(text, "main.py", "exec"), first)
    exec(compile(text, "main.py", "exec"), second)
    one = _load(first["_PREFIX"], first["_MODULES"], first["_ENTRY"])
    two = _load(second["_PREFIX"], second["_MODULES"], second["_ENTRY"])
    assert one is two  # the second load of the same file takes the modules the first ran
    assert one.make_agent() is not two.make_agent()
    other = _load(first["_PREFIX"] + "x", first["_MODULES"], first["_ENTRY"])
    assert other is not one  # another file (another prefix) runs its own
    for name in [
        key for key in sys.modules if key.startswith((first["_PREFIX"] + ".", first["_PREFIX"] + "x."))
    ]:
        del sys.modules[name]


def test_the_built_negamax_carries_the_compiled_kernel_and_is_under_5_mb():
    built = build_spec("negamax")
    assert "agents.engine.solver.fast" in built.modules
    assert built.modules.index("agents.engine.solver.fast") < built.modules.index("agents.engine.solver.core")
    assert len(built.text.encode()) < 5 * 2**20
