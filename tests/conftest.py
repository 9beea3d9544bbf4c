"""Shared pytest configuration and fixtures.

JAX, Ray and PyTorch stay out of the pytest process. Once JAX has started its backends (at the first
computation; importing it starts nothing) the process has threads of JAX's own, and every
``os.fork()`` warns that the child may deadlock; a local Ray cluster leaves threads too, and so does
PyTorch's intra-op thread pool (OpenMP), which a forked child cannot use. The runner,
the sandbox's zygote and the submission checker fork, and their tests run in this process in any
order (``pytest -p randomly``). So a test that uses JAX (marked ``jax``, or using the
:func:`random_weights` fixture), Ray (marked ``ray``) or PyTorch (marked ``torch``: the ``[rl]``
extra's training) runs in a child pytest process, started by
``subprocess`` (which does not fork this interpreter): the first such test of a module runs that
module's marked tests in one child, and each reports here what the child reported, warnings
included. A test that starts JAX or Ray, or imports PyTorch, here without the mark fails at teardown,
naming the mark it needs.

The suite's files go to pytest-xdist's workers whole (``--dist loadfile``), the slowest first
(:data:`SLOWEST`): xdist's own order gives the files with the most tests first, which left the
files of one long test (the README's commands, the numba build) to the end, one worker running
them while the other waited.

Shared builders live in helper modules, not here: :mod:`tests.records` (game records),
:mod:`tests.boards` (random positions), :mod:`tests.course_reference` (the course's agents).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import json
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# Agent files that the tests load as data (hostile, broken or public submissions): never import them
# while collecting (pytest runs with --doctest-modules, which imports every module it collects).
collect_ignore = ["data", "misbehaving", "cheats", "compat"]

CHILD = "CONNECTX_TESTS_CHILD"
"""Set in a child pytest process only: the file where it writes its reports and warnings, one JSON
object a line."""

ISOLATED_MARKS = ("jax", "ray", "torch")
"""Marks of the tests that run in a child process (as do those using :func:`random_weights`)."""

SLOWEST = (
    "tests/test_submissions.py",
    "tests/test_report.py",
    "tests/test_web_browser.py",
    "tests/test_notebooks.py",
    "tests/test_cli.py",
    "tests/test_notebooks_browser.py",
    "tests/test_cluster.py",
    "tests/test_sandbox.py",
    "tests/test_ladder.py",
    "tests/test_play.py",
    "tests/test_analysis.py",
    "tests/test_api.py",
    "tests/test_readme_commands.py",
    "tests/test_web_edges.py",
    "tests/test_training.py",
    "tests/test_containment.py",
    "tests/test_envs.py",
    "tests/test_entrants.py",
    "tests/test_submission_numba.py",
    "tests/test_runner.py",
    "tests/test_train_cli.py",
)
"""The files that took longest (about 70% of the suite's time, measured on 2 cores), longest first:
handed to the workers before the others, which follow in xdist's order (most tests first). A file
missing here is only scheduled later; none is left out."""

_results = pytest.StashKey[dict[str, list[pytest.TestReport]]]()


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores this process may use. The tests wait much of their
    time on what they start (games, kernels, browsers, servers), and a spare worker runs meanwhile:
    on the 2-core machine the suite took 4 min 10 s with three workers against 5 min with two, for
    the same CPU time (7 min)."""
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadfile``, xdist's file scheduling with the files of :data:`SLOWEST` first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SlowestFirst(LoadFileScheduling):
        def _assign_work_unit(self, node: Any) -> None:
            if not getattr(self, "_slowest_first", False):  # the queue is complete at the first call
                self._slowest_first = True
                rank = {name: i for i, name in enumerate(SLOWEST)}
                queue = sorted(self.workqueue.items(), key=lambda unit: rank.get(unit[0], len(rank)))
                self.workqueue.clear()
                self.workqueue.update(queue)
            super()._assign_work_unit(node)

    return SlowestFirst(config, log)


def _isolated(item: pytest.Item) -> bool:
    """Whether ``item`` runs in a child process: marked ``jax``, ``ray`` or ``torch``, or using
    ``random_weights``."""
    marked = any(item.get_closest_marker(mark) is not None for mark in ISOLATED_MARKS)
    return marked or "random_weights" in getattr(item, "fixturenames", ())


def _threads_started() -> str | None:
    """``"JAX"``, ``"Ray"`` or ``"PyTorch"`` when this process has started it (JAX's backends, which
    install the warning at ``os.fork()``; a Ray client connected to a cluster; PyTorch imported, since
    it gives no sign of when its thread pool starts), else None."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    if bridge is not None and getattr(bridge, "_at_fork_handler_installed", False):
        return "JAX"
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        return "Ray"
    if "torch" in sys.modules:
        return "PyTorch"
    return None


@pytest.fixture(autouse=True)
def _jax_and_ray_stay_out(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that starts JAX, Ray or PyTorch in the pytest process (see the module docstring)."""
    before = _threads_started()
    yield
    started = _threads_started()
    if CHILD not in os.environ and started and not before:
        mark = {"JAX": "jax", "Ray": "ray", "PyTorch": "torch"}[started]
        pytest.fail(
            f"{request.node.nodeid} started {started} in the pytest process, whose later forks could "
            f"deadlock: mark it {mark} (it then runs in a child process, see tests/conftest.py)",
            pytrace=False,
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """In the pytest process, report an isolated test from its module's child process."""
    if CHILD in os.environ or not _isolated(item):
        return None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for report in _child_reports(item):
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    # What the tests before it set up and the next one does not need (a module, its fixtures) is torn
    # down here, as pytest's own protocol does after a test: else the next test's setup finds it.
    item.session._setupstate.teardown_exact(nextitem)
    return True


def _child_reports(item: pytest.Item) -> list[pytest.TestReport]:
    """The reports (setup, call, teardown) of ``item`` from the child that ran its module's isolated
    tests, starting that child at the module's first isolated test; a failed report when the child
    gave none (it crashed, or could not collect the test)."""
    results = item.session.stash.setdefault(_results, {})
    if item.nodeid not in results:
        module = item.nodeid.split("::")[0]
        batch = [
            other.nodeid
            for other in item.session.items
            if other.nodeid.split("::")[0] == module and _isolated(other) and other.nodeid not in results
        ]
        results.update(_run_child(item, batch))
    return results.get(item.nodeid) or [
        pytest.TestReport(
            item.nodeid, item.location, {}, "failed", results.get("", "no result from the child"), "call"
        )
    ]


def _run_child(item: pytest.Item, nodeids: list[str]) -> dict[str, Any]:
    """Run ``nodeids`` in a child pytest process: their reports by node id, warnings passed to this
    process's terminal, and under ``""`` the child's output when it reported nothing for some."""
    config = item.config
    order = ["-p", "no:randomly"]
    if config.pluginmanager.hasplugin("randomly"):
        order = ["-p", "randomly", f"--randomly-seed={config.getoption('randomly_seed')}"]
    if config.pluginmanager.hasplugin("xdist"):
        order += ["-n", "0"]  # the child runs its tests itself
    options = [f"-W{spec}" for spec in config.getoption("pythonwarnings") or ()]
    with tempfile.TemporaryDirectory(prefix="pytest-child-") as folder:
        out = Path(folder) / "reports.jsonl"
        child = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *order, *options, *nodeids],
            cwd=config.rootpath,
            env={**os.environ, CHILD: str(out)},
            capture_output=True,
            text=True,
            check=False,
            timeout=900,  # a module's isolated tests; a child that hangs fails them instead of the suite
        )
        lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    results: dict[str, Any] = {}
    for line in lines:
        entry = json.loads(line)
        if "warning" in entry:
            _pass_warning(item, entry["warning"])
        else:
            report = config.hook.pytest_report_from_serializable(config=config, data=entry)
            if report.skipped and isinstance(report.longrepr, list):
                # A skip's (path, line, reason) came through JSON as a list; pytest's summary of the
                # skips (-ra) asserts a tuple, and its AssertionError made a green suite exit 1.
                report.longrepr = tuple(report.longrepr)
            results.setdefault(report.nodeid, []).append(report)
    if any(nodeid not in results for nodeid in nodeids):
        said = child.stdout + child.stderr
        results[""] = f"the child pytest process (exit {child.returncode}) said:\n{said}"
    return results


