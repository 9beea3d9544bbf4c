"""The second ring of containment (issue 53; ``docs/sandbox.md``): no IPC channel between the agents
of a game, memory counted for an agent's whole process tree, bounded files, no pathname Unix socket
of the machine, no other process's pid, and the training environment's spec opponents sandboxed.

Each case is played against real hosts, as root, where the machine has the mechanism (each test
says which it needs). Which mechanism is chosen without each, for both rings
(:func:`tournament.sandbox.isolation.choose`), and the line that says so, are tested last. Each
hostile agent reports what it found by raising it (its game's detail); each is also run outside the
sandbox, in this process, to show that the attack works there, so that each test can fail.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import os
import re
import shutil
import socket
import tempfile
from types import SimpleNamespace

import pytest

from tests.records import game_task
from tournament.limits import Limits
from tournament.record import GameRecord, Termination
from tournament.runner import run_games
from tournament.sandbox import isolation, landlock, memory, mounts, namespaces
from tournament.sandbox.isolation import Machine, choose, describe
from tournament.schedule import GameTask

PLAN = isolation.plan()
needs = {
    "ipc": pytest.mark.skipif(not PLAN.ipc, reason="no IPC namespace on this machine"),
    "memory": pytest.mark.skipif(PLAN.memory == isolation.ADDRESS_SPACE, reason="no memory cgroup"),
    "mounts": pytest.mark.skipif(not PLAN.private, reason="no mounts of the agents' own"),
    "pids": pytest.mark.skipif(not PLAN.pids, reason="no pid namespace on this machine"),
}

KEY = 0x435A9999
QUEUE = b"/connectx-ring"
IPC = f"""import ctypes, ctypes.util, os

libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]


def agent(obs, config):
    note = f"mark {{obs.mark}}".encode()
    segment = libc.shmget({KEY}, 4096, 0o1666)  # IPC_CREAT | 0666
    if segment >= 0:
        address = libc.shmat(segment, None, 0)
        found = ctypes.string_at(address, 16).rstrip(b"\\0")
        if found and found != note:
            raise RuntimeError(f"read {{found!r}} in shared memory")
        ctypes.memmove(address, note, len(note))
        libc.shmdt(address)
    queue = rt.mq_open({QUEUE!r}, os.O_CREAT | os.O_RDWR | os.O_NONBLOCK, 0o666, None)
    if queue >= 0:
        buffer = ctypes.create_string_buffer(1 << 14)
        got = rt.mq_receive(queue, buffer, len(buffer), None)
        if got > 0 and buffer.raw[:got] != note:
            raise RuntimeError(f"read {{buffer.raw[:got]!r}} in a message queue")
        rt.mq_send(queue, note, len(note), 0)
        os.close(queue)
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""

MEMORY = """import ctypes, os, time

STEP = ({limit} << 20) // 5
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
kept = []


def child():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        block = bytearray(STEP)
        block[::4096] = b"1" * len(range(0, STEP, 4096))
        os.write(write, b"1")
        time.sleep(600)
        os._exit(0)
    os.close(write)
    if os.read(read, 1) != b"1":
        raise OSError("the child died")
    return pid


def segment():
    number = libc.shmget(0, STEP, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if number < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    piece = STEP // 8  # attached a piece at a time: the agent stays smaller than a child to the OOM killer
    for start in range(0, STEP, piece):
        address = libc.shmat(number, None, 0)
        ctypes.memset(address + start, 1, min(piece, STEP - start))
        libc.shmdt(address)


def memfd():
    fd = os.memfd_create("held")
    for _ in range(STEP >> 20):
        os.write(fd, bytes(1 << 20))
    kept.append(fd)


def agent(obs, config):
    children, held = [], 0
    try:
        for kind in ["child"] * 4 + ["segment"] * 3 + ["memfd"] * 6:
            if kind == "child":
                children.append(child())
            else:
                (segment if kind == "segment" else memfd)()
            held += STEP
            time.sleep(0.05)  # for a process the kernel killed to be gone
            dead = [pid for pid in children if os.waitpid(pid, os.WNOHANG)[0]]
            if dead:
                held -= STEP * len(dead)
                break
    except OSError as error:
        raise RuntimeError(f"held {{held >> 20}} MiB: {{error}}") from None
    raise RuntimeError(f"held {{held >> 20}} MiB")
"""

