"""Agents cannot touch the referee, the opponent, the store or the runner (``tests/cheats/``), nor
read or write files beyond their own.

Each cheating agent tries its attack at every move and otherwise plays leftmost, in a gauntlet
against ``minimax:depth=2`` through the command line (any agent that beats leftmost would do; this
one needs no solver to start in each game). Every attack must fail: the opponent wins every game by four
in a row (no forfeit by either side), the run finishes, and the store holds exactly the games played.
The snooping agent (``tests/cheats/snoop.py``) also plays a rival whose file holds a secret, and must
play the game it would have played had it not looked. Hosts hold no capability; the fallbacks (no
Landlock, no mount namespace) still play. Running as root (as CI and containers do) gives each agent
a user of its own; without root some of these attacks are out of the sandbox's reach (README: threat
model), and those tests are skipped, as are those of Landlock on a kernel without it.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from connectx.cli import main
from tests.records import game_task
from tournament import sandbox
from tournament.limits import Limits
from tournament.record import GameRecord, Termination
from tournament.runner import run_games
from tournament.sandbox import AGENT_UID_BASE, confinement, isolation, landlock, memory
from tournament.sandbox.mounts import View
from tournament.sandbox.rules import Shared, allow_own
from tournament.scratch import Scratch
from tournament.store import Store

ROOT = Path(__file__).parent.parent
CHEATS = sorted((ROOT / "tests" / "cheats").glob("*.py"))
MISBEHAVING = ROOT / "tests" / "misbehaving"
OPPONENT = "minimax:depth=2"

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="agents get users of their own only when run as root")
with_landlock = pytest.mark.skipif(
    not landlock.abi(),
    reason="this kernel has no Landlock (Linux >= 5.13, enabled): agents read what any user may",
)


@as_root
def test_every_cheat_loses_every_game_and_the_store_holds_exactly_the_games_played(
    tmp_path, capsys, reported
):
    out = tmp_path / "run"
    args = ["run", "--agents", OPPONENT, *map(str, CHEATS), "--gauntlet", "--games", "1"]
    assert main([*args, "--openings", "none", "--out", str(out), "--workers", "2"]) == 0
    capsys.readouterr()
    assert reported == [out]  # the run got to its end
    with Store.open(out) as store:
        records = store.records()
    assert sorted(record.game_id for record in records) == list(range(2 * len(CHEATS)))
    for record in records:
        assert record.termination is Termination.WIN, (record.first, record.second, record.detail)
        assert record.score_of(OPPONENT) == 1.0, (record.first, record.second)
    with sqlite3.connect(out / "tournament.db") as db:  # nothing beside the records either
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == len(records)
    assert oct(out.stat().st_mode & 0o777) == "0o700"


@as_root
def test_no_process_outlives_its_game(tmp_path, capsys, reported):
    """An agent whose children fork children, some in sessions of their own, leaves no process behind
    once the run (in this process, which outlives it) is over."""
    spawner = tmp_path / "spawner.py"
    spawner.write_text(
        "import os, time\n"
        "def agent(obs, config):\n"
        "    for _ in range(5):\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(600)\n"
        "            time.sleep(600)\n"
        "    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n"
    )
    out = tmp_path / "run"
    assert main(["run", "--agents", "leftmost", str(spawner), "--games", "1", "--openings", "none",
                 "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    assert reported == [out]
    deadline = time.monotonic() + 10  # killed before the run ended; /proc may show them a moment longer
    while (
        left := [line for line in _agent_processes() if str(spawner) in line]
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []


def _agent_processes() -> list[str]:
    """The command lines of living processes whose user is one of the agents' (any slot)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            uid = int((proc / "status").read_text().split("Uid:")[1].split()[0])
            if AGENT_UID_BASE <= uid < AGENT_UID_BASE + 1000:
                found.append((proc / "cmdline").read_text())
        except (OSError, IndexError, ValueError):
            continue
    return found


def _limited_game(tmp_path: Path, source: str, limits: Limits) -> GameRecord:
    agent = tmp_path / "agent.py"
    agent.write_text(source)
    task = game_task(first=str(agent), second="leftmost")
    (record,) = run_games([task], workers=1, limits=limits)
    return record


