"""Files written whole or not at all: :func:`replace_atomically`, the project's one atomic write.

A file is written under a temporary name in its own directory, flushed to the disk
(:func:`os.fsync`), and renamed over its real name with :func:`os.replace` (atomic on POSIX within
one file system); then the directory is flushed too, so that the rename itself survives a power cut.
A reader, or a run interrupted while writing, sees the old file or the new one, never half of one,
and after a power cut never an empty one: without the first ``fsync`` the rename may reach the disk
before the data does (ext4's delayed allocation), without the second the rename may not reach it at
all (Linux's ``fsync(2)``: "Calling fsync() does not necessarily ensure that the entry in the
directory containing the file has also reached disk."). Weights, training checkpoints and shards,
opening books, a tournament's new store, and every file of a report are written through it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["replace_atomically"]


def replace_atomically(
    path: str | os.PathLike[str], write: Callable[[Path], object], *, temporary: Path | None = None
) -> None:
    """Call ``write`` on a temporary path beside ``path``, flush that file to the disk, move it to
    ``path`` and flush ``path``'s directory.

    The temporary name is ``temporary`` when given, else ``.NAME.PID.tmpSUFFIX`` in ``path``'s
    directory: it keeps ``path``'s suffix, for writers that choose a format by it (numpy's ``savez``
    adds ``.npz`` to a name without it, matplotlib picks the image format). The temporary file is
    removed when ``write`` raises; ``path`` is then left as it was. Raises what ``write``,
    :func:`os.fsync` and :func:`os.replace` raise (``OSError``: a read-only directory, a full disk).
    """
    path = Path(path)
    if temporary is None:
        temporary = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        write(temporary)
        _flush(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    _flush(path.parent)


def _flush(path: Path) -> None:
    """:func:`os.fsync` the file or directory ``path`` (through a descriptor of its own: on Linux,
    ``fsync`` writes out every change to the file, whichever descriptor made it)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
