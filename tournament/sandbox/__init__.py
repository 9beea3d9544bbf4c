"""Each agent in a process of its own, as on Kaggle, where every agent plays from its own container.

The referee never runs agent code: it calls an :class:`AgentProcess`, a proxy that sends the
observation and configuration down a pipe to the agent's *host* process and waits for the action
(:mod:`~tournament.sandbox.host`). Nothing else crosses, so an agent can neither touch the board, the
rewards or the other agent, nor read or write the store.

The host is forked, before its game, from the game process's :class:`Zygote`
(:mod:`~tournament.sandbox.zygote`; or from the calling process; either way the referee and our
agents were imported once, in the runner). At once it starts a session of its own (``setsid``), so
that its whole process group dies with the game, and closes every inherited file descriptor but its
pipe (stdin, stdout and stderr go to /dev/null); it dies with the game process
(``PR_SET_PDEATHSIG``). It is pid 1 of a pid namespace of its own, where the runner may make one
(:mod:`~tournament.sandbox.namespaces`), and has a network namespace of its own, likewise
(:mod:`~tournament.sandbox.network`), and its forker puts it in a cgroup of its own
(:mod:`~tournament.sandbox.freezer`; and a memory cgroup, :mod:`~tournament.sandbox.memory`,
whose limit it sets as soon as it is assigned). Once it has loaded its agent, before any of the
agent's code runs:

* it makes an IPC namespace of its own (:mod:`~tournament.sandbox.namespaces`);
* it enters the agents' mount namespace when the runner is root (:mod:`~tournament.sandbox.mounts`,
  built once by the zygote): a root of its own showing Python's folders, the system's and a few
  devices alone (no ``/tmp``, ``/run``: no Unix socket of the machine's), a ``/proc`` that shows no
  other process; and, in a mount namespace of its own made from it, a ``/dev/shm`` and a working
  directory of its own, each a tmpfs of bounded size and files, its spec's files, and the
  ``/proc`` of its pid namespace;
* it works in a fresh private directory (also ``HOME`` and ``TMPDIR``), with an environment of its
  own and resource limits (:class:`~tournament.limits.Limits`: processes, file size, no core files,
  and address space where no memory cgroup bounds its tree);
* when the runner is root, as in a container, it becomes an unprivileged user of its own
  (:func:`agent_uid`; one per game slot and mark, so no two agents playing at once on the machine can
  signal each other: :func:`claim_slots`; :mod:`~tournament.sandbox.users`), so the run directory
  (made ``0700`` by :func:`protect_directory`), the runner and the referee are out of its reach;
* it holds no capability and can gain none (``no_new_privs``); those steps are
  :mod:`~tournament.sandbox.confinement`'s;
* it refuses itself ``sched_setaffinity`` (:mod:`~tournament.sandbox.seccomp`): its CPUs are its
  game's;
* where the kernel has Landlock, it restricts itself to the files it may read (its own agent file,
  its directory, Python and its packages, what any process may read), from Landlock ABI 6 its
  signals to its own processes, and from ABI 4, without a network namespace, refuses TCP
  (:mod:`~tournament.sandbox.isolation`, which says what an agent can reach with each mechanism
  missing, and :func:`describe_isolation` in a line).

Between its moves, its whole process tree is frozen (:mod:`~tournament.sandbox.freezer`: its
cgroup's ``cgroup.freeze``, else ``SIGSTOP``), so that nothing it leaves running takes CPU time from
its opponent's moves.

When the game ends, :meth:`AgentProcess.close` kills the host's process group, and the game process,
a child subreaper, kills every descendant left (:func:`kill_descendants`,
:mod:`~tournament.sandbox.processes`), including those that left the group.

Without root the agents run as the runner's user: they still cannot reach the referee's objects, the
opponent's memory or the runner's (it is not dumpable, :func:`protect_runner`), and Landlock keeps
them from that user's files and processes; without Landlock, they can open files that user can, and
signal processes of that user. ``docs/sandbox.md`` states the threat model.
"""

from tournament.sandbox.host import GRACE, MAX_REPLY, AgentProcess
from tournament.sandbox.isolation import describe_isolation
from tournament.sandbox.processes import (
    become_game_process,
    become_subreaper,
    children,
    kill_descendants,
    protect_runner,
    reap,
)
from tournament.sandbox.users import (
    AGENT_UID_BASE,
    MAX_SLOTS,
    agent_uid,
    claim_slots,
    isolating,
    protect_directory,
)
from tournament.sandbox.zygote import Zygote

__all__ = [
    "AGENT_UID_BASE",
    "GRACE",
    "MAX_REPLY",
    "MAX_SLOTS",
    "AgentProcess",
    "Zygote",
    "agent_uid",
    "become_game_process",
    "become_subreaper",
    "children",
    "claim_slots",
    "describe_isolation",
    "isolating",
    "kill_descendants",
    "protect_directory",
    "protect_runner",
    "reap",
]