@pytest.mark.parametrize("cgroup", [True, False], ids=["memory cgroup", "RLIMIT_AS"])
def test_an_agent_over_its_memory_limit_loses_by_error_and_the_detail_says_why(tmp_path, monkeypatch, cgroup):
    """In a memory cgroup, the kernel kills the agent's process, and the detail says it was out of
    memory; with ``RLIMIT_AS`` alone (the fallback: no memory cgroup), the allocation fails
    (``MemoryError``). The cgroup's limit is small, as the kernel fills every page the agent touches
    up to it (2 GiB took about 4 s); the address space's is not, since a host's libraries may reserve
    address space they never touch, and the allocation over it fails at once anyway."""
    if not cgroup:
        monkeypatch.setattr(memory, "root", lambda: None)
    elif isolation.plan().memory == isolation.ADDRESS_SPACE:
        pytest.skip("no memory cgroup on this machine")
    limit = 512 if cgroup else 2048
    source = f"def agent(obs, config):\n    block = bytearray({2 * limit} << 20)\n    return 3\n"
    record = _limited_game(tmp_path, source, Limits(memory_mb=limit))
    assert record.termination is Termination.ERROR and record.offender == 1
    if cgroup:
        assert f"killed by SIGKILL (out of memory: over --agent-memory {limit} MiB)" in record.detail
    else:
        assert "MemoryError" in record.detail


@as_root
def test_an_agent_cannot_start_more_processes_than_its_limit(tmp_path):
    source = (
        "import os, time\n"
        "def agent(obs, config):\n"
        "    started = 0\n"
        "    for _ in range(12):\n"
        "        try:\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(30)\n"
        "                os._exit(0)\n"
        "            started += 1\n"
        "        except OSError:\n"
        "            break\n"
        "    return min(started, 6)\n"
    )
    assert _limited_game(tmp_path, source, Limits(processes=4)).moves[0] < 4
    assert _limited_game(tmp_path, source, Limits(processes=64)).moves[0] == 6  # the test can tell


def test_slots_claimed_at_once_are_disjoint_and_freed_on_exit() -> None:
    """Two runners on one machine never share a slot (their agents' users); a name bound by someone
    else is skipped, and a slot is free again once its claim ends. Other runners may be playing on
    this machine: the slot squatted is one found free now, not assumed free."""
    with sandbox.claim_slots(1) as (first,):
        squatted, squatter = _squat_a_free_slot(after=first)
        with squatter, sandbox.claim_slots(2) as others:
            assert first not in others and squatted not in others
    for slot in (first, *others):  # released: this process can bind each name again
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.bind(f"\0connectx-slot-{slot}")


def _squat_a_free_slot(after: int) -> tuple[int, socket.socket]:
    """The first slot above ``after`` that nobody holds, and the socket now holding its name."""
    for slot in range(after + 1, sandbox.MAX_SLOTS):
        squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            squatter.bind(f"\0connectx-slot-{slot}")
        except OSError:
            squatter.close()
            continue
        return slot, squatter
    raise AssertionError("no free slot on this machine")


def test_an_agent_whose_process_exits_is_an_error_at_once_whatever_its_children_hold():
    """Its child keeps the pipe open: the proxy still sees the agent's process end (not a TIMEOUT
    after the 62.5 s a move may take)."""
    task = game_task(first=str(MISBEHAVING / "forks_then_exits.py"), second="leftmost")
    (record,) = run_games([task], workers=1)
    # not the proxy giving up at the move's limit: that would be a TIMEOUT
    assert record.termination is Termination.ERROR and record.offender == 1, record.detail
    assert "process exited (exit code 1) during its move" in record.detail


