"""One BLAS thread for the network's forward pass, with the standard library only (``ctypes``).

The network's matrix products are small (at most a few hundred rows by 576 by 64), and OpenBLAS
splits them over every core. Its threads spin-wait for one another, so when another process keeps a
core busy (the opponent's agent on Kaggle, anything else on a desktop) a product waits for a thread
that is not running: a move took a median of 288 ms and a p95 of 572 ms instead of about 1 ms. One
thread is as fast as two on these sizes and never waits (``python -m benchmarks.network_busy``).

:func:`one_thread` sets the thread count of every BLAS library numpy has loaded to 1 for the length
of a ``with`` block and restores the previous counts afterwards, so the rest of the process keeps its
threads. The libraries are found as loaded shared objects (``/proc/self/maps`` on Linux) and in the
folder of libraries that numpy's wheels ship (``numpy.libs``, ``numpy/.dylibs``); a library is used
when it exports one of the setters in :data:`CONTROLS` (OpenBLAS, numpy's ``scipy_openblas``
builds, MKL). Where none is found (Apple's Accelerate, a BLAS without threads) the block runs
unchanged. Not thread-safe: two threads of one process running forward passes at once may leave the
count at 1.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

__all__ = ["CONTROLS", "one_thread"]

CONTROLS = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
    ("MKL_Get_Max_Threads", "MKL_Set_Num_Threads"),
)
"""(getter, setter) symbol pairs of BLAS thread counts, tried in this order in each library."""

_MARKERS = ("blas", "mkl_rt")
_LOADED_ONLY = getattr(os, "RTLD_NOLOAD", 0) | getattr(os, "RTLD_LAZY", 0)
"""``dlopen`` mode on POSIX: open a library only if the process has loaded it already."""

Control = tuple[Callable[[], int], Callable[[int], None]]
_controls: list[Control] | None = None


def _candidate_paths() -> list[str]:
    """Paths of shared libraries that may be numpy's BLAS: loaded ones, then numpy's wheel folders."""
    paths: list[str] = []
    with contextlib.suppress(OSError), open("/proc/self/maps") as maps:
        for line in maps:
            path = line.rstrip("\n").partition("/")[2]
            if any(marker in path.lower() for marker in _MARKERS):
                paths.append("/" + path)
    numpy_dir = Path(np.__file__).parent
    for folder in (numpy_dir.parent / "numpy.libs", numpy_dir / ".dylibs"):
        with contextlib.suppress(OSError):
            paths += sorted(str(p) for p in folder.iterdir() if any(m in p.name.lower() for m in _MARKERS))
    return list(dict.fromkeys(paths))


def _find_controls() -> list[Control]:
    controls: list[Control] = []
    seen: set[int] = set()
    for path in _candidate_paths():
        try:
            library = ctypes.CDLL(path, mode=_LOADED_ONLY)  # Windows ignores the mode
        except OSError:
            continue
        if library._handle in seen:
            continue
        seen.add(library._handle)
        for getter, setter in CONTROLS:
            if hasattr(library, getter) and hasattr(library, setter):
                get, set_ = getattr(library, getter), getattr(library, setter)
                get.restype, get.argtypes = ctypes.c_int, []
                set_.restype, set_.argtypes = None, [ctypes.c_int]
                controls.append((get, set_))
                break
    return controls


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run the ``with`` block with one BLAS thread, restoring the previous thread counts after it.

    The libraries are looked up at the first call (about a millisecond) and remembered; each later
    call costs about a microsecond. Never raises on its own: without a known BLAS it does nothing.
    """
    global _controls
    if _controls is None:
        _controls = _find_controls()
    previous = [get() for get, _ in _controls]
    for _, set_ in _controls:
        set_(1)
    try:
        yield
    finally:
        for (_, set_), count in zip(_controls, previous, strict=True):
            set_(count)
