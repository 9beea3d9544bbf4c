"""An agent's host process, and :class:`AgentProcess`, the referee's proxy for it.

The referee (``kaggle_environments`` in the game process) never runs agent code. It calls an
:class:`AgentProcess`, a thin proxy that sends the observation and configuration down a pipe to the
agent's *host* process and waits for the action. Nothing else crosses: no object of the referee, of
the opponent or of the runner is reachable from the host.

A host is forked blank (:func:`fork_host`), by the game process's zygote
(:class:`~tournament.sandbox.zygote.Zygote`) or by the calling process, detaches at once
(:func:`~tournament.sandbox.confinement.detach`) and waits for its assignment. It then loads its
agent, is confined (:mod:`tournament.sandbox.confinement`) and plays the agent on its main thread, as
a normal (not daemonic) process: agents that time themselves with ``SIGALRM`` or search in child
processes work as they do under ``env.run``.

Time is measured by the referee exactly as Kaggle measures an agent: around the call, here the
proxy's round trip. The proxy gives up when the move's limit has passed (``actTimeout`` plus the
agent's remaining overage bank plus :data:`GRACE`, or the tournament's ``hang_limit``) and hands
the referee kaggle's ``DeadlineExceeded`` (``TIMEOUT``); a host that dies or sends a malformed reply
is that agent's ``ERROR``, at once: the proxy watches the host's process (a pidfd), not only its
pipe, which a child the agent forked may hold open. Replies are JSON of a tagged action
(:mod:`tournament.replies`; never pickles, which would run the agent's code in the referee), at most
:data:`MAX_REPLY` bytes.
Sources: ``fork(2)``, ``prctl(2)``, ``pidfd_open(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection, Pipe, wait
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.random  # noqa: F401 - imported once here, not in every host (numpy imports it lazily)

from agents.engine.solver import warm_up
from agents.registry import SpecError, files_of, uses_solver
from tournament.environments import DeadlineExceeded, structify
from tournament.limits import Limits
from tournament.replies import decode, encode
from tournament.sandbox import freezer, isolation, landlock, memory, mounts, namespaces, network, seccomp
from tournament.sandbox.confinement import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_PDEATHSIG,
    confine,
    detach,
    drop_privileges,
    prctl,
)
from tournament.sandbox.loading import load
from tournament.sandbox.mounts import View
from tournament.sandbox.rules import Shared, allow_own, allow_private
from tournament.sandbox.users import agent_uid, isolating
from tournament.scratch import Scratch

if TYPE_CHECKING:
    from tournament.sandbox.zygote import Zygote

GRACE = 0.5
"""Seconds the proxy waits beyond Kaggle's limit before it gives up on a move."""

MAX_REPLY = 1 << 20
"""Largest reply a host may send, in bytes; a longer one is the agent's ``ERROR``."""


def fork_host(
    view: View | None = None, rules: landlock.Ruleset | None = None, networks: tuple[int, int] | None = None
) -> tuple[int, Connection]:
    """Fork a *blank host*: a process that runs no agent yet. It detaches at once
    (:func:`~tournament.sandbox.confinement.detach`), waits for its assignment on its pipe, and
    becomes that agent's host (:func:`_host`). This process puts it in a cgroup of its own first,
    where it may (:func:`tournament.sandbox.freezer.place`). A zygote gives it ``view``, the agents'
    mount namespace (:mod:`tournament.sandbox.mounts`), ``rules``, a Landlock ruleset of the rules
    all hosts share (:class:`~tournament.sandbox.rules.Shared`), which this process then
    closes, and ``networks``, the network namespaces of the hosts of mark 1 and mark 2
    (:func:`tournament.sandbox.network.make`); without, the host builds them itself where it may
    (:func:`~tournament.sandbox.isolation.plan`). Returns its pid and the referee's end of its pipe.
    It dies with the process that forked it. It holds the compiled solver only if this process did
    (:func:`agents.engine.solver.warm_up`, called for the agents that use it). Where the plan has
    pid namespaces, it is forked as pid 1 of one of its own
    (:func:`tournament.sandbox.namespaces.new_pids`), so its parent is out of its sight (pid 0)."""
    isolation.python_folders()  # computed once in the forking process, for every host to come
    plan = isolation.plan()  # likewise
    referee_end, host_end = Pipe()
    parent = 0 if plan.pids else os.getpid()  # the parent it sees
    with namespaces.new_pids() if plan.pids else contextlib.nullcontext():
        pid = os.fork()
    if pid == 0:  # the blank host
        code = 0
        try:
            referee_end.close()
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() == parent:
                keep = (*(view.descriptors if view is not None else ()), *(networks or ()))
                detach(host_end, (*keep, rules.descriptor) if rules is not None else keep)
                _host(host_end, parent, view, rules, networks, plan)
        except EOFError:
            pass
        except BaseException:  # noqa: BLE001 - the host may not raise into its parent's code
            code = 1
        os._exit(code)
    host_end.close()
    if rules is not None:
        rules.close()
    if plan.freezer == isolation.CGROUP:
        freezer.place(pid)
    if plan.memory == isolation.CGROUP_V1:
        memory.place(pid)
    return pid, referee_end


