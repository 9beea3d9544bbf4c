"""An agent's processes stopped between its moves, so that no work it leaves running takes CPU time
from its opponent's moves (the referee times each move by the clock on the wall, as Kaggle does).

The proxy (:class:`~tournament.sandbox.host.AgentProcess`) freezes its host's whole process tree
when a move has returned and thaws it when the next is asked for (:func:`freezer`):

* with cgroup v2, :class:`CgroupFreezer`: each host is forked into a cgroup of its own
  (:func:`place`, ``connectx-hosts/host-PID`` under the forking process's cgroup: :func:`root`),
  which its processes cannot leave (its files are root's, and moving a process needs write access to
  them), whatever sessions or process groups they make; ``cgroup.freeze`` stops and resumes them
  all at once (a host alone in it, ``SIGSTOP``), ``cgroup.kill`` ends them. This needs root (or a
  cgroup delegated to the runner's user) and a cgroup v2 hierarchy, which systemd mounts at
  ``/sys/fs/cgroup`` (or at ``/sys/fs/cgroup/unified`` beside the v1 controllers, on a "hybrid"
  machine); no v2 controller needs to be enabled.
* without, :class:`SignalFreezer`: ``SIGSTOP`` to every process of the host's tree, found through
  ``/proc/PID/task/TID/children`` from the host down, and ``SIGCONT`` to resume them. The host is
  then a child subreaper (``prctl(2)``), so a child whose parent died, in a session of its own or
  not, stays in its tree (and, when it ends, stays a zombie until the game ends, counted among the
  agent's processes); an agent's code may undo that (``PR_SET_CHILD_SUBREAPER`` is its own), or
  catch ``SIGCONT``, which a frozen cgroup never sends to a tree of more than one thread.

A cgroup is removed once its processes are gone (:func:`remove`; those left behind, by a runner
that was killed or a game played without a zygote, go with the next :func:`sweep`).
Sources: ``cgroups(7)``, Linux's ``Documentation/admin-guide/cgroup-v2.rst`` ("Core Interface
Files": ``cgroup.freeze``, ``cgroup.kill``, ``cgroup.events``), ``proc(5)``, ``signal(7)``,
``prctl(2)``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import signal
import time
from collections.abc import Callable, Iterator
from typing import Protocol

__all__ = [
    "PARENT",
    "CgroupFreezer",
    "Freezer",
    "SignalFreezer",
    "freezer",
    "hosts_folder",
    "place",
    "read_file",
    "remove",
    "root",
    "sweep",
    "tree",
    "trial_child",
    "write_file",
]

PARENT = "connectx-hosts"
"""The cgroup, under the forking process's own, that holds one cgroup per host, ``host-PID``."""

SETTLE = 1.0
"""Seconds a freezer waits at most for every process to have stopped."""


def _cgroup2_mount(mountinfo: str) -> str | None:
    """Where the cgroup v2 hierarchy is mounted, from the text of ``/proc/self/mountinfo``
    (``proc(5)``: the mount point is the 5th field, the file system type follows `` - ``).

    >>> _cgroup2_mount("30 23 0:26 / /sys/fs/cgroup/unified rw shared:10 - cgroup2 cgroup2 rw")
    '/sys/fs/cgroup/unified'
    """
    for line in mountinfo.splitlines():
        fields, _, after = line.partition(" - ")
        if after.split(" ", 1)[0] == "cgroup2":
            return fields.split()[4].replace("\\040", " ")
    return None


def _own_cgroup(lines: str) -> str | None:
    """This process's cgroup v2 path, from the text of ``/proc/self/cgroup`` (its ``0::`` line).

    >>> _own_cgroup("4:memory:/a\\n0::/user.slice/session-1.scope\\n")
    '/user.slice/session-1.scope'
    """
    for line in lines.splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


def read_file(path: str) -> str:
    """The text of ``path`` (a file of ``/proc`` or of a cgroup); raises OSError."""
    with open(path, encoding="utf-8") as file:
        return file.read()


