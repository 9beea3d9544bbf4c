"""Scratch directories of the runner in the temporary directory, which outlive no process that made them
for long.

A runner's game processes keep their agents' working directories in a scratch directory of their
slot, each agent's working directory is one too (:class:`tournament.sandbox.AgentProcess`, also
outside the runner: ``connectx play``), and a game played on a Ray worker keeps its shipped agent
files in one of its own. The process
that makes one removes it when done; one that is killed (``SIGKILL``, a Ray task cancelled with
``force=True``, a machine that runs out of memory) cannot, so the next :class:`Scratch` made on the
machine removes it instead.

How a directory left behind is told from one in use: its maker holds an exclusive ``flock`` on it
for as long as it lives, and the kernel releases the lock when the last descriptor of it closes,
which happens when the maker and the processes it forked (they die with it) are gone. A directory
is made and locked under another name (``connectx-making-*``), then renamed, so a sweep never
takes one that is not locked yet for one left behind; one of those is swept only after
:data:`MAKING_AGE` seconds. Directories of other names are never touched. Sources: ``flock(2)``,
``rename(2)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path
from types import TracebackType

PREFIX = "connectx-scratch-"
"""Every scratch directory's name starts with it, then its kind, e.g. ``connectx-scratch-slot0-k2v9x1``."""

MAKING = "connectx-making-"
"""The name of a scratch directory before it is locked and renamed."""

MAKING_AGE = 60.0
"""Seconds after which a directory still named :data:`MAKING` is taken for one left behind."""


def sweep() -> list[str]:
    """Remove the scratch directories in the temporary directory (``tempfile.gettempdir()``) whose
    makers are gone, that is whose lock can be taken at once; return their paths. An entry that
    vanishes or cannot be opened meanwhile (another user's, unless this process is root) is skipped."""
    removed = []
    base = Path(tempfile.gettempdir())
    for path in sorted([*base.glob(f"{PREFIX}*"), *base.glob(f"{MAKING}*")]):
        try:
            if path.name.startswith(MAKING) and time.time() - path.lstat().st_mtime < MAKING_AGE:
                continue
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # in use
            continue
        else:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(str(path))
        finally:
            os.close(fd)
    return removed


class Scratch:
    """A new scratch directory ``connectx-scratch-KIND-XXXXXXXX`` in the temporary directory, locked
    by this process until :meth:`close` removes it (module docstring). Making one first sweeps away those
    whose makers are gone (:func:`sweep`), unless ``sweep_first`` is False (one made inside a
    scratch directory, which goes whole). ``mode`` is the directory's permission bits. Usable as a
    context manager. Raises ``OSError`` when the directory cannot be made.
    """

    def __init__(self, kind: str, mode: int = 0o700, *, sweep_first: bool = True) -> None:
        if sweep_first:
            sweep()
        making = tempfile.mkdtemp(prefix=MAKING)
        self._fd = os.open(making, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        os.chmod(making, mode)
        folder, name = os.path.split(making)
        self.path = os.path.join(folder, f"{PREFIX}{kind}-{name.removeprefix(MAKING)}")
        os.rename(making, self.path)

    def close(self) -> None:
        """Remove the directory and all in it, and release its lock (again: nothing)."""
        if self._fd >= 0:
            try:
                os.rmdir(self.path)  # the common case, an agent that wrote nothing: one system call
            except OSError:
                shutil.rmtree(self.path, ignore_errors=True)
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> str:
        return self.path

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
