"""The agents' view of the file system when the runner is root: a mount namespace of their own
(``mount_namespaces(7)``), built once by each game process's zygote, which its hosts enter once they
have loaded their agents (:class:`View`). Its root is a tmpfs of its own (``pivot_root(2)``), which
shows only what an agent needs, each where it is on the machine:

* the folders given: the Python installation and the project's packages (bind mounts), and the
  system's folders (``/usr``, ``/etc`` ..., symbolic links such as ``/lib -> usr/lib`` made again);
  a folder above them (``/root``, mode 0700, holding pyenv's Python) holds those alone, so an
  agent's user imports without any capability and sees nothing else of it;
* the devices given (``/dev/null``, ``/dev/urandom`` ...), and ``/dev/fd``;
* ``/proc``, a procfs of its own mounted with ``hidepid=2`` (``invisible``): a process sees there
  only the processes it may trace, those of its own user that are dumpable (``proc(5)``), so no
  other process's command line, status or working directory;
* and nothing else: no ``/tmp``, ``/run``, ``/var``, ``/home``, nor the project's folder, so no
  pathname Unix socket of the machine (a listener's under ``/tmp``, Docker's under ``/run``) is
  there to ``connect(2)`` to, which neither file permissions (a socket of mode 0777) nor Landlock
  (which does not cover ``connect``) would refuse.

Each host then makes a mount namespace of its own from the view (:func:`private`), holding two
tmpfs of its own, bounded in size and in files (:data:`FILES`), whose files go with the host's last
process: ``/dev/shm`` (``multiprocessing``'s locks and queues make their POSIX semaphores there) and
its working directory, :data:`WORKDIR`; the files its spec reads (its agent file, a weights file),
bound at their paths; and, in a pid namespace of its own (:mod:`~tournament.sandbox.namespaces`), a
``/proc`` of that namespace. So no agent sees the other's files there, and none can fill the disk,
the machine's ``/dev/shm`` or the kernel's memory with inodes.

Nothing of it is seen outside the namespace (every mount in it is private). The namespace lives as
long as a process in it or a descriptor of it does. Building it needs ``CAP_SYS_ADMIN``, which a
container's root may lack (Docker grants it only with ``--privileged`` or ``--cap-add SYS_ADMIN``,
and its default seccomp profile refuses ``unshare`` without it): :meth:`View.build` then gives None.
Sources: ``unshare(2)``, ``setns(2)``, ``mount(2)``, ``pivot_root(2)``, ``open_tree(2)``,
``move_mount(2)``, ``proc(5)``, ``tmpfs(5)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["FILES", "WORKDIR", "View", "clone_files", "private"]

FILES = 100_000
"""Inodes of each of a host's tmpfs (``nr_inodes``): its root folder and at most 99,999 files and
folders; one more fails with ``ENOSPC``. A file costs the kernel about 1 KiB that no size counts."""

WORKDIR = "/agent"
"""A host's working directory in the view (outside it, its scratch folder in the temporary directory)."""

_libc = ctypes.CDLL(None, use_errno=True)

_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
_MNT_DETACH = 0x2
_OPEN_TREE, _MOVE_MOUNT, _PIVOT_ROOT = 428, 429, {"x86_64": 155, "aarch64": 41}.get(os.uname().machine, 155)
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


def _clone(path: str) -> int:
    """A detached copy of the mounts at and beneath ``path`` (``open_tree(2)``), as a descriptor."""
    flags = _OPEN_TREE_CLONE | _AT_RECURSIVE | os.O_CLOEXEC
    return _check(_libc.syscall(ctypes.c_long(_OPEN_TREE), _AT_FDCWD, path.encode(), flags), "open_tree")


