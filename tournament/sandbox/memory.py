"""An agent's memory counted once for its host's whole process tree: a memory cgroup of the host's
own whose limit is ``--agent-memory`` (``Limits.memory_mb``), else ``RLIMIT_AS`` per process.

The kernel charges a cgroup for every page its processes use: their own, those of the files they
write in a tmpfs (its ``/dev/shm`` and working directory) or a ``memfd``, System V shared memory
they touch, and the kernel's memory for their files and sockets. So an agent holding a dozen
``memfd`` files, shared memory segments and children together holds at most its limit: a page more
is taken back from its own caches, and when none is left the kernel's OOM killer ends the largest of
its processes (no swap: its swap limit is 0). Its host killed during a move is its ``ERROR``, as on
Kaggle, where an agent that outgrows its container dies; the proxy says it was out of memory
(:func:`out_of_memory`).

Where: with cgroup v2 and its ``memory`` controller, the host's cgroup of the freezer
(:mod:`~tournament.sandbox.freezer`), whose ``memory.max`` and ``memory.swap.max`` are set, once
the controller is enabled in ``connectx-hosts`` (``cgroup.subtree_control``, which needs it enabled
in the runner's own cgroup too); else, on a "hybrid" machine whose ``memory`` controller is
cgroup v1's, a cgroup of the host's own in that hierarchy (:func:`place`), whose
``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes`` are set; else none (:func:`root` is
None): ``RLIMIT_AS`` bounds the address space of each process alone
(:func:`~tournament.sandbox.confinement.confine`), not their sum, nor ``memfd`` files, tmpfs pages
or shared memory that no process maps.

The proxy (:class:`~tournament.sandbox.host.AgentProcess`) sets the limit (:func:`limit`) before it
assigns the host its agent; the host then falls back on ``RLIMIT_AS`` only where the plan has no
memory cgroup (:func:`tournament.sandbox.isolation.choose`).
Sources: Linux's ``Documentation/admin-guide/cgroup-v2.rst`` ("Memory Interface Files") and
``Documentation/admin-guide/cgroup-v1/memory.rst``, ``cgroups(7)``, ``setrlimit(2)``.
"""

from __future__ import annotations

import contextlib
import functools
import os

from tournament.sandbox import freezer
from tournament.sandbox.freezer import read_file, write_file

__all__ = ["limit", "out_of_memory", "place", "remove", "root", "sweep"]


def _v1_mount(mountinfo: str) -> str | None:
    """Where cgroup v1's ``memory`` controller is mounted, from the text of ``/proc/self/mountinfo``.

    >>> _v1_mount("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory")
    '/sys/fs/cgroup/memory'
    """
    for line in mountinfo.splitlines():
        fields, _, after = line.partition(" - ")
        kind, _, options = after.split(" ")[:3] if after.count(" ") >= 2 else ("", "", "")
        if kind == "cgroup" and "memory" in options.split(","):
            return fields.split()[4].replace("\\040", " ")
    return None


def _v1_own(lines: str) -> str | None:
    """This process's cgroup in v1's ``memory`` hierarchy, from the text of ``/proc/self/cgroup``.

    >>> _v1_own("4:memory:/process_api/a\\n0::/\\n")
    '/process_api/a'
    """
    for line in lines.splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return path
    return None


@functools.cache
def root() -> tuple[int, str] | None:
    """The cgroup version (2 or 1) and folder that hold the hosts' memory cgroups, when this process
    may limit a child's memory there (tried with a child process, which leaves nothing behind); else
    None. Computed once in a process (the runner, before it forks)."""
    v2 = freezer.root()
    if v2 is not None and _enable(v2) and _works(2, v2):
        return 2, v2
    folder = freezer.hosts_folder(_v1_mount, _v1_own)
    return (1, folder) if folder is not None and _works(1, folder) else None


def _enable(folder: str) -> bool:
    """Enable the ``memory`` controller for the cgroups in v2 ``folder`` (``connectx-hosts``), in it
    and in its parent where it is not yet; False when the kernel refuses (its parent holds processes
    and is not the root, say)."""
    for step in (os.path.dirname(folder), folder):
        try:
            if "memory" not in read_file(os.path.join(step, "cgroup.subtree_control")).split():
                write_file(os.path.join(step, "cgroup.subtree_control"), "+memory")
        except OSError:
            return False
    return True


def _works(version: int, base: str) -> bool:
    """Whether a child process in a memory cgroup of its own in ``base`` can be limited there."""
    with freezer.trial_child(base) as pid:
        return freezer.place(pid, base) and _limit(version, os.path.join(base, f"host-{pid}"), 64)


def _limit(version: int, folder: str, megabytes: int) -> bool:
    size = str(megabytes << 20)
    names = (
        ("memory.max", "memory.swap.max")
        if version == 2
        else ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
    )
    try:
        write_file(os.path.join(folder, names[0]), size)
    except OSError:
        return False
    with contextlib.suppress(OSError):  # no swap accounting: nothing to limit
        write_file(os.path.join(folder, names[1]), "0" if version == 2 else size)
    return True


def place(pid: int) -> bool:
    """Put process ``pid`` (a host just forked, which has run nothing yet) in a memory cgroup of its
    own, where the hierarchy is v1's (v2's is the freezer's: :func:`tournament.sandbox.freezer.place`);
    False when there is none."""
    found = root()
    if found is None:
        return False
    return found[0] == 2 or freezer.place(pid, found[1])


def limit(pid: int, megabytes: int) -> bool:
    """Limit the memory of host ``pid``'s memory cgroup (placed by its forker) to ``megabytes`` MiB,
    swap none; False when it has none."""
    found = root()
    if found is None:
        return False
    return _limit(found[0], os.path.join(found[1], f"host-{pid}"), megabytes)


def out_of_memory(pid: int) -> bool:
    """True when the kernel's OOM killer has killed a process of host ``pid``'s memory cgroup."""
    found = root()
    if found is None:
        return False
    version, base = found
    name = "memory.events" if version == 2 else "memory.oom_control"
    try:
        counts = dict(
            line.split() for line in read_file(os.path.join(base, f"host-{pid}", name)).splitlines()
        )
    except (OSError, ValueError):
        return False
    return int(counts.get("oom_kill", "0")) > 0


def remove(pid: int, wait: float = 0.0) -> None:
    """Remove host ``pid``'s v1 memory cgroup once it holds no process (v2's is the freezer's:
    :func:`tournament.sandbox.freezer.remove`), waiting up to ``wait`` seconds."""
    found = root()
    if found is not None and found[0] == 1:
        freezer.remove(pid, found[1], wait)


def sweep() -> None:
    """Remove every empty v1 memory cgroup of a host (:func:`tournament.sandbox.freezer.sweep`)."""
    found = root()
    if found is not None and found[0] == 1:
        freezer.sweep(found[1])
