"""Misbehaving agents are scored as Kaggle scores them and never stop the tournament.

Each file in ``tests/misbehaving/`` plays mark 1 against ``leftmost`` through the real runner
(a process per game, kaggle-environments as referee), all in one batch.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.records import game_task
from tournament import runner, sandbox
from tournament.record import GameFailed, GameRecord, Termination
from tournament.runner import cpu_share, run_games, stall_limit
from tournament.schedule import GameTask

HERE = Path(__file__).parent / "misbehaving"
HANG_LIMIT = 1.0

# file -> (termination, offender)
EXPECTED = {
    "raises.py": (Termination.ERROR, 1),
    "returns_str.py": (Termination.INVALID, 1),
    "returns_float.py": (Termination.INVALID, 1),
    "returns_whole_float.py": (Termination.INVALID, 1),  # 3.0 crashed Kaggle's referee: never stored
    "returns_numpy_int.py": (Termination.INVALID, 1),
    "out_of_range.py": (Termination.INVALID, 1),
    "full_column.py": (Termination.INVALID, 1),
    "sleeps.py": (Termination.TIMEOUT, 1),
    "never_returns.py": (Termination.TIMEOUT, 1),
    "holds_the_gil.py": (Termination.TIMEOUT, 1),
    "exits.py": (Termination.ERROR, 1),
    "syntax_error.py": (Termination.ERROR, 1),
    "returns_none.py": None,  # Kaggle plays its default action, column 0: the game goes on
}


def _task(game_id: int, first: str, second: str = "leftmost", rows: int = 6) -> GameTask:
    return game_task(
        game_id=game_id,
        pair_id=game_id,
        first=first,
        second=second,
        rows=rows,
        act_timeout=1.0,
        hang_limit=HANG_LIMIT,
        seed=7,
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, GameRecord | GameFailed]:
    broken = tmp_path_factory.mktemp("broken") / "syntax_error.py"
    broken.write_text("def agent(obs, config)\n    return 0\n")
    paths = {name: str(broken if name == "syntax_error.py" else HERE / name) for name in EXPECTED}
    tasks = [_task(i, path) for i, path in enumerate(paths.values())]
    by_id = {result.game_id: result for result in run_games(tasks, workers=2)}
    return {name: by_id[i] for i, name in enumerate(paths)}


@pytest.mark.parametrize("name", [n for n, e in EXPECTED.items() if e is not None])
def test_forfeit_is_a_loss_for_the_offender(results, name):
    record = results[name]
    termination, offender = EXPECTED[name]
    assert record.termination is termination, record.detail
    assert record.offender == offender
    assert record.result == 0.0 and record.score_of("leftmost") == 1.0
    assert record.statuses[0] == termination.value.upper()


def test_forfeit_details_name_the_cause(results):
    detail = {name: result.detail for name, result in results.items()}
    # why the action is invalid, columns counted from 1 as the replays count them
    assert detail["full_column.py"] == "mark 1 chose column 1, which is full (it returned 0, counting from 0)"
    assert detail["out_of_range.py"] == (
        "mark 1 returned 7: there is no column 8 on a 7-column board (columns are 0-6 to the agent, 1-7 here)"
    )
    assert detail["returns_str.py"] == "mark 1 returned '3' (a str; an agent must return a Python int)"
    assert detail["returns_float.py"] == "mark 1 returned 3.7 (a float; an agent must return a Python int)"
    assert (
        detail["returns_whole_float.py"] == "mark 1 returned 3.0 (a float; an agent must return a Python int)"
    )
    assert detail["returns_numpy_int.py"] == (
        "mark 1 returned numpy.int64 3 (a numpy integer; an agent must return a Python int, e.g. int(column))"
    )
    assert "boom" in results["raises.py"].detail
    assert "did not return" in results["never_returns.py"].detail
    assert "exit code 3" in results["exits.py"].detail
    assert "did not return" in results["holds_the_gil.py"].detail  # its host, not the referee, holds the GIL


def test_full_column_is_played_until_full(results):
    record = results["full_column.py"]
    assert record.moves.count(0) == 6 and len(record.move_times) == len(record.moves) + 1


def test_returning_none_plays_column_zero(results):
    record = results["returns_none.py"]
    assert record.moves[0] == 0
    # leftmost also plays column 0, so the column fills after 6 moves and None is then invalid.
    assert record.termination is Termination.INVALID and record.offender == 1


def test_last_callable_is_the_agent():
    (record,) = run_games([_task(0, str(HERE / "last_callable.py"), "leftmost")], workers=1)
    assert record.moves[0] == 6  # `second` (rightmost), not `first` (column 0)


def test_results_arrive_for_every_task_even_with_one_worker():
    tasks = [_task(i, "random", "leftmost", rows=4) for i in range(3)]
    records = list(run_games(tasks, workers=1))
    assert sorted(r.game_id for r in records) == [0, 1, 2]
    assert all(r.termination in (Termination.WIN, Termination.DRAW) for r in records)


def test_each_game_gets_one_native_thread(tmp_path) -> None:
    """BLAS thread pools are limited to one thread in a game (the agent plays the count as its move)."""
    probe = tmp_path / "threads.py"
    probe.write_text(
        "from threadpoolctl import threadpool_info\n"
        "def agent(obs, config):\n"
        "    return min(max([p['num_threads'] for p in threadpool_info()], default=0), config.columns - 1)\n"
    )
    (record,) = run_games([_task(0, str(probe))], workers=1)
    assert record.moves[0] == 1, record.detail


def test_cpu_shares_are_near_equal_disjoint_cover_every_cpu_and_spread_over_the_slots():
    cpus = [0, 1, 2, 3, 4, 5, 6, 7]
    assert cpu_share(0, 1, cpus) == set(cpus)  # one worker: every CPU
    assert [cpu_share(slot, 2, cpus) for slot in (0, 1)] == [{0, 1, 2, 3}, {4, 5, 6, 7}]
    assert [cpu_share(slot, 3, cpus) for slot in (3, 4, 5)] == [{0, 1}, {2, 3, 4}, {5, 6, 7}]
    assert cpu_share(9, 2, cpus) == {4, 5, 6, 7}  # slots of another runner on the machine
    assert [cpu_share(slot, 3, [0, 1, 2, 3]) for slot in (0, 1, 2)] == [{0}, {1}, {2, 3}]  # every CPU used
    assert cpu_share(0, 3, [5, 2]) == {2, 5}  # more workers than CPUs: the kernel balances them
    with pytest.raises(ValueError, match="at least one worker"):
        cpu_share(0, 0, cpus)


def test_with_two_workers_each_game_runs_on_its_own_share_of_the_cpus(tmp_path, monkeypatch) -> None:
    """The agent reports the CPUs it may run on (as its error): each of the two slots has its own, even
    when the runner's slots are two apart (another runner holds the one between: here the runner is
    given the first and third of three free slots)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    claim = sandbox.claim_slots

    @contextlib.contextmanager
    def two_apart(count: int) -> Iterator[list[int]]:
        with claim(2 * count - 1) as numbers:
            yield numbers[::2]

    monkeypatch.setattr(sandbox, "claim_slots", two_apart)
    probe = tmp_path / "cpus.py"
    probe.write_text(
        "import os\ndef agent(obs, config):\n    raise RuntimeError(sorted(os.sched_getaffinity(0)))\n"
    )
    records = list(run_games([_task(i, str(probe)) for i in range(4)], workers=2))
    shares = {record.detail.splitlines()[0].split("RuntimeError: ")[1] for record in records}
    assert len(shares) == 2, shares
    first, second = (set(json.loads(share)) for share in shares)
    assert not first & second
    assert first | second == set(cpus)


