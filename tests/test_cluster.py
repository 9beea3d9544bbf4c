"""Games played on a Ray cluster (a local one of 2 CPUs) are the games the local runner plays.

Marked ``ray``: the cluster leaves threads in the process that starts it, so these tests run in a
child pytest process of their own (``tests/conftest.py``), where the local reference games are played
before it starts.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

import tournament
from agents.resources import DATA_DIR
from connectx.cli import main
from tests.records import game_task
from tournament.record import Termination
from tournament.runner import run_games
from tournament.schedule import Settings, schedule
from tournament.store import Store

pytestmark = pytest.mark.ray

MISBEHAVING = Path(__file__).parent / "misbehaving"
TASKS = schedule(Settings(entrants=("random:seed=3", "one_step", "minimax:depth=1"), games=1, seed=5))
"""6 games, more than the 4 that Ray is given at once on 2 CPUs: games are submitted as others end."""


def _played(record):
    """What a record says happened, without its times."""
    return (
        record.task,
        record.moves,
        record.result,
        record.termination,
        record.offender,
        record.statuses,
        record.rewards,
        record.detail,
    )


@pytest.fixture(scope="module")
def local_records():
    return {record.game_id: record for record in run_games(TASKS, 2)}


@pytest.fixture(scope="module")
def cluster(local_records, tmp_path_factory):
    """A local Ray cluster of 2 CPUs, started after the local games (no fork from a threaded process).

    Each of Ray's own processes (its dashboard's, monitors, agents, workers) imports jsonschema,
    which imports ``rfc3987_syntax`` where JupyterLab's dependencies installed it: 1.1 s of CPU
    each, its grammar built at import, for a format check no ConnectX game makes
    (:mod:`tournament.refusal`). Here their ``sys.path`` starts with a module of that name that
    refuses to import, as the runner's import refuses it."""
    ray = pytest.importorskip("ray")
    refusal = tmp_path_factory.mktemp("refusal")
    (refusal / "rfc3987_syntax.py").write_text('raise ImportError("not needed by the ConnectX tests")\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(
            "PYTHONPATH", os.pathsep.join(filter(None, [str(refusal), os.environ.get("PYTHONPATH")]))
        )
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        yield ray
        ray.shutdown()


def test_cli_unreachable_address_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    """As in a process not connected to a cluster: one connected to the cluster below would not need
    --address, and the test may run while it is up."""
    ray = pytest.importorskip("ray")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    out = tmp_path / "t"
    args = ["run", "--agents", "random", "leftmost", "--backend", "ray", "--address", "127.0.0.1:1"]
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--out", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "cannot join the Ray cluster at 127.0.0.1:1" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_ray_plays_the_games_the_local_runner_plays(cluster, local_records):
    from tournament.cluster import run_games_ray

    records = {record.game_id: record for record in run_games_ray(TASKS)}
    assert sorted(records) == sorted(local_records) == list(range(len(TASKS)))
    assert {i: _played(r) for i, r in records.items()} == {i: _played(r) for i, r in local_records.items()}


def test_files_of_specs_are_shipped_to_the_worker(cluster, tmp_path, monkeypatch):
    """Relative specs name files in the driver's directory, which the workers do not share: played
    from shipped copies, a hanging file agent is TIMEOUT (not a missing file's ERROR) and a weights
    file loads; the records carry the specs as written."""
    from tournament.cluster import run_games_ray

    shutil.copy(MISBEHAVING / "never_returns.py", tmp_path / "hangs.py")
    shutil.copy(DATA_DIR / "lms.npz", tmp_path / "w.npz")
    monkeypatch.chdir(tmp_path)
    tasks = [
        game_task(first="hangs.py", second="leftmost", act_timeout=1.0, hang_limit=1.0, seed=7),
        game_task(
            game_id=1,
            pair_id=1,
            first="lms:weights=w.npz",
            second="leftmost",
            act_timeout=1.0,
            hang_limit=5.0,
            seed=7,
        ),
    ]
    hangs, lms = sorted(run_games_ray(tasks), key=lambda record: record.game_id)
    assert (hangs.task, lms.task) == tuple(tasks)
    assert (hangs.termination, hangs.offender) == (Termination.TIMEOUT, 1), hangs.detail
    assert "did not return" in hangs.detail
    assert not lms.termination.is_forfeit and lms.statuses == ("DONE", "DONE"), lms.detail


def test_closing_cancels_the_games_in_flight(cluster, monkeypatch):
    """Closing the iterator frees the CPUs long before the hanging games' limit (600 s a move plus
    Kaggle's 60 s overage bank), even when Ray loses a cancel, as it does when the cancel reaches the
    worker before the task: here the first cancel sent is dropped."""
    from tournament.cluster import run_games_ray

    cancel, sent = cluster.cancel, []

    def losing_the_first(ref, **options):
        if sent:
            cancel(ref, **options)
        sent.append(ref)

    monkeypatch.setattr(cluster, "cancel", losing_the_first)
    hanging = [
        game_task(
            game_id=i,
            pair_id=i,
            first=str(MISBEHAVING / "never_returns.py"),
            second="leftmost",
            act_timeout=600.0,
        )
        for i in range(1, 3)
    ]
    games = run_games_ray([game_task(first="leftmost", second="leftmost", act_timeout=1.0), *hanging])
    assert next(games).game_id == 0  # the hanging games hold both CPUs now
    games.close()
    deadline = time.monotonic() + 120  # their workers are killed: the CPUs come back long before 660 s
    while cluster.available_resources().get("CPU") != 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cluster.available_resources().get("CPU") == 2
    assert len(sent) > 2  # the lost cancel was sent again


def test_cli_backend_ray_stores_the_run(cluster, tmp_path):
    out = tmp_path / "t"
    args = ["run", "--agents", "random", "leftmost", "--games", "1", "--backend", "ray", "--out", str(out)]
    assert main(args) == 0
    with Store.open(out) as store:
        assert store.game_ids() == {0, 1}
        settings = store.settings()
        assert (settings.workers, settings.cores) == (2, 2)  # 2 CPUs: 2 games at once, 4 submitted


def test_cli_backend_ray_without_ray_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    monkeypatch.delitem(sys.modules, "tournament.cluster", raising=False)
    monkeypatch.delattr(tournament, "cluster", raising=False)
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--agents", "random", "leftmost", "--backend", "ray", "--out", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "pip install -e '.[ray]'" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