FILES = """import os


def agent(obs, config):
    made = {}
    for folder in (".", "/dev/shm"):
        count, error = 0, None
        try:
            while count < 150_000:
                os.close(os.open(f"{folder}/f{count}", os.O_CREAT | os.O_WRONLY, 0o600))
                count += 1
        except OSError as failure:
            error = failure.strerror
        made[folder] = (count, error)
    raise RuntimeError(f"made {made!r}")
"""

SOCKET = """import socket


def agent(obs, config):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        try:
            client.connect({path!r})
        except OSError as error:
            raise RuntimeError(f"refused: {{type(error).__name__}}") from None
    raise RuntimeError("connected")
"""

PIDS = """import os


def agent(obs, config):
    found = []
    for pid in sorted({{*range(1, 1 << 15), *{pids!r}}}):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        found.append(pid)
    listed = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    raise RuntimeError(f"found {{found}}, own {{[os.getpid()]}}, /proc {{listed}}")
"""


def _task(game_id: int, first: str, second: str = "leftmost", act_timeout: float = 60.0) -> GameTask:
    return game_task(game_id=game_id, pair_id=game_id, first=first, second=second, act_timeout=act_timeout)


def _reported(record: GameRecord, what: str) -> str:
    """What the hostile agent raised, starting with ``what``."""
    found = re.search(rf"RuntimeError: ({what}[^\n]*)", record.detail)
    assert found, record.detail
    return found.group(1)


def _in_process(source: str, mark: int = 1) -> str:
    """Run the agent of ``source`` once in this process (outside the sandbox): what it raised."""
    space: dict = {}
    exec(compile(source, "agent.py", "exec"), space)
    obs, config = SimpleNamespace(board=[0] * 42, mark=mark), SimpleNamespace(columns=7)
    try:
        return f"returned {space['agent'](obs, config)}"
    except RuntimeError as error:
        return str(error)