def _host(
    conn: Connection,
    parent: int,
    view: View | None,
    rules: landlock.Ruleset | None,
    networks: tuple[int, int] | None,
    plan: isolation.Plan,
) -> None:
    """Become the host of the agent assigned on ``conn`` (``{"spec", "mark", "seed", "global_seed",
    "workdir", "uid", "memory_mb", "processes", "disk_mb", "shm_mb", "address_space"}``, the last
    True where no memory cgroup bounds it: :mod:`~tournament.sandbox.memory`), then serve its moves until
    the pipe closes: ``{"id", "obs", "config"}`` in, ``{"id", "action"|"error"}`` out.

    It loads the agent in the runner's directory and as its user (a spec's relative path means what
    it meant on the command line, and the file is read even where the agent could not). Then, before
    the agent's first move runs any of its code, it adds its own rules to its Landlock ruleset
    (:func:`~tournament.sandbox.rules.allow_own`), enters its mark's network namespace (or makes
    one of its own: :mod:`~tournament.sandbox.network`), enters the agents' mount namespace and makes
    its own mounts in it (:func:`~tournament.sandbox.mounts.private`: its ``/dev/shm`` and working
    directory, bounded), works in its own directory (:func:`~tournament.sandbox.confinement.confine`),
    drops every privilege (:func:`~tournament.sandbox.confinement.drop_privileges`), becomes a child
    subreaper where it is frozen by signals (:mod:`~tournament.sandbox.freezer`), refuses itself
    ``sched_setaffinity`` (:mod:`~tournament.sandbox.seccomp`) and restricts itself to the ruleset
    (``plan``, :func:`~tournament.sandbox.isolation.plan`, says which of these this machine allows).
    Without a zygote (``view`` and ``rules`` None), it builds the namespace and the shared rules
    first, where it may.
    """
    job = json.loads(conn.recv_bytes())
    random.seed(job["global_seed"])
    np.random.seed(job["global_seed"] % 2**32)
    agent = load(job["spec"], job["seed"])  # read, not run: :mod:`~tournament.sandbox.loading`
    limits = Limits(job["memory_mb"], job["processes"], job["disk_mb"], job["shm_mb"])
    if view is None and rules is None:
        view = isolation.build_view()
        if landlock.abi():
            shared = Shared(view, tcp=plan.network == isolation.LANDLOCK_TCP)
            rules = shared.ruleset()
            shared.close()
    files = _files(job["spec"])
    if rules is not None:
        allow_own(rules, job["workdir"], files, view is not None)
    trees = mounts.clone_files(files) if view is not None else []
    if networks is not None:
        network.enter(networks[job["mark"] - 1])
        for fd in networks:
            os.close(fd)
    elif plan.network == isolation.NAMESPACE:
        network.isolate()
    if plan.ipc:
        namespaces.private_ipc()
    workdir = job["workdir"]
    if view is not None:
        view.enter()
        view.close()
        mounts.private(job["uid"], limits.disk_mb, limits.shm_mb, trees, proc=plan.pids)
        workdir = mounts.WORKDIR
        if rules is not None:
            allow_private(rules, workdir, proc=plan.pids)
    confine(workdir, limits, address_space=job["address_space"])
    drop_privileges(job["uid"], limits, keep_read=isolation.needs_capability(view is not None))
    if plan.freezer == isolation.SIGNALS and not plan.pids:
        prctl(PR_SET_CHILD_SUBREAPER, 1)  # so that its tree holds every process it starts (as pid 1's does)
    if plan.affinity:
        seccomp.lock_affinity()
    if rules is not None:
        rules.restrict()
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # again: the uid change cleared it
    if os.getppid() != parent:
        return
    while True:
        request = json.loads(conn.recv_bytes())
        reply: dict[str, Any] = {"id": request["id"]}
        try:
            reply["action"] = encode(agent(structify(request["obs"]), structify(request["config"])))
        except BaseException as error:  # noqa: BLE001 - every failure is the agent's ERROR
            reply["error"] = f"{type(error).__name__}: {error}"
            reply["traceback"] = traceback.format_exc()[-4000:]
        conn.send_bytes(json.dumps(reply).encode())


