"""Resource limits of an agent's process (:mod:`tournament.sandbox`), light enough for the CLI to import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of an agent's host process.

    ``memory_mb``: address space in MiB (``RLIMIT_AS``; None for no limit). ``processes``: processes
    and threads its user may have (``RLIMIT_NPROC``), applied only where the host has a user of its
    own (the runner is root). Raises ValueError when a limit is below 1.
    """

    memory_mb: int | None = 8192
    processes: int = 64

    def __post_init__(self) -> None:
        if (self.memory_mb is not None and self.memory_mb < 1) or self.processes < 1:
            raise ValueError("--agent-memory and --agent-processes must be at least 1 (0 memory: no limit)")