def write_file(path: str, text: str) -> None:
    """Write ``text`` to the cgroup file ``path`` in one ``write`` (the kernel acts on each write);
    raises OSError, as the kernel refuses."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


@functools.cache
def root() -> str | None:
    """The cgroup v2 folder that holds the hosts' cgroups, :data:`PARENT` in this process's own
    cgroup (made here), when this process may freeze processes in cgroups of its own there (tried
    with a child process, which leaves nothing behind); else None (no cgroup v2 hierarchy, a
    read-only one, or not root). Computed once in a process (the runner, before it forks)."""
    folder = hosts_folder(_cgroup2_mount, _own_cgroup)
    return folder if folder is not None and _works(folder) else None


def hosts_folder(
    find_mount: Callable[[str], str | None], find_own: Callable[[str], str | None]
) -> str | None:
    """:data:`PARENT` in this process's own cgroup of a hierarchy, made here: ``find_mount`` finds
    where the hierarchy is mounted in the text of ``/proc/self/mountinfo``, ``find_own`` this
    process's cgroup in it in the text of ``/proc/self/cgroup``. None when either finds nothing, the
    cgroup was deleted, or the folder cannot be made."""
    try:
        mount = find_mount(read_file("/proc/self/mountinfo"))
        own = find_own(read_file("/proc/self/cgroup"))
    except OSError:
        return None
    if mount is None or own is None or own.endswith(" (deleted)"):
        return None
    folder = os.path.join(mount, own.lstrip("/"), PARENT)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    return folder


@contextlib.contextmanager
def trial_child(base: str) -> Iterator[int]:
    """A child process to try the cgroups of ``base`` on, which leaves nothing behind: it waits until
    the block ends; then it is killed and reaped, and its cgroup ``base/host-PID`` removed if made."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(write)
        os.read(read, 1)  # until the parent is done
        os._exit(0)
    os.close(read)
    try:
        yield pid
    finally:
        os.close(write)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        remove(pid, base, 1.0)


def _works(folder: str) -> bool:
    """Whether a child process placed in a cgroup of its own in ``folder`` can be frozen there."""
    with trial_child(folder) as pid:
        try:
            if not place(pid, folder):
                return False
            CgroupFreezer(pid, folder).freeze()
            return True
        except OSError:
            return False


def _folder(pid: int, base: str) -> str:
    return os.path.join(base, f"host-{pid}")


def place(pid: int, base: str | None = None) -> bool:
    """Put process ``pid`` (a host just forked, which has run nothing yet) in a new cgroup of its own
    in ``base`` (:func:`root` by default); False when there is none or it cannot be made."""
    base = base or root()
    if base is None:
        return False
    folder = _folder(pid, base)
    for _ in range(2):  # again if a sweep removed it, empty, before the process was in it
        try:
            os.makedirs(folder, exist_ok=True)  # one a process of the same number left, empty by now
            write_file(os.path.join(folder, "cgroup.procs"), str(pid))
            return True
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return False


def remove(pid: int, base: str | None = None, wait: float = 0.0) -> None:
    """Remove the cgroup of host ``pid`` once it holds no process, waiting up to ``wait`` seconds
    for those killed to end; one still in use then is left for :func:`sweep`."""
    base = base or root()
    if base is None:
        return
    folder, deadline = _folder(pid, base), time.monotonic() + wait
    while True:
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() >= deadline:
                return
            time.sleep(0.005)


def sweep(base: str | None = None) -> None:
    """Remove every empty host cgroup (those of hosts that were not removed after them); one that
    holds a process cannot be removed, and is left (:func:`place` makes its own again if a sweep
    took it before its process was in it)."""
    base = base or root()
    if base is None:
        return
    with contextlib.suppress(OSError), os.scandir(base) as entries:
        for entry in entries:
            if entry.name.startswith("host-"):
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)


def tree(pid: int) -> list[int]:
    """Process ``pid`` and its descendants, parents first (``/proc/PID/task/TID/children``)."""
    found, index = [pid], 0
    while index < len(found):
        parent = found[index]
        index += 1
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                found.extend(
                    int(child) for child in read_file(f"/proc/{parent}/task/{task}/children").split()
                )
            except (OSError, ValueError):
                continue
    return list(dict.fromkeys(found))


