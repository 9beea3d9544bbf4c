"""Files written whole or not at all: :func:`replace_atomically`, the project's one atomic write.

A file is written under a temporary name in its own directory and renamed over its real name with
:func:`os.replace` (atomic on POSIX within one file system), so a reader, or a run interrupted while
writing, sees the old file or the new one, never half of one. Weights, training checkpoints and
shards, a tournament's new store, and every file of a report are written through it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["replace_atomically"]


def replace_atomically(
    path: str | os.PathLike[str], write: Callable[[Path], object], *, temporary: Path | None = None
) -> None:
    """Call ``write`` on a temporary path beside ``path``, then move that file to ``path``.

    The temporary name is ``temporary`` when given, else ``.NAME.PID.tmpSUFFIX`` in ``path``'s
    directory: it keeps ``path``'s suffix, for writers that choose a format by it (numpy's ``savez``
    adds ``.npz`` to a name without it, matplotlib picks the image format). The temporary file is
    removed when ``write`` raises; ``path`` is then left as it was. Raises what ``write`` and
    :func:`os.replace` raise (``OSError``: a read-only directory, a full disk).
    """
    path = Path(path)
    if temporary is None:
        temporary = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
