"""What an agent's host may read and write, reach and use, the mechanisms that enforce it on this
machine (:func:`machine`, :func:`choose`), and the line that says so (:func:`describe_isolation`).

A host may read, once it has loaded its agent:

* its own agent file, and any other file its spec names (a weights file:
  :func:`agents.registry.files_of`);
* its private working directory, which it may also write;
* the Python installation and its packages (:func:`python_folders`): the virtual environment,
  the installation it was made from, site-packages, and the folders of the top-level packages
  imported when the host was forked that lie elsewhere (``agents/``, ``tournament/`` ...: the
  project's own), but not the project's folder, which holds agent files and runs;
* what any unprivileged process may read: :data:`SYSTEM` (shared libraries, programs, ``/etc``),
  :data:`DEVICES` (``/dev/null``, ``/dev/urandom`` ...), which it may also write, its own entry in
  ``/proc`` (``/proc/self``) and :data:`PROC`, and ``/dev/shm``, which it may write
  (``multiprocessing`` makes its semaphores there).

Not another agent's file, the store or the run folder, another process's entry in ``/proc``, a
file only root may read (``/etc/shadow``), nor any other file; nor write anywhere but its own
directory and ``/dev/shm``. Three mechanisms enforce it, each where it can:

* Landlock (:mod:`~tournament.sandbox.landlock`, Linux 5.13 and later, if enabled), which needs no
  privilege: the host restricts itself to exactly those files (:mod:`~tournament.sandbox.rules`);
  from Landlock ABI 6 its signals also reach no process but its own;
* when the runner is root, a user of its own for each host (:mod:`~tournament.sandbox.users`) that
  holds no capability (:func:`~tournament.sandbox.confinement.drop_privileges`): what only root, or
  the runner's private run folder, holds stays unreadable;
* when the runner is root, the agents' mount namespace (:mod:`~tournament.sandbox.mounts`): a
  root of its own that shows Python's folders, :data:`SYSTEM` and :data:`DEVICES` alone (Python
  under a folder other users cannot enter, pyenv's ``/root/.pyenv``, is exposed alone, so no
  capability is needed to import; no ``/tmp`` nor ``/run``, so no pathname Unix socket of the
  machine, which Landlock does not cover); ``/proc`` shows no other process; and each host's own
  mount namespace made from it, in which ``/dev/shm`` and the working directory are tmpfs of its
  own, of bounded sizes (:class:`~tournament.limits.Limits`) and files
  (:data:`~tournament.sandbox.mounts.FILES`).

Without Landlock, a host reads what any user may (another agent's file that others may read, say).
Where Python lies under a folder other users cannot enter and no mount namespace can expose it (a
container that refuses ``unshare``), the hosts keep ``CAP_DAC_READ_SEARCH`` (:func:`needs_capability`):
they read any file, within the files above where Landlock bounds them. Without root, Landlock alone
keeps agents from the runner's user's files and processes (their own children then cannot read
their ``/proc/self``): without it, an agent reads and signals what that user may. Without mounts of
their own, the agents share the machine's ``/dev/shm`` and write their files on its disk, each file
bounded (``RLIMIT_FSIZE``), not their sum.

Beyond files (:class:`Plan`, chosen by :func:`choose` from what :func:`machine` finds):

* the network: a network namespace of the host's own (:mod:`~tournament.sandbox.network`; root),
  else Landlock's TCP rules (ABI 4), which refuse TCP but not UDP, else nothing;
* CPU time: the host's process tree frozen between its moves, in a cgroup v2 of its own, else by
  ``SIGSTOP`` (:mod:`~tournament.sandbox.freezer`);
* CPUs: its game's, ``sched_setaffinity`` refused by a seccomp filter
  (:mod:`~tournament.sandbox.seccomp`), else not locked;
* System V IPC and POSIX message queues: an IPC namespace of the host's own (root), else the
  machine's; pids: a pid namespace of its own, where the agent is pid 1 (root), else the machine's
  (:mod:`~tournament.sandbox.namespaces`);
* memory: a memory cgroup of the host's own, v2's or else v1's, bounding its whole tree (root),
  else ``RLIMIT_AS`` for each process (:mod:`~tournament.sandbox.memory`).

Sources: ``landlock(7)``, ``capabilities(7)``, ``mount_namespaces(7)``, ``network_namespaces(7)``,
``proc(5)`` (Linux man-pages).
"""