def _files(spec: str) -> list[str]:
    """The files ``spec`` reads, absolute (:func:`agents.registry.files_of`); none for a bad spec."""
    try:
        return list(files_of(spec).values())
    except SpecError:
        return []


def ending(pid: int) -> str:
    """How a child host ended, waiting for it briefly: 'exited (exit code N)' or 'was killed by SIGX'."""
    for _ in range(50):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            break
        if done:
            if os.WIFSIGNALED(status):
                return f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
            return f"exited (exit code {os.waitstatus_to_exitcode(status)})"
        time.sleep(0.01)
    return "stopped answering"


def _pidfd(pid: int) -> list[int]:
    """A pidfd of process ``pid`` (``pidfd_open(2)``, Linux 5.3), readable once the process has ended,
    in a list; an empty list where the kernel has none (the proxy then sees a host end only when
    its pipe closes)."""
    try:
        return [os.pidfd_open(pid)]
    except OSError:
        return []


class AgentProcess:
    """The referee's proxy for one agent, played in a host process of its own (module docstring).

    ``spec`` is an agent spec (:mod:`agents.registry`), ``mark`` 1 or 2, ``slot`` the game's slot
    among the runner's workers (it picks the host's user), ``seed`` the agent's seed and
    ``global_seed`` the seed of the host's global ``random`` and numpy generators (Kaggle's built-in
    agents use them). ``hang_limit`` optionally caps a move in seconds. ``on_turn(mark, board)`` is
    called before each move with the board the agent is shown (Kaggle's layout: row-major, top row
    first, 0 empty, else the mark). The host comes from ``zygote`` (:class:`Zygote`, which then
    reaps it), else it is forked here (:meth:`close` reaps it). Its working directory is a
    :class:`~tournament.scratch.Scratch` directory in the temporary directory, so a directory that
    a killed process (a ``connectx play`` closed with its terminal, say) left behind goes when the
    next scratch directory is made (but inside a runner's game process, whose temporary directory is
    its slot's scratch directory, which goes whole). After a forfeit, :attr:`note` says what happened and
    :attr:`last_action` is the action the agent returned last. Raises ``OSError`` when the zygote
    is gone.
    """

    def __init__(
        self,
        spec: str,
        mark: int,
        *,
        seed: int,
        global_seed: int,
        slot: int = 0,
        limits: Limits = Limits(),  # noqa: B008 - immutable
        hang_limit: float | None = None,
        on_turn: Callable[[int, list[int]], None] = lambda mark, board: None,
        zygote: Zygote | None = None,
    ) -> None:
        self.mark, self.hang_limit, self.on_turn = mark, hang_limit, on_turn
        self.note = ""
        self.last_action: Any = None
        self._id = 0
        self._zygote = zygote
        uid = agent_uid(slot, mark) if isolating() else None
        self._scratch = Scratch(f"mark{mark}", sweep_first=zygote is None)
        if zygote is None:
            freezer.sweep()  # the cgroups of hosts forked without a zygote, which kill() leaves
            memory.sweep()
        self.workdir = self._scratch.path
        if uid is not None:
            os.chown(self.workdir, uid, uid)
        try:
            if zygote is None and uses_solver(spec):
                warm_up()  # compiled here, once: a host cannot write numba's cache, and would compile it
            self.pid, self.conn = zygote.host() if zygote is not None else fork_host()
        except OSError:
            self._scratch.close()
            raise
        self.group = self.pid
        self._watched: list[Any] = [self.conn, *_pidfd(self.pid)]
        self._freezer = freezer.freezer(self.pid)
        self._memory_mb = limits.memory_mb
        self._frozen = False
        job = {"spec": spec, "mark": mark, "seed": seed, "global_seed": global_seed, "workdir": self.workdir}
        job.update(uid=uid, memory_mb=limits.memory_mb, processes=limits.processes)
        job.update(disk_mb=limits.disk_mb, shm_mb=limits.shm_mb)
        counted = isolation.plan().memory != isolation.ADDRESS_SPACE and limits.memory_mb is not None
        # the memory cgroup's limit, before the host reads the agent's file; else RLIMIT_AS
        job["address_space"] = not (counted and memory.limit(self.pid, limits.memory_mb or 0))
        self.conn.send_bytes(json.dumps(job).encode())

    def __call__(self, obs: Any, config: Any) -> Any:
        self.on_turn(self.mark, list(obs.board))
        limit = float(config.actTimeout) + float(obs.remainingOverageTime) + GRACE
        if self.hang_limit is not None:
            limit = min(limit, self.hang_limit)
        self._id += 1
        deadline = time.monotonic() + limit
        try:
            self.conn.send_bytes(json.dumps({"id": self._id, "obs": obs, "config": config}).encode())
            self._thaw()  # after the request: the host, woken once, finds it waiting
            while True:
                left = deadline - time.monotonic()
                ready = wait(self._watched, left) if left > 0 else []
                if not ready:
                    self.note = f"mark {self.mark} did not return within {limit:.1f} s"
                    return DeadlineExceeded(self.note)
                if self.conn not in ready:  # the host ended, whoever holds its pipe open
                    raise EOFError
                reply = json.loads(self.conn.recv_bytes(MAX_REPLY))
                if isinstance(reply, dict) and reply.get("id") == self._id:
                    break
            if "error" in reply:
                self.note = f"mark {self.mark} raised {reply['error']}\n{reply.get('traceback', '')}".rstrip()
                raise RuntimeError(self.note)
            self.last_action = decode(reply.get("action"))
        except (EOFError, OSError):
            self.note = f"mark {self.mark}'s process {self._ended()} during its move"
            raise RuntimeError(self.note) from None
        except (ValueError, TypeError, KeyError):
            self.note = f"mark {self.mark} sent a malformed reply"
            raise RuntimeError(self.note) from None
        finally:
            self._freeze()
        return self.last_action

    def _freeze(self) -> None:
        """Stop the host's processes until its next move (:mod:`~tournament.sandbox.freezer`)."""
        if not self._frozen and self.pid:
            self._freezer.freeze()
            self._frozen = True

    def _thaw(self) -> None:
        if self._frozen:
            self._freezer.thaw()
            self._frozen = False

    def _ended(self) -> str:
        """How the host ended: 'exited (exit code N)', 'was killed by SIGX' (and, when the kernel's
        OOM killer struck in its memory cgroup, 'out of memory': :mod:`~tournament.sandbox.memory`)
        or 'stopped answering'."""
        how = self._zygote.ended(self.pid) if self._zygote is not None else ending(self.pid)
        if how.startswith("was killed") and memory.out_of_memory(self.pid):
            how += f" (out of memory: over --agent-memory {self._memory_mb} MiB)"
        if how != "stopped answering":
            self.pid = 0  # reaped: its number may be reused
        return how

    def kill(self) -> None:
        """Kill the host's process group and the host, and remove its directory, without waiting for
        them to end: a killed process runs no more code, and the kernel frees it meanwhile. Whoever
        owns the host reaps it: :meth:`close`, or :func:`kill_descendants` (a game process)."""
        if not self.conn.closed:
            self.conn.close()
        for fd in self._watched[1:]:
            os.close(fd)
        del self._watched[1:]
        self._freezer.kill()
        self._freezer.close()
        for kill, pid in ((os.killpg, self.group), (os.kill, self.pid)):
            try:
                if pid:
                    kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._scratch.close()

    def close(self) -> None:
        """Kill the host (:meth:`kill`) and, unless a zygote forked it, reap it and remove its cgroup
        (:func:`~tournament.sandbox.freezer.remove`)."""
        self.kill()
        if self._zygote is None:
            if self.pid:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(self.pid, 0)
            freezer.remove(self.group, wait=1.0)
            memory.remove(self.group, wait=1.0)
            self.pid = 0
