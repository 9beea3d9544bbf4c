"""An agent leans on nothing beyond its own game: no network, no shared memory, no disk but its own,
no CPU time after its move (issue 44; ``docs/sandbox.md``).

Each case is played against real hosts, as root (as CI and containers run), on this kind of machine
(a network namespace, mounts, cgroup v2, seccomp): the games of the module's fixture are played in
one run, one at a time. The fallbacks are tested too: Landlock's TCP rules in a real host, the
``SIGSTOP`` freezer, and the store's room on a disk that fills; the choice of each fallback and the
line that says so are ``tests/test_containment_ring.py``'s.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.records import game_task
from tournament import runner
from tournament.driver import Tournament
from tournament.limits import Limits
from tournament.record import GameRecord, Termination
from tournament.runner import run_games
from tournament.sandbox import freezer, isolation, landlock, network, seccomp
from tournament.schedule import GameTask, Settings, schedule
from tournament.store import Store, StoreError
from tournament.store.reserve import RESERVE_NAME

ROOT = Path(__file__).parent.parent
CHEATS, MISBEHAVING = ROOT / "tests" / "cheats", ROOT / "tests" / "misbehaving"

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="namespaces, mounts and cgroups need root")
full = pytest.mark.skipif(
    os.geteuid() != 0 or not isolation.plan().private or isolation.plan().network != isolation.NAMESPACE,
    reason="needs root with mount and network namespaces",
)

mounting = pytest.mark.skipif(
    os.geteuid() != 0 or not isolation.view_possible(), reason="mounting a tmpfs needs CAP_SYS_ADMIN"
)

MCTS = "mcts:rollouts=1500"
"""The hog's opponent: about 0.15 s of CPU time for each of its first moves here."""
SHM_MB = 4

SHM_FILLER = """import os


def agent(obs, config):
    written = 0
    try:
        with open("/dev/shm/filler", "wb") as file:
            while written < 64:
                file.write(bytes(1 << 20))
                file.flush()
                written += 1
    except OSError as error:
        raise RuntimeError(f"wrote {written} MiB to /dev/shm: {error}") from None
    raise RuntimeError(f"wrote {written} MiB to /dev/shm")
"""

AFFINITY = """import os


def agent(obs, config):
    try:
        os.sched_setaffinity(0, range(os.cpu_count()))
    except OSError as error:
        raise RuntimeError(f"refused: {type(error).__name__}") from None
    raise RuntimeError(f"widened to {sorted(os.sched_getaffinity(0))}")
"""


class Listeners:
    """A TCP listener and a UDP socket on 127.0.0.1, at ports chosen by the kernel, that count what
    reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.tcp.setblocking(False)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.setblocking(False)
        self.ports = self.tcp.getsockname()[1], self.udp.getsockname()[1]

    def reached(self) -> tuple[int, int]:
        """Connections accepted and datagrams received since the last call."""
        counts = [0, 0]
        for index, take in enumerate((self.tcp.accept, lambda: self.udp.recvfrom(100))):
            with contextlib.suppress(BlockingIOError):
                while True:
                    taken = take()
                    if index == 0:
                        taken[0].close()
                    counts[index] += 1
        return counts[0], counts[1]

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


def _network_cheat(folder: Path, listeners: Listeners) -> Path:
    """``tests/cheats/network.py`` aimed at ``listeners``."""
    tcp, udp = listeners.ports
    text = (CHEATS / "network.py").read_text()
    text = text.replace("UDP_PORTS = []", f"UDP_PORTS = [{udp}]").replace(
        "\nPORTS = []", f"\nPORTS = [{tcp}]"
    )
    path = folder / "network.py"
    path.write_text(text)
    return path


def _task(game_id: int, first: str, second: str = "leftmost", act_timeout: float = 5.0) -> GameTask:
    return game_task(game_id=game_id, pair_id=game_id, first=first, second=second, act_timeout=act_timeout)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[dict[str, GameRecord], tuple[int, int]]:
    """The module's games, in one run with one worker: each case's games by name, and what reached
    the listeners."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    folder = tmp_path_factory.mktemp("containment")
    listeners = Listeners()
    (folder / "shm_filler.py").write_text(SHM_FILLER)
    (folder / "affinity.py").write_text(AFFINITY)
    cases = {
        "network": _task(0, str(_network_cheat(folder, listeners))),
        "shared memory": _task(1, str(CHEATS / "shared_memory.py"), str(CHEATS / "shared_memory.py")),
        "shm filler": _task(2, str(folder / "shm_filler.py")),
        "affinity": _task(3, str(folder / "affinity.py")),
    }
    tasks = list(cases.values())
    try:
        by_id = {record.game_id: record for record in run_games(tasks, 1, Limits(shm_mb=SHM_MB))}
        reached = listeners.reached()
    finally:
        listeners.close()
    return {name: by_id[task.game_id] for name, task in cases.items()}, reached