def _new_children(others: set[int]) -> list[int]:
    """This process's children but ``others`` (those earlier tests left, such as multiprocessing's
    resource tracker): the runner's game processes."""
    return [pid for pid in sandbox.children() if pid not in others]


SECOND_MOVE = """import ctypes, time
calls = 0


def agent(obs, config):
    global calls
    calls += 1
    if calls == 2:  # tell the test (its process name: prctl PR_SET_NAME), then outlast its wait
        ctypes.CDLL(None).prctl(15, b"second-move", 0, 0, 0)
        time.sleep(120)
    return [c for c in range(config.columns) if obs.board[c] == 0][-1]  # rightmost
"""
"""An agent that plays the rightmost column, and at its second move names its process ``second-move``
and sleeps: the moment a test acts on its game process, whatever the machine's load. (A file would not
do: an agent's working directory is a file system of its own, which no other process sees.)"""


def _named(name: str) -> bool:
    """Whether a process of this machine is named ``name`` (``/proc/PID/comm``)."""
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == name:
                return True
    return False


def _at_second_move(
    others: set[int], sig: signal.Signals, then: Callable[[], None] = lambda: None
) -> threading.Thread:
    """A started thread that waits (at most 120 s) until :data:`SECOND_MOVE`'s agent names its process,
    then sends ``sig`` to the runner's game processes (this process's children but ``others``), then
    calls ``then``."""

    def act() -> None:
        deadline = time.monotonic() + 120
        while not _named("second-move") and time.monotonic() < deadline:
            time.sleep(0.02)
        for pid in _new_children(others):
            os.kill(pid, sig)
        then()

    thread = threading.Thread(target=act, daemon=True)
    thread.start()
    return thread