from __future__ import annotations

import functools
import os
import site
import stat
import sys
import tempfile
from dataclasses import dataclass

from tournament.sandbox import freezer, landlock, memory, namespaces, network, seccomp
from tournament.sandbox.mounts import View, covers, outermost
from tournament.sandbox.users import isolating

SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/sys/devices/system/cpu")
"""Folders any process may read (``/etc`` holds root-only files, which file permissions keep from an
agent's user; ``/sys/devices/system/cpu`` says how many CPUs there are)."""

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
"""Devices any process may read and write."""

SHARED_MEMORY = "/dev/shm"
"""POSIX shared memory and semaphores: every process may make files there."""

PROC = ("/proc/cpuinfo", "/proc/meminfo")
"""The machine's entries of ``/proc`` a host may read besides its own (without the agents' mount
namespace, whose ``/proc`` shows no other process)."""


@functools.cache
def python_folders() -> tuple[str, ...]:
    """The Python installation and its packages, real paths (module docstring): ``sys.prefix``,
    ``sys.base_prefix`` (and the exec prefixes), site-packages, and the folder of every top-level
    package imported so far (a regular package, with an ``__init__``) outside them; none beneath
    another. Computed once in a process (the zygote, before it forks its hosts)."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()}
    if site.ENABLE_USER_SITE:
        folders.add(site.getusersitepackages())
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if "." not in name and os.path.basename(file).startswith("__init__."):
            folders.add(os.path.dirname(file))
    return tuple(outermost(folder for folder in folders if os.path.isdir(folder)))


def _exposed() -> tuple[str, ...]:
    """The folders an agent's user must reach without the agents' mount namespace:
    :func:`python_folders` and the temporary directory, which holds the hosts' working directories."""
    return (*python_folders(), os.path.realpath(tempfile.gettempdir()))


def _shown() -> tuple[str, ...]:
    """The folders the agents' mount namespace shows (:mod:`~tournament.sandbox.mounts`):
    :func:`python_folders` and :data:`SYSTEM`."""
    return (*python_folders(), *SYSTEM)


@functools.cache
def needs_capability(view: bool) -> bool:
    """True when the agents' users could not import, or reach their working directories, without
    ``CAP_DAC_READ_SEARCH``: one of :func:`python_folders` is closed to other users, the temporary
    directory cannot be entered, or, with no ``view`` (:mod:`~tournament.sandbox.mounts`) to expose
    them, one of those lies under a folder other users cannot enter."""
    if not view and covers(_exposed()):
        return True
    opened = stat.S_IROTH | stat.S_IXOTH
    closed = [folder for folder in python_folders() if os.stat(folder).st_mode & opened != opened]
    return bool(closed) or not os.stat(tempfile.gettempdir()).st_mode & stat.S_IXOTH