def _pass_warning(item: pytest.Item, warning: dict[str, Any]) -> None:
    """Hand a warning that the child recorded to this process's reporters (its summary)."""
    category = getattr(builtins, warning["category"], None) or getattr(pytest, warning["category"], None)
    if not (isinstance(category, type) and issubclass(category, Warning)):
        category = UserWarning
    message = warnings.WarningMessage(
        category(warning["message"]), category, warning["filename"], warning["lineno"]
    )
    item.config.hook.pytest_warning_recorded.call_historic(
        kwargs={"warning_message": message, "when": "runtest", "nodeid": warning["nodeid"], "location": None}
    )


class _ChildReporter:
    """In a child pytest process: write every test report and warning to the file named by
    :data:`CHILD`, for the parent to report."""

    def __init__(self, config: pytest.Config, path: str) -> None:
        self.config = config
        self.path = path

    def _write(self, entry: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._write(self.config.hook.pytest_report_to_serializable(config=self.config, report=report))

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage, nodeid: str) -> None:
        warning = {
            "category": warning_message.category.__name__,
            "message": str(warning_message.message),
            "filename": warning_message.filename,
            "lineno": warning_message.lineno,
            "nodeid": nodeid,
        }
        self._write({"warning": warning})


class _ExamplesOnly:
    """``--doctest-modules`` collects every module of the packages in ``testpaths``, and collecting
    one imports it: Ray (``tournament.cluster``), JAX, Starlette and the rest, in every xdist worker,
    though 31 of the 197 modules have an example. This plugin skips, in the packages, a module whose
    text holds no ``>>>``: it has no doctest to run, and the tests import what they test."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        if collection_path.suffix != ".py" or TESTS in collection_path.parents:
            return None
        try:
            text = collection_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return None if ">>>" in text else True


TESTS = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    """Skip the package modules without examples (:class:`_ExamplesOnly`, registered for every path,
    not only this folder's as a conftest's hooks are); in a child pytest process, register the
    reporter that writes to the parent."""
    config.pluginmanager.register(_ExamplesOnly(), "connectx-examples-only")
    if CHILD in os.environ:
        config.pluginmanager.register(_ChildReporter(config, os.environ[CHILD]), "connectx-child-reporter")


@pytest.fixture(scope="session")
def random_weights() -> Callable[..., tuple]:
    """``random_weights(channels=8, blocks=2, seed=0) -> (flax module, flax parameters, numpy export)``:
    a small policy/value net (:class:`training.network.model.PolicyValueNet`) whose kernels are all
    random and non-zero, cached per arguments. Skips the test when JAX is missing. Its tests run in a
    child process (see the module docstring)."""
    jax = pytest.importorskip("jax")
    from training.network.model import PolicyValueNet, export_weights

    @functools.cache
    def make(channels: int = 8, blocks: int = 2, seed: int = 0) -> tuple:
        net = PolicyValueNet(channels=channels, blocks=blocks)
        # Only the shapes: every value is drawn below (an initialisation op by op took 6-7 s of CPU).
        shapes = jax.eval_shape(net.init, jax.random.PRNGKey(seed), np.zeros((1, 6, 7, 3), np.float32))
        params = shapes["params"]
        rng = np.random.default_rng(seed)
        params = jax.tree_util.tree_map(lambda a: rng.normal(0, 0.3, a.shape).astype(np.float32), params)
        return net, params, export_weights(params)

    return make


@contextlib.contextmanager
def _reports_unwritten() -> Iterator[list[Path]]:
    """While it lasts, the ``connectx run``s of this process write no report files; yields the run
    folders whose reports they would have written (a run that got to its end is in it)."""
    from connectx import match

    folders: list[Path] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(match, "write_report", lambda store, run: folders.append(run))
        yield folders


@pytest.fixture
def reported() -> Iterator[list[Path]]:
    """The test's in-process runs write no reports: the folders they would have written them to. For
    claims on the store, the processes or what comes before the reports, which only read the store
    (a run's reports: tests/test_cli.py, tests/test_report*.py); drawing them is most of a small
    run's CPU."""
    with _reports_unwritten() as folders:
        yield folders


@pytest.fixture(scope="module")
def module_reported() -> Iterator[list[Path]]:
    """:func:`reported` for a module's fixtures."""
    with _reports_unwritten() as folders:
        yield folders


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright's browser: Debian's Chromium (``.ci/run`` installs it), headless, with the
    arguments of :data:`benchmarks.browser.ARGUMENTS`; never a browser Playwright downloads. A test that
    uses a browser skips, saying why, where no Chromium is on PATH."""
    from benchmarks.browser import ARGUMENTS, find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium on PATH (apt-get install -y chromium; .ci/run does)")
    return {**browser_type_launch_args, "executable_path": executable, "args": ARGUMENTS, "headless": True}