def test_a_game_process_that_dies_is_stored_with_the_moves_played(tmp_path):
    """The runner keeps the moves it saw: a game process killed mid-game is stored with them (here in
    its second game: nothing of the first game's moves is counted)."""
    slow = tmp_path / "slow.py"
    slow.write_text(SECOND_MOVE)
    others = set(sandbox.children())  # e.g. the resource tracker of an earlier pool
    second = game_task(
        game_id=1, pair_id=1, first=str(slow), second="leftmost", act_timeout=1.0, seed=7
    )  # Kaggle's limit: no hurry
    games = run_games([_task(0, "leftmost", "leftmost"), second], workers=1)
    killer = _at_second_move(others, signal.SIGKILL)
    first, record = games
    killer.join()
    assert first.game_id == 0 and first.termination is Termination.WIN
    assert record.termination is Termination.ERROR and "game process died" in record.detail
    assert record.moves == (6, 0)  # killed during the rightmost player's second move


def test_a_game_process_that_dies_between_games_is_replaced():
    tasks = [_task(0, "leftmost", "leftmost"), _task(1, "random", "leftmost")]
    others = set(sandbox.children())  # e.g. the resource tracker of an earlier pool
    games = run_games(tasks, workers=1)
    first = next(games)  # its game process now waits for the next game, which it will not get
    (pid,) = _new_children(others)
    os.kill(pid, signal.SIGKILL)
    while Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z":  # until it has died
        time.sleep(0.01)
    (second,) = games
    assert (first.game_id, second.game_id) == (0, 1)
    assert second.termination in (Termination.WIN, Termination.DRAW), second.detail


def test_a_game_process_whose_zygote_died_starts_another():
    """The zygote that forks a game process's hosts is replaced when it dies between games (an agent
    without a user of its own could kill it), and the next game is played as usual."""
    tasks = [_task(0, "leftmost", "leftmost"), _task(1, "random", "leftmost")]
    others = set(sandbox.children())  # e.g. the resource tracker of an earlier pool
    games = run_games(tasks, workers=1)
    first = next(games)  # its game process now waits for the next game
    (game_process,) = _new_children(others)
    (zygote,) = Path(f"/proc/{game_process}/task/{game_process}/children").read_text().split()
    os.kill(int(zygote), signal.SIGKILL)
    while Path(f"/proc/{zygote}/stat").read_text().split(")")[-1].split()[0] != "Z":  # until it has died
        time.sleep(0.01)
    (second,) = games
    assert isinstance(second, GameRecord), second
    assert (first.game_id, second.game_id) == (0, 1)
    assert second.termination in (Termination.WIN, Termination.DRAW), second.detail