@full
def test_an_agent_cannot_connect_to_a_listener_on_127_0_0_1_nor_send_it_a_datagram(played, tmp_path):
    records, reached = played
    record = records["network"]
    assert record.offender is None, record.detail  # it reached nothing: it played leftmost
    assert reached == (0, 0)
    listeners = Listeners()  # the same agent outside the sandbox reaches them: the test can tell
    try:
        cheat = {}
        exec(compile(_network_cheat(tmp_path, listeners).read_text(), "network.py", "exec"), cheat)
        with pytest.raises(RuntimeError, match="reached"):
            cheat["agent"](SimpleNamespace(board=[0] * 42, mark=1), SimpleNamespace(columns=7))
        assert listeners.reached() == (1, 1)
    finally:
        listeners.close()


@full
def test_an_agent_cannot_see_its_opponents_dev_shm_file_nor_write_more_than_its_limit(played):
    records, _ = played
    both = records["shared memory"]  # each writes a note there and looks for the other's
    assert both.offender is None and both.termination is Termination.WIN, both.detail
    filler = records["shm filler"]
    assert filler.termination is Termination.ERROR and filler.offender == 1
    assert f"wrote {SHM_MB} MiB to /dev/shm: [Errno 28] No space left on device" in filler.detail
    assert not Path("/dev/shm/filler").exists()


@as_root
def test_an_agent_cannot_widen_its_cpus(played):
    records, _ = played
    expected = "refused: PermissionError" if isolation.plan().affinity else "widened"
    assert expected in records["affinity"].detail


@full
def test_an_agent_that_leaves_40_spinning_children_takes_no_cpu_time_while_its_opponent_moves():
    """What the sandbox controls of the opponent's move times (the wall-clock figure, which measures
    the machine's load as much, is ``benchmarks/spinners.py``'s): once the hog's move has returned,
    its 40 children, in sessions of their own, take no CPU time while its opponent (MCTS, fixed
    rollouts) computes three moves, for which its own processes are charged; thawed, they spin (so
    the test can tell)."""
    from agents.engine.board import Board
    from agents.kit.adapter import observation
    from agents.kit.clock import Clock
    from tournament.sandbox import AgentProcess, claim_slots

    board = Board()
    with claim_slots(1) as (slot,):
        hog = AgentProcess(str(MISBEHAVING / "spins_children.py"), 1, seed=1, global_seed=1, slot=slot)
        opponent = AgentProcess(MCTS, 2, seed=2, global_seed=2, slot=slot)
        try:
            board.push(hog(*observation(board, Clock())))
            assert _wait_for(lambda: len(freezer.tree(hog.pid)) >= 40), freezer.tree(hog.pid)
            spinners = freezer.tree(hog.pid)
            charged = _cpu_ticks(freezer.tree(opponent.pid))
            for _ in range(3):
                before = _cpu_ticks(spinners)
                board.push(opponent(*observation(board, Clock())))
                assert _cpu_ticks(spinners) <= before + 1  # frozen: 40 spinners, at most a tick
                board.push(hog(*observation(board, Clock())))
            assert _cpu_ticks(freezer.tree(opponent.pid)) > charged  # its moves, its own CPU time
            hog._thaw()
            assert _spins(spinners)
        finally:
            hog.close()
            opponent.close()


