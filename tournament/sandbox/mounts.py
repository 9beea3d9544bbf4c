"""The agents' view of the file system when the runner is root: a mount namespace of their own
(``mount_namespaces(7)``), built once by each game process's zygote, which its hosts enter once they
have loaded their agents (:class:`View`). In it:

* the folders given (the Python installation and the project's packages, the folder of the agents'
  working directories) stay where they are, but a folder above them that other users cannot enter
  (``/root``, mode 0700, holding pyenv's Python) is covered by a tmpfs of its own that they can
  enter but not list, holding those folders alone (bind mounts): so an agent's user imports without
  any capability, and sees nothing else of the covered folder;
* ``/proc`` is a procfs of its own mounted with ``hidepid=2`` (``invisible``): a process sees there
  only the processes it may trace, those of its own user that are dumpable (``proc(5)``), so no
  other process's command line, status or working directory;

Each host then makes a mount namespace of its own from the view (:func:`private`), holding two
tmpfs of its own, bounded, whose files go with the host's last process: ``/dev/shm``
(``multiprocessing``'s locks and queues make their POSIX semaphores there) and its working
directory. So no agent sees the other's files there, and none can fill the disk or the machine's
``/dev/shm``.

Nothing of it is seen outside the namespace (every mount in it is private). The namespace lives as
long as a process in it or a descriptor of it does. Building it needs ``CAP_SYS_ADMIN``, which a
container's root may lack (Docker grants it only with ``--privileged`` or ``--cap-add SYS_ADMIN``,
and its default seccomp profile refuses ``unshare`` without it): :meth:`View.build` then gives None.
Sources: ``unshare(2)``, ``setns(2)``, ``mount(2)``, ``open_tree(2)``, ``move_mount(2)``,
``proc(5)``, ``tmpfs(5)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = ["View", "private"]

_libc = ctypes.CDLL(None, use_errno=True)

_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
_OPEN_TREE, _MOVE_MOUNT = 428, 429  # the same numbers on every architecture
_OPEN_TREE_CLONE, _AT_RECURSIVE, _MOVE_MOUNT_F_EMPTY_PATH = 0x1, 0x8000, 0x4
_AT_FDCWD = -100


def _check(result: int, what: str) -> int:
    """``result`` of a libc call, or OSError with errno when it is negative."""
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    """``mount(source, target, kind, flags, data)`` (``mount(2)``); raises OSError when it fails."""
    source_, kind_, data_ = (None if text is None else text.encode() for text in (source, kind, data))
    _check(_libc.mount(source_, target.encode(), kind_, ctypes.c_ulong(flags), data_), f"mount {target}")


def _setns(fd: int) -> None:
    """Move the calling process into the mount namespace of ``fd`` (``setns(2)``)."""
    _check(_libc.setns(fd, _CLONE_NEWNS), "setns")


def _clone(folder: str) -> int:
    """A detached copy of the mounts at and beneath ``folder`` (``open_tree(2)``), as a descriptor."""
    flags = _OPEN_TREE_CLONE | _AT_RECURSIVE | os.O_CLOEXEC
    return _check(_libc.syscall(ctypes.c_long(_OPEN_TREE), _AT_FDCWD, folder.encode(), flags), "open_tree")


def _attach(tree: int, folder: str) -> None:
    """Mount the detached ``tree`` (:func:`_clone`) on ``folder`` (``move_mount(2)``)."""
    flags = _MOVE_MOUNT_F_EMPTY_PATH
    _check(
        _libc.syscall(ctypes.c_long(_MOVE_MOUNT), tree, b"", _AT_FDCWD, folder.encode(), flags), "move_mount"
    )


def outermost(folders: Iterable[str]) -> list[str]:
    """The real paths of ``folders``, sorted, but those beneath another of them.

    >>> outermost(["/usr/lib", "/usr", "/etc"])
    ['/etc', '/usr']
    """
    real = sorted({os.path.realpath(folder) for folder in folders})
    return [
        path for path in real if not any(Path(path).is_relative_to(other) for other in real if other != path)
    ]


def covers(folders: Iterable[str]) -> dict[str, list[str]]:
    """The folders other users cannot enter that stand above ``folders``, each with the folders
    beneath it (:func:`outermost` of them): the highest such folder on each one's path, the root
    excluded.

    >>> covers(["/"])
    {}
    """
    found: dict[str, list[str]] = {}
    for path in outermost(folders):
        for above in reversed(Path(path).parents[:-1]):  # from the top, / excluded
            if not os.stat(above).st_mode & stat.S_IXOTH:
                found.setdefault(str(above), []).append(path)
                break
    return found


class View:
    """The agents' mount namespace (module docstring): descriptors of it (``namespace``) and of its
    ``/proc`` (``proc``)."""

    def __init__(self, namespace: int, proc: int) -> None:
        self.namespace, self.proc = namespace, proc

    @classmethod
    def build(cls, folders: Iterable[str]) -> View | None:
        """Build the view, exposing ``folders`` (module docstring), and stay in the caller's own mount
        namespace, in its working directory; None when this process may not (no ``CAP_SYS_ADMIN``, a
        seccomp filter, a multi-threaded caller). Touches nothing outside the new namespace."""
        try:
            own = os.open("/proc/self/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        here = os.open(".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            if _libc.unshare(_CLONE_NEWNS) != 0:
                return None
            try:
                return cls._furnish(covers(folders))
            except OSError:
                return None
            finally:
                _setns(own)  # which moves this process to its root directory
                os.fchdir(here)
        finally:
            os.close(own)
            os.close(here)

    @classmethod
    def _furnish(cls, covered: dict[str, list[str]]) -> View:
        """Mount the view in the calling process's new namespace (:meth:`build`) and return it."""
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
        for above, folders in covered.items():
            trees = [_clone(folder) for folder in folders]  # taken before the tmpfs hides them
            try:
                _mount("tmpfs", above, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "mode=0711,size=64k")
                for folder, tree in zip(folders, trees, strict=True):
                    relative = Path(folder).relative_to(above)
                    for step in [*reversed(relative.parents[:-1]), relative]:  # its own folders, 0711
                        with contextlib.suppress(FileExistsError):
                            os.mkdir(Path(above) / step, 0o711)
                    _attach(tree, folder)
            finally:
                for tree in trees:
                    os.close(tree)
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2")
        namespace = os.open("/proc/self/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
        return cls(namespace, os.open("/proc", os.O_PATH | os.O_CLOEXEC))

    @property
    def descriptors(self) -> tuple[int, int]:
        """Its descriptors, which a process forked to enter it keeps until it has (:meth:`close`)."""
        return self.namespace, self.proc

    def enter(self) -> None:
        """Move the calling process (root, single-threaded) into the view. Its working and root
        directories become the view's root; raises ``OSError`` when it may not."""
        _setns(self.namespace)

    def close(self) -> None:
        """Close this process's descriptors of it (the namespace lives on while a process is in it)."""
        for fd in self.descriptors:
            os.close(fd)


def private(workdir: str, uid: int, disk_mb: int, shm_mb: int) -> None:
    """Move the calling process (root, single-threaded, in the view: :meth:`View.enter`) into a
    mount namespace of its own, made from the view, in which ``/dev/shm`` is a tmpfs of ``shm_mb``
    MiB that any user may write (mode ``1777``) and ``workdir`` a tmpfs of ``disk_mb`` MiB that only
    user ``uid`` may enter. Both are empty, and go with the last process in the namespace; a write
    beyond their size fails with ``ENOSPC``. Raises ``OSError`` when a step fails."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare")
    flags = _MS_NOSUID | _MS_NODEV
    _mount("tmpfs", "/dev/shm", "tmpfs", flags, f"size={shm_mb}m,mode=1777")
    _mount("tmpfs", workdir, "tmpfs", flags, f"size={disk_mb}m,mode=0700,uid={uid},gid={uid}")