@functools.cache
def view_possible() -> bool:
    """True when this process may build the agents' mount namespace (:meth:`View.build`), tried in a
    child process (a fork), which leaves nothing behind."""
    pid = os.fork()
    if pid == 0:
        built = False
        try:
            built = View.build(_shown(), DEVICES) is not None
        finally:
            os._exit(0 if built else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def build_view() -> View | None:
    """The agents' mount namespace, for the hosts this process forks, when the runner is root and the
    kernel lets it (:meth:`View.build`); else None."""
    return View.build(_shown(), DEVICES) if isolating() else None


@dataclass(frozen=True, slots=True)
class Machine:
    """What this machine and the runner's user offer the sandbox (:func:`machine`).

    ``landlock``: the kernel's Landlock ABI (0: none); ``root``: hosts get users of their own
    (:func:`~tournament.sandbox.users.isolating`); ``mounts``: the agents' mount namespace can be
    built (:func:`view_possible`); ``capability``: hosts must keep ``CAP_DAC_READ_SEARCH``
    (:func:`needs_capability`); ``network``: network namespaces can be made
    (:func:`tournament.sandbox.network.possible`); ``cgroup``: hosts can be frozen in cgroups v2 of
    their own (:func:`tournament.sandbox.freezer.root`); ``seccomp``: a seccomp filter can refuse
    ``sched_setaffinity`` (:func:`tournament.sandbox.seccomp.available`); ``ipc`` and ``pids``: IPC
    and pid namespaces can be made (:func:`tournament.sandbox.namespaces.possible`); ``memory``: the
    version of the cgroup hierarchy (2 or 1) whose memory controller limits each host's tree, 0 for
    none (:func:`tournament.sandbox.memory.root`).
    """

    landlock: int
    root: bool
    mounts: bool
    capability: bool
    network: bool
    cgroup: bool
    seccomp: bool
    ipc: bool = False
    pids: bool = False
    memory: int = 0


def machine() -> Machine:
    """This machine's :class:`Machine`, each fact probed once in a process (the runner probes them
    before it forks, so that its game processes and hosts inherit the answers)."""
    root = isolating()
    mounts = root and view_possible()
    cgroups = memory.root() if root else None
    return Machine(
        landlock=landlock.abi(),
        root=root,
        mounts=mounts,
        capability=root and needs_capability(mounts),
        network=network.possible(),
        cgroup=freezer.root() is not None,
        seccomp=seccomp.available(),
        ipc=namespaces.possible(namespaces.IPC),
        pids=namespaces.possible(namespaces.PID),
        memory=cgroups[0] if cgroups is not None else 0,
    )


NAMESPACE, LANDLOCK_TCP, OPEN = "namespace", "landlock", "open"
"""How the hosts are kept off the network (:attr:`Plan.network`)."""

CGROUP, SIGNALS = "cgroup", "signals"
"""How a host's processes are frozen between its moves (:attr:`Plan.freezer`)."""

CGROUP_V2, CGROUP_V1, ADDRESS_SPACE = "cgroup v2", "cgroup v1", "RLIMIT_AS"
"""How an agent's memory is bounded (:attr:`Plan.memory`): its host's tree in a memory cgroup, or
each process's address space alone."""


@dataclass(frozen=True, slots=True)
class Plan:
    """The mechanism that confines each thing beyond files on a machine (:func:`choose`).

    ``network``: :data:`NAMESPACE` (a network namespace of each host's own), :data:`LANDLOCK_TCP`
    (Landlock refuses TCP) or :data:`OPEN` (nothing); ``private``: each host has its own
    ``/dev/shm`` and working directory, tmpfs of bounded sizes and files, in a view of the machine
    that shows no ``/tmp`` nor ``/run`` (else the machine's ``/dev/shm``, each file bounded by
    ``RLIMIT_FSIZE``, and every pathname Unix socket an agent's user may open); ``freezer``:
    :data:`CGROUP` or :data:`SIGNALS`; ``affinity``: ``sched_setaffinity`` is refused (seccomp);
    ``ipc``: an IPC namespace of each host's own; ``pids``: a pid namespace of each host's own;
    ``memory``: :data:`CGROUP_V2`, :data:`CGROUP_V1` or :data:`ADDRESS_SPACE`.
    """

    network: str
    private: bool
    freezer: str
    affinity: bool
    ipc: bool = False
    pids: bool = False
    memory: str = ADDRESS_SPACE


def choose(facts: Machine) -> Plan:
    """The :class:`Plan` for a machine with ``facts``: each mechanism where it is available, else its
    fallback (module docstring).

    >>> choose(Machine(7, False, False, False, False, False, True)).network
    'landlock'
    """
    if facts.network:
        how = NAMESPACE
    elif facts.landlock >= landlock.TCP_ABI:
        how = LANDLOCK_TCP
    else:
        how = OPEN
    bound = {2: CGROUP_V2, 1: CGROUP_V1}.get(facts.memory, ADDRESS_SPACE) if facts.root else ADDRESS_SPACE
    return Plan(
        how,
        facts.mounts,
        CGROUP if facts.cgroup else SIGNALS,
        facts.seccomp,
        ipc=facts.root and facts.ipc,
        pids=facts.root and facts.pids,
        memory=bound,
    )


def plan() -> Plan:
    """This machine's :class:`Plan` (:func:`choose` of :func:`machine`)."""
    return choose(machine())


def describe(facts: Machine) -> str:
    """The line that says which isolation the agents' hosts get on a machine with ``facts``: each
    mechanism in force, then, in parentheses, what each one missing leaves open.

    >>> full = Machine(7, True, True, False, True, True, True, ipc=True, pids=True, memory=2)
    >>> print(describe(full).replace(", ", ",\\n"))
    isolation: Landlock ABI 7,
    own users,
    no capabilities,
    own mounts,
    own network,
    own IPC,
    own pids,
    own /dev/shm and working directory (tmpfs),
    memory of each agent's processes in all (cgroup v2),
    frozen between moves (cgroup v2),
    CPUs locked (seccomp)
    """
    chosen = choose(facts)
    parts = [f"Landlock ABI {facts.landlock}"] if facts.landlock else []
    notes = [] if facts.landlock else ["no Landlock on this kernel: agents read what any user may"]
    if facts.root:
        parts.append("own users")
        if facts.capability:
            parts.append("CAP_DAC_READ_SEARCH kept")
            notes.append(
                "Python is in a folder other users cannot enter, no mount namespace: agents read any file"
            )
        else:
            parts.append("no capabilities")
        if facts.mounts:
            parts.append("own mounts")
    else:
        parts.append("the runner's user")
        theirs = "no users of their own" if facts.landlock else "they may signal your processes"
        notes.append(f"not root: {theirs}")
    if chosen.network == NAMESPACE:
        parts.append("own network")
    elif chosen.network == LANDLOCK_TCP:
        parts.append("no TCP (Landlock)")
        notes.append("no network namespace: UDP reaches the network")
    else:
        notes.append("no network namespace nor Landlock TCP rules: agents reach the network")
    if chosen.ipc:
        parts.append("own IPC")
    else:
        notes.append("no IPC namespace: System V shared memory and message queues are the machine's")
    if chosen.pids:
        parts.append("own pids")
    else:
        notes.append("no pid namespace: kill(pid, 0) tells which pids exist")
    if chosen.private:
        parts.append("own /dev/shm and working directory (tmpfs)")
    else:
        notes.append(
            "no mounts of their own: /dev/shm is shared, the disk bounded per file, not in all, "
            "files unbounded in number, the machine's Unix sockets reachable"
        )
    if chosen.memory == ADDRESS_SPACE:
        parts.append("memory of each process (RLIMIT_AS)")
        notes.append("no memory cgroup: children, memfd and shared memory escape the memory limit")
    else:
        parts.append(f"memory of each agent's processes in all ({chosen.memory})")
    if chosen.freezer == CGROUP:
        parts.append("frozen between moves (cgroup v2)")
    else:
        parts.append("stopped between moves (SIGSTOP)")
        notes.append("no cgroup v2 of theirs: a process an agent disowns escapes SIGSTOP")
    if chosen.affinity:
        parts.append("CPUs locked (seccomp)")
    else:
        notes.append("no seccomp: agents may widen their CPUs")
    line = "isolation: " + ", ".join(parts)
    return f"{line} ({'; '.join(notes)})" if notes else line


def describe_isolation() -> str:
    """The line that says which isolation the agents' hosts get on this machine (:func:`describe` of
    :func:`machine`), for ``connectx run`` to print.

    >>> describe_isolation().startswith("isolation: ")
    True
    """
    return describe(machine())
