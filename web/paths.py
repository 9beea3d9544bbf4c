"""Which paths under DIR the server may read: :func:`inside`.

A page names a run or a file by its path relative to DIR, as it appears in a URL (``exp/net350``,
``exp/net350/report.md``). The name is refused unless it is relative and has no ``..`` part, and its
resolved path (symbolic links followed) still lies within DIR: a link inside DIR to a folder outside
it is refused like a ``..``. Starlette hands over the URL's path decoded once, so ``%2e%2e`` arrives as
``..`` and is refused; ``%252e%252e`` arrives as the name ``%2e%2e``, which names nothing.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

__all__ = ["Refused", "inside"]


MAX_NAME = 1024
"""The longest name taken, in characters (a part of it: 255 bytes, the longest file name)."""


class Refused(ValueError):
    """A name that leads outside DIR, or is not a name at all; the message says which, in one line."""


def inside(root: Path, name: str) -> Path:
    """The path ``name`` (``/``-separated, relative) within ``root``, resolved.

    ``root`` must be resolved already. The path need not exist. Raises :class:`Refused` for an
    absolute name, a ``..`` part, a NUL or backslash, or a path whose resolution leaves ``root``.

    >>> str(inside(Path("/srv/runs"), "exp/a"))
    '/srv/runs/exp/a'
    >>> inside(Path("/srv/runs"), "../etc")
    Traceback (most recent call last):
    ...
    web.paths.Refused: '../etc' is not a path inside the served folder
    """
    parts = PurePosixPath(name).parts
    if not name or "\0" in name or "\\" in name or PurePosixPath(name).is_absolute() or ".." in parts:
        raise Refused(f"{name[:80]!r} is not a path inside the served folder")
    if len(name) > MAX_NAME or any(len(part.encode()) > 255 for part in parts):
        raise Refused(f"{name[:80]!r}... is too long to name a file in the served folder")
    path = root.joinpath(*parts).resolve()
    if not path.is_relative_to(root):
        raise Refused(f"{name!r} leads outside the served folder")
    return path