@full
def test_an_agent_that_fills_its_disk_loses_only_its_own_games_and_every_game_is_stored(tmp_path):
    """``connectx run`` with its temporary folder and ``--out`` on a 24 MiB disk (a tmpfs in a
    mount namespace of the test's own), where an agent writes to its working directory until it
    cannot (``--agent-disk 32``, more than the disk holds): it writes to its own tmpfs, fails there
    (its file is also bounded: ``RLIMIT_FSIZE``), and loses each game it plays; the other games are
    played as usual, and every game is stored."""
    disk, copy = tmp_path / "disk", tmp_path / "copy"
    disk.mkdir()
    filler = str(MISBEHAVING / "fills_its_disk.py")
    command = [sys.executable, "-m", "connectx", "run", "--agents", "random", filler, "leftmost"]
    command += ["--gauntlet", "--games", "1", "--workers", "2", "--openings", "none", "--agent-disk", "32"]
    script = (
        'mount -t tmpfs -o size=24m tmpfs "$0" && cd "$0" && TMPDIR="$0" "$@" --out "$0/run"; code=$?; '
        f'cp -r "$0/run" "{copy}"; exit $code'
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(disk), *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with Store.open(copy) as store:
        records = store.records()
    assert len(records) == 4  # random against each, a game with each colour
    for record in records:
        if filler in (record.first, record.second):
            offender = (record.first, record.second)[record.offender - 1] if record.offender else None
            assert record.termination is Termination.ERROR and offender == filler
            assert "No space left on device" in record.detail or "File too large" in record.detail
        else:
            assert record.offender is None, record.detail


# ---- the fallbacks ----


def test_without_a_network_namespace_landlock_refuses_tcp(tmp_path, monkeypatch):
    """The fallback of a kernel or user that cannot make network namespaces: Landlock's TCP rules
    (ABI 4) refuse a connection to a listener on 127.0.0.1 (UDP is beyond them)."""
    if landlock.abi() < landlock.TCP_ABI:
        pytest.skip("this kernel has no Landlock TCP rules")
    monkeypatch.setattr(network, "possible", lambda: False)
    assert isolation.plan().network == isolation.LANDLOCK_TCP
    listeners = Listeners()
    try:
        (record,) = run_games([_task(0, str(_network_cheat(tmp_path, listeners)))], 1)
        tcp, _ = listeners.reached()
    finally:
        listeners.close()
    assert record.offender is None, record.detail
    assert tcp == 0


def test_the_cgroup_v2_hierarchy_is_found_on_hybrid_and_unified_machines_and_not_on_v1_alone():
    def line(point: str, kind: str) -> str:
        return f"30 23 0:26 / {point} rw,nosuid shared:9 - {kind} {kind} rw"

    v1 = line("/sys/fs/cgroup/cpu", "cgroup")
    assert freezer._cgroup2_mount("\n".join([v1, line("/sys/fs/cgroup/unified", "cgroup2")])) == (
        "/sys/fs/cgroup/unified"
    )
    assert freezer._cgroup2_mount(line("/sys/fs/cgroup", "cgroup2")) == "/sys/fs/cgroup"
    assert freezer._cgroup2_mount(v1) is None
    assert freezer._own_cgroup("0::/\n") == "/" and freezer._own_cgroup("1:cpu:/\n") is None


def _spinning_tree(alone: bool = False) -> tuple[int, int]:
    """A process that, once told (a byte on the pipe whose writing end is returned with its pid),
    starts two children spinning in sessions of their own, one of them orphaned to it (it is a
    subreaper, as a host frozen by signals is); or, ``alone``, spins itself."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(write)
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        os.read(read, 1)
        while alone:
            pass
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    pass
            os._exit(0)  # its child is orphaned to the subreaper
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
        while True:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(-1, 0)
            time.sleep(0.01)
    os.close(read)
    return pid, write


def _cpu_ticks(pids: list[int]) -> int:
    """The CPU time ``pids`` used so far, in clock ticks (``/proc/PID/stat``: utime, stime)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total


def _spins(pids: list[int], seconds: float = 0.3) -> bool:
    before = _cpu_ticks(pids)
    time.sleep(seconds)
    return _cpu_ticks(pids) > before + 1


def _wait_for(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("kind", ["signals", "cgroup", "cgroup, alone"])
def test_a_freezer_stops_every_process_of_a_tree_and_resumes_them(kind):
    """A host's tree, children in sessions of their own and an orphan included, takes no CPU time
    while frozen, and spins again once thawed: in a cgroup of its own (placed there before it
    forks, as a host is; a host alone in it is stopped by a signal), or by signals."""
    if kind.startswith("cgroup") and freezer.root() is None:
        pytest.skip("no cgroup v2 this process may freeze in")
    pid, go = _spinning_tree(alone=kind.endswith("alone"))
    try:
        if kind.startswith("cgroup"):
            assert freezer.place(pid)
        os.write(go, b"!")
        assert _wait_for(lambda: len(freezer.tree(pid)) == (1 if kind.endswith("alone") else 3))
        tree = freezer.tree(pid)
        chosen = freezer.freezer(pid) if kind.startswith("cgroup") else freezer.SignalFreezer(pid)
        assert isinstance(
            chosen, freezer.CgroupFreezer if kind.startswith("cgroup") else freezer.SignalFreezer
        )
        chosen.freeze()
        assert not _spins(tree)
        chosen.thaw()
        assert _spins(tree)
        chosen.kill()
        chosen.close()
    finally:
        os.close(go)
        for each in freezer.tree(pid)[::-1]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(each, signal.SIGKILL)
        os.waitpid(pid, 0)
        freezer.remove(pid, wait=1.0)


def test_seccomp_refuses_sched_setaffinity_alone():
    if not seccomp.available():
        pytest.skip("no seccomp filter for this machine")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        outcome = b"?"
        try:
            ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
            seccomp.lock_affinity()
            cpus = os.sched_getaffinity(0)  # still answers, as does every other call
            try:
                os.sched_setaffinity(0, cpus)
                outcome = b"allowed"
            except PermissionError:
                outcome = b"refused"
        finally:
            os.write(write, outcome)
            os._exit(0)
    os.close(write)
    answer = os.read(read, 16)
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == b"refused"


# ---- the store on a disk that fills ----


def _fill(folder: Path) -> None:
    """Write into ``folder`` until its disk is full."""
    with contextlib.suppress(OSError), open(folder / "flood", "ab") as file:
        while True:
            file.write(bytes(1 << 20))
            file.flush()


@mounting
def test_a_disk_that_fills_during_a_run_loses_no_game_played_and_the_run_stops_before_the_next(tmp_path):
    """The store's fallback, for a disk filled by anything: the game that finds it full is stored in
    the room the run kept (``tournament.reserve``), and the run stops before the next game, saying
    why. Played on a 32 MiB tmpfs in a mount namespace of a child process's own; the games come from
    a stand-in for the runner, which fills the disk after the second game."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        said = "?"
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.unshare(0x00020000) == 0  # CLONE_NEWNS
            assert libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) == 0  # MS_REC | MS_PRIVATE
            assert libc.mount(b"tmpfs", str(tmp_path).encode(), b"tmpfs", 0, b"size=32m") == 0
            said = _fill_during_a_run(tmp_path / "run")
        except BaseException as error:  # noqa: BLE001 - reported to the test
            said = f"failed: {error!r}"
        finally:
            os.write(write, said.encode())
            os._exit(0)
    os.close(write)
    with open(read, "rb") as answer:
        said = answer.read().decode()
    os.waitpid(pid, 0)
    stored, message, left = said.split("|")
    assert stored == "0 1 2", said  # the third game, played while the disk filled, too
    assert "the disk of" in message and "is full" in message and "stopped before the next game" in message
    assert "with 3 of 4 games stored" in message
    assert left == "False"  # the reserve goes with the run


def _fill_during_a_run(out: Path) -> str:
    """Play a 4-game tournament into ``out`` through a stand-in runner that fills the disk after the
    second game; ``"ids stored|message|reserve left"``."""
    yielded = []

    def play(tasks: list[GameTask], workers: int, limits: Limits):
        for task in tasks:
            if len(yielded) == 2:
                _fill(out.parent)
            yielded.append(task.game_id)
            yield GameRecord.ended(task, (0, 1, 0, 1, 0, 1, 0), (0.01,) * 7, duration=0.1, started_at="now")

    runner.run_games = play  # the child's own module, which the driver imports when it plays
    settings = Settings(entrants=("a", "b"), games=2)
    message = ""
    with Tournament(out, settings) as tournament:
        assert len(schedule(tournament.settings)) == 4
        try:
            tournament.play()
        except StoreError as error:
            message = str(error)
    with sqlite3.connect(out / "tournament.db") as db:
        ids = sorted(row[0] for row in db.execute("SELECT game_id FROM games"))
    return f"{' '.join(map(str, ids))}|{message}|{(out / RESERVE_NAME).exists()}"