def test_a_relative_agent_path_means_what_it_meant_where_the_run_started(monkeypatch):
    monkeypatch.chdir(HERE)
    (record,) = run_games([_task(0, "last_callable.py", "leftmost")], workers=1)
    assert record.offender is None and record.moves[0] == 6, record.detail


class _Clock:
    """``time`` as :mod:`tournament.runner` reads it, :func:`time.monotonic` but for the seconds skipped."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += seconds


def test_a_game_process_that_stalls_is_killed_and_the_agent_to_move_times_out(tmp_path, monkeypatch):
    """The watchdog: a game process silent for longer than a move may take (here it is stopped) is
    killed, and the agent whose turn it was forfeits, with the moves played until then; nothing of
    the game is left, not even its agents' working directories. A child this process had before the
    run (a notebook's, a test's browser) is not the game's to kill."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the games' scratch folders, looked at below
    slow = tmp_path / "slow.py"
    slow.write_text(SECOND_MOVE)
    task = game_task(
        first=str(slow), second="leftmost", act_timeout=1.0, hang_limit=2.0, seed=7
    )  # the stop comes first
    clock = _Clock()  # the runner's clock: once the game process is stopped, its limit passes at once
    monkeypatch.setattr(runner, "time", clock)
    bystander = subprocess.Popen(["sleep", "600"])
    others = set(sandbox.children())  # e.g. the resource tracker of an earlier pool
    games = run_games([task], workers=1)
    stopper = _at_second_move(others, signal.SIGSTOP, then=lambda: clock.skip(stall_limit(task)))
    try:
        (record,) = games
        stopper.join()
        assert bystander.poll() is None  # the game process killed, and what it left, but not this
    finally:
        bystander.kill()
        bystander.wait()
    assert record.termination is Termination.TIMEOUT and "held the game process" in record.detail
    assert record.moves == (6, 0) and record.offender == 1  # stopped during its second move
    assert not list(tmp_path.glob("connectx-*"))  # its agents' directories are gone too


def test_killing_what_games_left_spares_multiprocessings_resource_tracker() -> None:
    """The runner kills every process its games left, but not the resource tracker that
    ``multiprocessing`` started for it (a pool, say): killed, it is started again with a warning that it
    "died unexpectedly". A fresh interpreter, which owns no other child."""
    import subprocess
    import sys

    script = (
        "import os, time, warnings\n"
        "from multiprocessing import resource_tracker\n"
        "from tournament.sandbox import become_subreaper, children, kill_descendants\n"
        "resource_tracker.ensure_running()\n"
        "become_subreaper()\n"
        "if os.fork() == 0:\n"
        "    time.sleep(600)\n"
        "    os._exit(0)\n"
        "kill_descendants()\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('error')\n"
        "    resource_tracker.ensure_running()\n"
        "print(len(children()))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]  # the tracker alone


def test_game_processes_hold_none_of_the_runners_descriptors(tmp_path) -> None:
    """A run's lock (an ``flock``, held by every process that has it open) and its store stay the
    runner's: a game process keeps no descriptor of its parent's but its pipe, so a run killed with -9
    frees its directory at once, not once its game processes have died too."""
    held = tmp_path / "tournament.lock"
    with open(held, "w") as lock:
        assert os.path.samefile(f"/proc/self/fd/{lock.fileno()}", held)
        slow = tmp_path / "slow.py"
        slow.write_text(SECOND_MOVE)
        others = set(sandbox.children())  # e.g. the resource tracker of an earlier pool
        seen: dict[int, list[str]] = {}

        def look_then_kill() -> None:
            deadline = time.monotonic() + 120
            while not _named("second-move") and time.monotonic() < deadline:
                time.sleep(0.02)
            for pid in _new_children(others):
                seen[pid] = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
                os.kill(pid, signal.SIGKILL)

        games = run_games([game_task(first=str(slow), second="leftmost", act_timeout=1.0, seed=7)], workers=1)
        looker = threading.Thread(target=look_then_kill, daemon=True)
        looker.start()
        (record,) = games
        looker.join()
    assert seen and all(str(held) not in targets for targets in seen.values()), seen
    assert record.termination is Termination.ERROR and record.moves == (6, 0)
