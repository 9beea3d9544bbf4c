"""The Landlock rules of the agents' hosts: what :mod:`~tournament.sandbox.isolation` says a host may
read and write, as rules (:class:`Shared`, those all hosts share, opened once by the zygote;
:func:`allow_own` and :func:`allow_private`, each host's own). Source: ``landlock(7)``.
"""

from __future__ import annotations

import os

from tournament.sandbox import landlock
from tournament.sandbox.isolation import DEVICES, PROC, SHARED_MEMORY, SYSTEM, python_folders
from tournament.sandbox.mounts import View, outermost

__all__ = ["Shared", "allow_own", "allow_private"]

_PROC_READ = landlock.READ_FILE | landlock.READ_DIR


class Shared:
    """The Landlock rules every agent's host shares (module docstring): read the Python installation
    and its packages and :data:`SYSTEM`, read and write :data:`DEVICES`, and read ``/proc`` in the
    agents' mount namespace ``view`` (whose ``/proc`` shows no other process), else :data:`PROC`
    and everything in :data:`SHARED_MEMORY` (in the view each host has a ``/dev/shm`` of its own:
    :func:`allow_own`); with ``tcp``, no TCP (:class:`~tournament.sandbox.landlock.Ruleset`). Each
    path is opened once (``O_PATH``), by the process that forks the hosts (the zygote), so that
    :meth:`ruleset` costs it a system call a rule and the host nothing. Raises ``OSError`` without
    Landlock."""

    def __init__(self, view: View | None, *, tcp: bool = False) -> None:
        read, device = landlock.READ, landlock.READ_FILE | landlock.WRITE_FILE
        paths = [(folder, read) for folder in outermost([*python_folders(), *SYSTEM])]
        paths += [(file, device) for file in DEVICES]
        if view is None:
            paths += [(SHARED_MEMORY, landlock.ALL), *((entry, _PROC_READ) for entry in PROC)]
        opened = [(fd, rights) for path, rights in paths if (fd := _open(path)) is not None]
        self._own = [fd for fd, _ in opened]
        if view is not None:
            opened.append((view.proc, _PROC_READ))
        self._rules = [landlock.rule(fd, rights) for fd, rights in opened]
        self._tcp = tcp

    def ruleset(self) -> landlock.Ruleset:
        """A new Landlock ruleset holding these rules, for one host to add its own to
        (:func:`allow_own`)."""
        rules = landlock.Ruleset(tcp=self._tcp)
        for rule in self._rules:
            rules.add(rule)
        return rules

    def close(self) -> None:
        """Close the descriptors it opened (not the view's)."""
        for fd in self._own:
            os.close(fd)


def _open(path: str) -> int | None:
    """``path`` opened with ``O_PATH`` (to name it in a rule), or None when it does not exist."""
    try:
        return os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return None


def allow_own(rules: landlock.Ruleset, workdir: str, files: list[str], view: bool) -> None:
    """Add the host's own rules to ``rules`` (:meth:`Shared.ruleset`): every right in its working
    directory ``workdir``, reading the ``files`` its spec reads, and, outside the agents' mount
    namespace (no ``view``), reading its own entry in ``/proc``. Opens each path, so call it while
    the host may still reach them (before :func:`~tournament.sandbox.confinement.drop_privileges`,
    and before it enters the view, where a file under a covered folder is hidden; then
    :func:`allow_private`), then :meth:`~tournament.sandbox.landlock.Ruleset.restrict` once it is
    unprivileged."""
    rules.allow(workdir, landlock.ALL)
    for file in files:
        rules.allow(file, landlock.READ_FILE)
    if not view:
        rules.allow(f"/proc/{os.getpid()}", _PROC_READ)


def allow_private(rules: landlock.Ruleset, workdir: str, proc: bool = False) -> None:
    """Add every right in the host's own tmpfs (:func:`~tournament.sandbox.mounts.private`) to
    ``rules``: its working directory ``workdir`` and ``/dev/shm``, as it sees them once it has
    mounted them, and, with ``proc``, reading the ``/proc`` of its own pid namespace."""
    rules.allow(workdir, landlock.ALL)
    rules.allow(SHARED_MEMORY, landlock.ALL)
    if proc:
        rules.allow("/proc", _PROC_READ)