def test_the_directory_of_an_agent_whose_player_was_killed_goes_with_the_next_scratch(tmp_path, monkeypatch):
    """A ``connectx play`` closed with its terminal (SIGHUP) cannot remove its agent's working
    directory: the next scratch directory made (every run makes one) removes it, since its maker is
    gone."""
    play = subprocess.Popen(
        [sys.executable, "-m", "connectx", "play", "random", "--out", str(tmp_path / "play")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        # SIGHUP as at a person's terminal: under nohup (or a CI runner) it is ignored, and inherited.
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    shown = b""
    while b"your move" not in shown and select.select([play.stdout], [], [], 30)[0]:
        shown += os.read(play.stdout.fileno(), 4096)
    (left,) = tmp_path.glob("connectx-scratch-mark2-*")
    play.send_signal(signal.SIGHUP)
    play.wait(timeout=30)
    assert left.is_dir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    Scratch("slot0").close()
    assert not list(tmp_path.glob("connectx-*"))


# ---- what an agent may read and write ----

SECRET = "the rival's secret: 4f1c9e"
RIVAL = f"""SECRET = {SECRET!r}


def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][-1]  # rightmost
"""


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(path): (path.stat().st_mtime_ns, path.stat().st_size) for path in folder.rglob("*")}


@with_landlock
def test_a_snooping_agent_finds_nothing_and_plays_as_if_it_had_looked_for_nothing(
    tmp_path, monkeypatch, capsys, reported
):
    """``tests/cheats/snoop.py`` (leftmost unless it found something) against a rival whose file holds
    a secret (rightmost), through ``connectx run`` (in this process, ``sys.argv`` its command line, as
    the snoop reads it): it reads neither the rival's file, the store, /etc/shadow nor another
    process's command line, lists no folder around it, and writes nowhere; each wins its game as
    first player by four in a row, and no file outside its directory changed."""
    snoop, rival, out = tmp_path / "snoop" / "snoop.py", tmp_path / "rival" / "secret.py", tmp_path / "run"
    snoop.parent.mkdir()
    rival.parent.mkdir()
    shutil.copy(ROOT / "tests" / "cheats" / "snoop.py", snoop)
    rival.write_text(RIVAL)
    before = _tree(tmp_path)
    args = ["run", "--agents", str(snoop), str(rival), "--games", "1", "--openings", "none", "--workers", "1"]
    monkeypatch.setattr(sys, "argv", ["connectx", *args, "--out", str(out)])
    assert main(sys.argv[1:]) == 0
    capsys.readouterr()
    assert reported == [out]
    with Store.open(out) as store:
        records = {record.first: record for record in store.records()}
    assert (records[str(snoop)].moves, records[str(snoop)].detail) == ((0, 6, 0, 6, 0, 6, 0), "")
    assert (records[str(rival)].moves, records[str(rival)].detail) == ((6, 0, 6, 0, 6, 0, 6), "")
    assert all(record.termination is Termination.WIN and record.result == 1.0 for record in records.values())
    after = _tree(tmp_path)
    assert {path: after[path] for path in after if not path.startswith(str(out))} == before
    elsewhere = [Path(folder, "snooped-by-an-agent") for folder in (ROOT, "/tmp", "/dev/shm")]
    assert not [path for path in elsewhere if path.exists()]


_TRIES = {
    "read its own file": ("read", "{here}/agent.py"),
    "write in its directory": ("write", "{here}/work/new.txt"),
    "read /etc/passwd": ("read", "/etc/passwd"),
    "read /proc/self/status": ("read", "/proc/self/status"),
    "read another agent's file": ("read", "{other}/agent.py"),
    "list the folder around it": ("list", "{here}"),
    "write beside its file": ("write", "{here}/new.txt"),
    "read its parent's command line": ("read", "/proc/{parent}/cmdline"),
    "signal its parent": ("signal", "{parent}"),
}


def _attempt(kind: str, target: str) -> bool:
    """Whether ``kind`` (read, write, list or signal) of ``target`` succeeds."""
    try:
        if kind == "read":
            with open(target, "rb") as file:
                file.read(1)
        elif kind == "write":
            with open(target, "w"):
                pass
        elif kind == "list":
            os.listdir(target)
        else:
            os.kill(int(target), 0)
    except OSError:
        return False
    return True


def _as_nobody_restricted(here: str, other: str) -> dict[str, bool]:
    """What of ``_TRIES`` a child process that became nobody and restricted itself as a host of a
    runner without root does (its working directory ``here``/work, its agent file ``here``/agent.py)
    manages."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            rules = Shared(None).ruleset()
            allow_own(rules, f"{here}/work", [f"{here}/agent.py"], view=False)
            confinement.drop_privileges(None, Limits())
            rules.restrict()
            places = {"here": here, "other": other, "parent": os.getppid()}
            done = {what: _attempt(kind, target.format(**places)) for what, (kind, target) in _TRIES.items()}
            os.write(write, json.dumps(done).encode())
        finally:
            os._exit(0)
    os.close(write)
    with open(read, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(answer)


@as_root  # to become an ordinary user
@with_landlock
def test_without_root_landlock_alone_keeps_an_agent_to_its_files():
    """A host whose runner is not root keeps the runner's user, and Landlock then does all the work
    (:class:`~tournament.sandbox.rules.Shared`, :func:`~tournament.sandbox.rules.allow_own`,
    :func:`confinement.drop_privileges` with no user to become): what any process of its user may do
    beyond its own files is refused."""
    base = Path(tempfile.mkdtemp())
    try:
        for name in ("own", "other"):
            (base / name / "work").mkdir(parents=True)
            (base / name / "agent.py").write_text("def agent(obs, config):\n    return 0\n")
        os.chmod(base, 0o755)
        for path in base.rglob("*"):
            os.chown(path, 65534, 65534)
        done = _as_nobody_restricted(str(base / "own"), str(base / "other"))
    finally:
        shutil.rmtree(base)
    allowed = ["read its own file", "write in its directory", "read /etc/passwd", "read /proc/self/status"]
    assert done == {what: what in allowed for what in _TRIES}


_PROBE = """import json
import os


def agent(obs, config):
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    wanted = {key: value.strip() for key, value in status.items() if key.startswith(("Cap", "NoNewPrivs"))}
    raise RuntimeError(json.dumps({**wanted, "environment": sorted(os.environ)}))
"""


def _status(tmp_path: Path) -> dict[str, str]:
    """The capability lines of ``/proc/self/status`` as an agent's host reads them (its error), and
    the names in its environment (``environment``)."""
    probe = tmp_path / "probe.py"
    probe.write_text(_PROBE)
    (record,) = run_games([game_task(first=str(probe), second="leftmost")], workers=1)
    return json.loads(record.detail.splitlines()[0].split("RuntimeError: ", 1)[1])


def test_an_agent_holds_no_capability_can_gain_none_and_sees_none_of_the_runners_environment(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("RUNNER_SECRET", "not for agents")
    status = _status(tmp_path)
    assert status["environment"] == ["HOME", "LANG", "PATH", "TMPDIR"]
    assert {key: int(value, 16) for key, value in status.items() if key.startswith("Cap")} == {
        "CapInh": 0,
        "CapPrm": 0,
        "CapEff": 0,
        "CapBnd": 0 if os.geteuid() == 0 else int(status["CapBnd"], 16),  # only root may empty it
        "CapAmb": 0,
    }
    assert status["NoNewPrivs"] == "1"


@as_root
def test_without_landlock_or_mounts_agents_still_play_with_their_own_users(tmp_path, monkeypatch):
    """The fallbacks: without Landlock, hosts hold no capability all the same; without a mount
    namespace either, where Python is out of the agents' users' reach, they keep only the capability
    to read (else they could not import), and say so."""
    monkeypatch.setattr(landlock, "abi", lambda: 0)
    assert _status(tmp_path)["CapEff"] == "0000000000000000"
    assert "no Landlock on this kernel" in sandbox.describe_isolation()
    monkeypatch.setattr(View, "build", classmethod(lambda cls, folders, devices=(): None))
    monkeypatch.setattr(isolation, "view_possible", lambda: False)
    isolation.needs_capability.cache_clear()
    try:
        private = isolation.needs_capability(False)
        assert int(_status(tmp_path)["CapEff"], 16) == (1 << 2 if private else 0)  # CAP_DAC_READ_SEARCH
        assert ("CAP_DAC_READ_SEARCH kept" in sandbox.describe_isolation()) == private
    finally:
        isolation.needs_capability.cache_clear()


def test_the_isolation_line_names_what_is_in_force():
    line = sandbox.describe_isolation()
    if landlock.abi():
        assert line.startswith(f"isolation: Landlock ABI {landlock.abi()}, ")
    if os.geteuid() == 0 and isolation.view_possible():
        assert "own users, no capabilities, own mounts" in line