def _attach(tree: int, path: str) -> None:
    """Mount the detached ``tree`` (:func:`_clone`) on ``path`` (``move_mount(2)``), making the folders
    (mode 0755) or the empty file it needs first."""
    folder = stat.S_ISDIR(os.fstat(tree).st_mode)
    os.makedirs(path if folder else os.path.dirname(path), 0o755, exist_ok=True)
    if not folder and not os.path.lexists(path):
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
    flags = _MOVE_MOUNT_F_EMPTY_PATH
    _check(
        _libc.syscall(ctypes.c_long(_MOVE_MOUNT), tree, b"", _AT_FDCWD, path.encode(), flags), "move_mount"
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


def _links(paths: Iterable[str], exposed: list[str]) -> dict[str, str]:
    """The symbolic links among ``paths`` (``/lib -> usr/lib``) that no folder of ``exposed`` holds,
    each with its target: the view makes them again.

    >>> _links(["/nowhere"], ["/usr"])
    {}
    """
    links: dict[str, str] = {}
    for path in paths:
        if os.path.islink(path) and not any(Path(path).is_relative_to(folder) for folder in exposed):
            links[os.path.abspath(path)] = os.readlink(path)
    return links


class View:
    """The agents' mount namespace (module docstring): descriptors of it (``namespace``) and of its
    ``/proc`` (``proc``)."""

    def __init__(self, namespace: int, proc: int) -> None:
        self.namespace, self.proc = namespace, proc

    @classmethod
    def build(cls, folders: Iterable[str], devices: Iterable[str] = ()) -> View | None:
        """Build the view, showing ``folders`` (those that exist, symbolic links made again) and the
        files ``devices`` (module docstring), and stay in the caller's own mount namespace, in its
        working directory; None when this process may not (no ``CAP_SYS_ADMIN``, a seccomp filter,
        a multi-threaded caller). Touches nothing outside the new namespace."""
        try:
            own = os.open("/proc/self/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        here = os.open(".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            if _libc.unshare(_CLONE_NEWNS) != 0:
                return None
            try:
                return cls._furnish(
                    [f for f in folders if os.path.exists(f)], [d for d in devices if os.path.exists(d)]
                )
            except OSError:
                return None
            finally:
                _setns(own)  # which moves this process to its root directory
                os.fchdir(here)
        finally:
            os.close(own)
            os.close(here)

    @classmethod
    def _furnish(cls, folders: list[str], devices: list[str]) -> View:
        """Make the view's root in the calling process's new namespace (:meth:`build`), move to it
        (``pivot_root``, the old root detached) and return the view."""
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
        exposed = outermost(folders)
        trees = [(path, _clone(path)) for path in [*exposed, *devices]]
        try:
            root = "/tmp"  # any folder: what it held is cloned, and the old root goes
            _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=1m")
            for path, tree in trees:
                _attach(tree, root + path)
        finally:
            for _, tree in trees:
                os.close(tree)
        for link, target in _links(folders, exposed).items():
            os.makedirs(os.path.dirname(root + link), 0o755, exist_ok=True)
            os.symlink(target, root + link)
        for folder in ("/proc", "/dev/shm", "/tmp", WORKDIR):
            os.makedirs(root + folder, 0o755, exist_ok=True)
        os.symlink("/proc/self/fd", root + "/dev/fd")
        os.chdir(root)
        _check(_libc.syscall(ctypes.c_long(_PIVOT_ROOT), b".", b"."), "pivot_root")
        _check(_libc.umount2(b".", _MNT_DETACH), "umount the old root")
        os.chdir("/")
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


def clone_files(files: Iterable[str]) -> list[tuple[str, int]]:
    """Detached copies (:func:`_clone`) of ``files`` (absolute paths; those missing left out), taken
    by a host before it enters the view, where they are not, for :func:`private` to bind."""
    trees = []
    for path in files:
        with contextlib.suppress(OSError):
            trees.append((path, _clone(path)))
    return trees


def private(
    uid: int,
    disk_mb: int,
    shm_mb: int,
    files: Sequence[tuple[str, int]] = (),
    proc: bool = False,
) -> None:
    """Move the calling process (root, single-threaded, in the view: :meth:`View.enter`) into a
    mount namespace of its own, made from the view, in which ``/dev/shm`` is a tmpfs of ``shm_mb``
    MiB that any user may write (mode ``1777``), :data:`WORKDIR` a tmpfs of ``disk_mb`` MiB that only
    user ``uid`` may enter, each of :data:`FILES` inodes, the detached ``files``
    (:func:`clone_files`, then closed) are bound at their paths, and, with ``proc``, ``/proc`` is a
    procfs of the calling process's pid namespace (``hidepid=2``). The tmpfs are empty, and go with
    the last process in the namespace; a write beyond their size, or a file beyond their inodes,
    fails with ``ENOSPC``. Raises ``OSError`` when a step fails."""
    try:
        _check(_libc.unshare(_CLONE_NEWNS), "unshare")
        flags = _MS_NOSUID | _MS_NODEV
        _mount("tmpfs", "/dev/shm", "tmpfs", flags, f"size={shm_mb}m,nr_inodes={FILES},mode=1777")
        _mount(
            "tmpfs",
            WORKDIR,
            "tmpfs",
            flags,
            f"size={disk_mb}m,nr_inodes={FILES},mode=0700,uid={uid},gid={uid}",
        )
        for path, tree in files:
            _attach(tree, path)
        if proc:
            _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2")
    finally:
        for _, tree in files:
            os.close(tree)
