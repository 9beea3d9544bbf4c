"""The process tree of a game: the processes that own agents' hosts kill everything they leave.

A game process (forked by the runner) and its zygote are *child subreapers*: an orphaned descendant,
such as a child an agent left in a session of its own, is re-parented to them rather than to init,
so :func:`kill_descendants` finds and kills it. The runner itself is not dumpable
(:func:`protect_runner`). Source: ``prctl(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Collection

from tournament.sandbox.confinement import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, PR_SET_PDEATHSIG, prctl


def protect_runner() -> None:
    """Make this process (the runner) non-dumpable: no other process of its user may read its memory,
    environment or working directory through ``/proc``, nor attach to it."""
    prctl(PR_SET_DUMPABLE, 0)


def become_subreaper() -> None:
    """Make this process a child subreaper: orphaned descendants are re-parented to it, not to init,
    so that :func:`kill_descendants` finds them."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def become_game_process() -> None:
    """Set up the calling process (a game, forked by the runner) to own its agents' processes: it
    dies with its parent, and it is a child subreaper."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    become_subreaper()


def children() -> list[int]:
    """The pids of this process's children (``/proc/self/task/*/children``)."""
    pids: list[int] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as file:
                pids.extend(int(pid) for pid in file.read().split())
        except OSError:
            continue
    return pids


def kill_descendants(spare: Collection[int] = ()) -> None:
    """Kill and reap every descendant of this process but the children ``spare`` and theirs (meant
    for a subreaper: see the module docstring), and but ``multiprocessing``'s resource tracker, a
    child of ours that no agent started (killed, it is started again with a warning that it "died
    unexpectedly", and what it tracked is lost).

    Kills the children, reaps them, and repeats with the orphans re-parented to it until none is left.
    """
    spare = {*spare, _resource_tracker()}
    while pids := [pid for pid in children() if pid not in spare]:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def reap(pid: int, within: float, poll: float) -> None:
    """Wait up to ``within`` seconds (looking every ``poll`` seconds) for the child ``pid`` to exit,
    kill it with ``SIGKILL`` if it has not, and reap it. Raises ChildProcessError when ``pid`` is not
    a child of this process (or was reaped already)."""
    deadline = time.monotonic() + within
    while not os.waitpid(pid, os.WNOHANG)[0]:
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return
        time.sleep(poll)


def _resource_tracker() -> int:
    """The pid of this process's ``multiprocessing`` resource tracker, 0 when it has none."""
    from multiprocessing import resource_tracker

    return int(getattr(resource_tracker._resource_tracker, "_pid", None) or 0)
