"""Resource limits of an agent's process (:mod:`tournament.sandbox`), light enough for the CLI to import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of an agent's host process.

    ``memory_mb``: address space in MiB (``RLIMIT_AS``; None for no limit). ``processes``: processes
    and threads its user may have (``RLIMIT_NPROC``), applied only where the host has a user of its
    own (the runner is root). ``disk_mb``: MiB it may write: the size of its working directory, a
    tmpfs of its own where the hosts have mounts of their own, and everywhere the largest file it may
    write (``RLIMIT_FSIZE``). ``shm_mb``: the size of its own ``/dev/shm`` (a tmpfs, where the hosts
    have mounts of their own; 64 MiB is Docker's default for a container's). Both tmpfs hold their
    files in memory, outside ``memory_mb``. Raises ValueError when a limit is below 1.
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
