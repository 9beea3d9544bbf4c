"""Resource limits of an agent's process (:mod:`tournament.sandbox`), light enough for the CLI to import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of an agent's host process.

    ``memory_mb``: MiB of memory (None for no limit): of the host's whole process tree, its tmpfs
    files, ``memfd`` files and shared memory included, where a memory cgroup bounds it
    (:mod:`tournament.sandbox.memory`), else of each process's address space (``RLIMIT_AS``).
    ``processes``: processes and threads its user may have (``RLIMIT_NPROC``), applied only where
    the host has a user of its own (the runner is root). ``disk_mb``: MiB it may write: the size of
    its working directory, a tmpfs of its own where the hosts have mounts of their own, and
    everywhere the largest file it may write (``RLIMIT_FSIZE``). ``shm_mb``: the size of its own
    ``/dev/shm`` (a tmpfs, where the hosts have mounts of their own; 64 MiB is Docker's default for
    a container's). Both tmpfs hold their files in memory, counted in ``memory_mb`` only where a
    memory cgroup bounds it. Raises ValueError when a limit is below 1.
    """

    memory_mb: int | None = 8192
    processes: int = 64
    disk_mb: int = 1024
    shm_mb: int = 64

    def __post_init__(self) -> None:
        smallest = min(self.processes, self.disk_mb, self.shm_mb)
        if (self.memory_mb is not None and self.memory_mb < 1) or smallest < 1:
            raise ValueError(
                "--agent-memory, --agent-processes, --agent-disk and --agent-shm must be at least 1 "
                "(0 memory: no limit)"
            )