def _state(pid: int) -> str:
    """Process ``pid``'s state (``proc(5)``: R, S, T ...), "X" once it is gone."""
    try:
        return read_file(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def _threads(pid: int) -> int:
    """How many threads process ``pid`` has (0 once it is gone)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


class Freezer(Protocol):
    """Stops and resumes a host's whole process tree."""

    def freeze(self) -> None:
        """Stop every process of the tree (returns at once; they stop within moments)."""

    def thaw(self) -> None:
        """Resume them."""

    def kill(self) -> None:
        """Kill every process of the tree, frozen or not."""

    def close(self) -> None:
        """Release what it holds."""


class CgroupFreezer:
    """The :class:`Freezer` of host ``pid`` in its cgroup in ``base`` (:func:`place`). Raises
    ``OSError`` when it has none.

    A host alone in its cgroup, one thread (an agent that starts no thread or process: nearly all),
    is stopped with ``SIGSTOP`` and resumed with ``SIGCONT``; only a cgroup holding more is frozen
    with ``cgroup.freeze``. Why: a write to a cgroup's files takes the kernel's one ``cgroup_mutex``,
    which moving a process into a cgroup holds for a grace period of RCU, and every zygote on the
    machine moves each host it forks into its cgroup; reading ``cgroup.threads`` takes no such lock
    (``docs/sandbox.md`` has the figures). The host's ``SIGSTOP`` comes first, so it can start
    nothing that the count misses (a ``fork`` that a pending signal overtakes is restarted after it:
    ``copy_process`` in Linux's ``kernel/fork.c``)."""

    def __init__(self, pid: int, base: str) -> None:
        self.pid = pid
        self._cgroup = False  # frozen through cgroup.freeze
        self._folder = _folder(pid, base)
        self._freeze = os.open(os.path.join(self._folder, "cgroup.freeze"), os.O_WRONLY | os.O_CLOEXEC)
        self._events = os.open(os.path.join(self._folder, "cgroup.events"), os.O_RDONLY | os.O_CLOEXEC)
        self._threads = os.open(os.path.join(self._folder, "cgroup.threads"), os.O_RDONLY | os.O_CLOEXEC)
        self._poll = select.poll()
        self._poll.register(self._events, select.POLLPRI)

    def freeze(self) -> None:
        """Stop the host and, when its cgroup holds more than its one thread, freeze the cgroup and
        wait (at most :data:`SETTLE` s) until the kernel says every task in it is frozen (``frozen
        1`` in ``cgroup.events``, which wakes ``poll(2)`` when it changes): each must be scheduled
        once to stop, and those still runnable meanwhile share the CPUs with the next move. The host
        alone stops on its way back to its pipe, running no more of the agent's code."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGSTOP)
        if os.pread(self._threads, 64, 0).count(b"\n") <= 1:
            return
        os.write(self._freeze, b"1")
        self._cgroup = True
        deadline = time.monotonic() + SETTLE
        while b"frozen 1" not in os.pread(self._events, 64, 0):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._poll.poll(left * 1000)

    def thaw(self) -> None:
        if self._cgroup:
            os.write(self._freeze, b"0")
            self._cgroup = False
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGCONT)

    def kill(self) -> None:
        """Kill every process in the cgroup (none once closed: its name may be another host's by then)."""
        if self._freeze < 0:
            return
        try:
            write_file(os.path.join(self._folder, "cgroup.kill"), "1")  # Linux 5.14
        except FileNotFoundError:
            with contextlib.suppress(OSError):
                for pid in read_file(os.path.join(self._folder, "cgroup.procs")).split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)

    def close(self) -> None:
        if self._freeze >= 0:
            for fd in (self._freeze, self._events, self._threads):
                os.close(fd)
            self._freeze = -1


class SignalFreezer:
    """The :class:`Freezer` of host ``pid`` without a cgroup: ``SIGSTOP`` and ``SIGCONT`` to each
    process of its :func:`tree` (the module docstring)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._stopped: list[int] = []

    def freeze(self) -> None:
        """Stop the tree, and wait (at most :data:`SETTLE` s) until each process has: each must be
        scheduled once to stop, and one still running would take CPU time from the next move."""
        stopped: set[int] = set()
        deadline = time.monotonic() + SETTLE
        while time.monotonic() < deadline:  # until no process is new and each has stopped
            new = [pid for pid in tree(self.pid) if pid not in stopped]
            for pid in new:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
            stopped.update(new)
            if stopped == {self.pid} and _threads(self.pid) <= 1:
                break  # the host alone, single-threaded: see CgroupFreezer.freeze
            if not new and all(_state(pid) in "TZX" for pid in stopped):
                break
            time.sleep(0.0005)
        self._stopped = list(stopped)

    def thaw(self) -> None:
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._stopped = []

    def kill(self) -> None:
        """Nothing: the proxy kills the host and its process group, and the subreaper above them
        (the zygote, the game process) every other process left, stopped or not
        (:func:`~tournament.sandbox.processes.kill_descendants`); a number taken from ``/proc``
        now might no longer be the agent's."""

    def close(self) -> None:
        pass


def freezer(pid: int) -> Freezer:
    """The :class:`Freezer` of host ``pid``: in its cgroup when it was given one (:func:`place`), else
    by signals."""
    base = root()
    if base is not None:
        with contextlib.suppress(OSError):
            return CgroupFreezer(pid, base)
    return SignalFreezer(pid)