@pytest.fixture(scope="module")
def listener():
    """A Unix socket the runner, and any user, may connect to: mode 0777, in a folder of mode 0777
    under ``/tmp``, as the sweep's root listener was. Yields its path and the socket."""
    folder = tempfile.mkdtemp(prefix="connectx-ring-", dir="/tmp")
    os.chmod(folder, 0o777)
    path = os.path.join(folder, "listener.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen(8)
    server.setblocking(False)
    try:
        yield path, server
    finally:
        server.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def played(tmp_path_factory, listener) -> dict[str, GameRecord]:
    """The module's games but the memory hog's, in one run with one worker, by name."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    folder = tmp_path_factory.mktemp("ring")
    sources = {
        "ipc": IPC,
        "files": FILES,
        "socket": SOCKET.format(path=listener[0]),
        "pids": PIDS.format(pids=[os.getpid(), os.getppid()]),
    }
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source)
    cases = {name: _task(number, str(folder / f"{name}.py")) for number, name in enumerate(sources)}
    cases["ipc"] = _task(0, str(folder / "ipc.py"), str(folder / "ipc.py"))
    records = {record.game_id: record for record in run_games(list(cases.values()), 1, Limits(shm_mb=256))}
    return {name: records[task.game_id] for name, task in cases.items()}


def _queue(name: bytes) -> int:
    """``mq_open(name, O_RDONLY)`` in this process's IPC namespace: a descriptor, or -errno."""
    rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
    rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
    fd = rt.mq_open(name, os.O_RDONLY)
    return fd if fd >= 0 else -ctypes.get_errno()


def _segment(key: int) -> int:
    """``shmget(key, 0, 0)`` in this process's IPC namespace: the segment's id, or -errno."""
    number = ctypes.CDLL(None, use_errno=True).shmget(key, 0, 0)
    return number if number >= 0 else -ctypes.get_errno()


@needs["ipc"]
def test_two_agents_find_no_ipc_channel_between_them_and_nothing_outlives_the_game(played):
    record = played["ipc"]  # each writes its note in a segment and a queue, and looks for the other's
    assert record.offender is None and record.termination is Termination.WIN, record.detail
    assert _segment(KEY) < 0 and _queue(QUEUE) < 0  # nothing left on the machine
    libc = ctypes.CDLL(None, use_errno=True)
    rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
    try:  # outside the sandbox, in one namespace, the second agent reads the first one's note
        assert _in_process(IPC, mark=1).startswith("returned")
        assert _in_process(IPC, mark=2) == "read b'mark 1' in shared memory"
    finally:
        if (number := _segment(KEY)) >= 0:
            libc.shmctl(number, 0, None)  # IPC_RMID
        rt.mq_unlink(QUEUE)


@needs["memory"]
def test_memfds_segments_and_children_together_hold_at_most_the_memory_limit(tmp_path):
    """The agent holds children's memory, System V segments and memfds, a fifth of its limit at a
    time, up to 2.6 times its limit, until the kernel kills one of its children; it then says what
    it holds. Outside a memory cgroup each piece is under ``RLIMIT_AS``, and it holds all 2.6 times."""
    limit = 256
    agent = tmp_path / "memory.py"
    agent.write_text(MEMORY.format(limit=limit))
    (record,) = run_games([_task(0, str(agent))], 1, Limits(memory_mb=limit))
    held = int(_reported(record, "held").split()[1])
    assert 0.4 * limit <= held <= 1.25 * limit, record.detail


@needs["mounts"]
def test_an_agent_cannot_make_more_than_100_000_files_in_a_folder(played):
    made = eval(_reported(played["files"], "made").removeprefix("made "))  # noqa: S307 - our agent's dict
    for folder in (".", "/dev/shm"):
        count, error = made[folder]
        assert mounts.FILES - 10 <= count < mounts.FILES and error == "No space left on device", made


@needs["mounts"]
def test_an_agent_cannot_connect_to_a_pathname_unix_socket_the_runner_can_reach(played, listener):
    path, server = listener
    assert _reported(played["socket"], "refused").startswith("refused: ")
    with contextlib.suppress(BlockingIOError):
        server.accept()
        pytest.fail("the agent's connection reached the listener")
    assert _in_process(SOCKET.format(path=path)) == "connected"  # the runner can: the test can fail
    server.accept()[0].close()


@needs["pids"]
def test_kill_pid_0_and_proc_find_only_the_agents_own_processes(played):
    said = _reported(played["pids"], "found")
    found, own, listed = re.fullmatch(r"found (\[.*\]), own (\[.*\]), /proc (\[.*\])", said).groups()
    assert set(eval(found)) <= set(eval(own)) and set(eval(listed)) <= set(eval(own)), said  # noqa: S307
    assert str(os.getpid()) in _in_process(PIDS.format(pids=[os.getpid()]))  # outside, it finds this one


ESCAPE = """def agent(obs, config):
    try:
        with open({path!r}, "w") as file:
            file.write("out of the sandbox")
    except OSError:
        pass
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""


@pytest.mark.skipif(os.geteuid() != 0 and not landlock.abi(), reason="no users of their own nor Landlock")
def test_the_environments_file_opponent_cannot_write_outside_its_sandbox(tmp_path):
    """The opponent writes a file beside the training's files at each move, or tries to; in the
    sandbox it cannot, and the episode is played all the same. Loaded in this process by name
    (``in_process=True``), it can."""
    from training.envs.single import ConnectXEnv

    target = tmp_path / "escaped.txt"
    opponent = tmp_path / "opponent.py"
    opponent.write_text(ESCAPE.format(path=str(target)))
    for in_process in (False, True):
        env = ConnectXEnv(opponent=str(opponent), in_process=in_process)
        try:
            assert env.opponent.sandboxed is not in_process
            _, info = env.reset(seed=0)
            done = False
            while not done:
                _, _, done, _, info = env.step(int(info["action_mask"].argmax()))
        finally:
            env.close()
        assert info["offender"] is None and len(info["moves"]) > 6, info
        assert target.exists() == in_process


# ---- the fallbacks of both rings ----


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_without_ipc_or_pid_namespaces_nor_a_memory_cgroup_the_hosts_still_play(tmp_path, monkeypatch):
    """The fallbacks in a real host: without IPC and pid namespaces and a memory cgroup (a container
    that refuses them), the agent plays, as a process of the machine's pid namespace (it finds the
    runner's pids) bounded by ``RLIMIT_AS``; the line says what is left open."""
    monkeypatch.setattr(namespaces, "possible", lambda flag: False)
    monkeypatch.setattr(memory, "root", lambda: None)
    plan = isolation.plan()
    assert (plan.ipc, plan.pids, plan.memory) == (False, False, isolation.ADDRESS_SPACE)
    line = isolation.describe_isolation()
    assert "no IPC namespace" in line and "no pid namespace" in line and "no memory cgroup" in line
    agent = tmp_path / "pids.py"
    agent.write_text(PIDS.format(pids=[os.getpid()]))
    (record,) = run_games([_task(0, str(agent))], 1)
    found, own, _ = re.fullmatch(
        r"found (\[.*\]), own (\[.*\]), /proc (.*)", _reported(record, "found")
    ).groups()
    assert os.getpid() in eval(found) and eval(own) != [1]  # noqa: S307 - lists of ints


FACTS = Machine(
    landlock=7,
    root=True,
    mounts=True,
    capability=False,
    network=True,
    cgroup=True,
    seccomp=True,
    ipc=True,
    pids=True,
    memory=2,
)
FULL = ("namespace", True, "cgroup", True, True, True, "cgroup v2")


@pytest.mark.parametrize(
    ("missing", "chosen", "said"),
    [
        ({}, FULL, "own network, own IPC, own pids, own /dev/shm and working directory (tmpfs)"),
        (  # not root: no namespaces, mounts or cgroups
            {"root": False, "mounts": False, "network": False, "cgroup": False},
            ("landlock", False, "signals", True, False, False, "RLIMIT_AS"),
            "no TCP (Landlock), memory of each process (RLIMIT_AS), stopped between moves (SIGSTOP)",
        ),
        ({"network": False, "landlock": 3}, ("open", *FULL[1:]), "agents reach the network"),
        ({"cgroup": False}, (*FULL[:2], "signals", *FULL[3:]), "a process an agent disowns escapes SIGSTOP"),
        ({"seccomp": False}, (*FULL[:3], False, *FULL[4:]), "agents may widen their CPUs"),
        (
            {"mounts": False},
            (FULL[0], False, *FULL[2:]),
            "/dev/shm is shared, the disk bounded per file, not in all, files unbounded in number, "
            "the machine's Unix sockets reachable",
        ),
        (
            {"ipc": False},
            (*FULL[:4], False, *FULL[5:]),
            "System V shared memory and message queues are the machine's",
        ),
        (
            {"pids": False},
            (*FULL[:5], False, FULL[6]),
            "no pid namespace: kill(pid, 0) tells which pids exist",
        ),
        (
            {"memory": 0},
            (*FULL[:6], "RLIMIT_AS"),
            "children, memfd and shared memory escape the memory limit",
        ),
        ({"memory": 1}, (*FULL[:6], "cgroup v1"), "memory of each agent's processes in all (cgroup v1)"),
    ],
)
def test_each_mechanism_falls_back_and_the_isolation_line_says_so(missing, chosen, said):
    facts = dataclasses.replace(FACTS, **missing)
    plan = choose(facts)
    assert (
        plan.network,
        plan.private,
        plan.freezer,
        plan.affinity,
        plan.ipc,
        plan.pids,
        plan.memory,
    ) == chosen
    line = describe(facts)
    assert line.startswith("isolation: ") and said in line
    complete = not missing or missing == {"memory": 1}  # cgroup v1's memory controller leaves nothing open
    assert line.endswith("(seccomp)") == complete  # what is missing is said last, in parentheses
