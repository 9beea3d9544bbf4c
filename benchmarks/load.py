"""A busy machine on demand: processes that spin for as long as a benchmark runs.

Users' machines are busy (a browser, a second game, Kaggle's worker running the opponent), so the
benchmarks that time agents can run beside ``K`` processes that each keep a core busy. Each is a
plain ``python -c "while True: pass"`` of this interpreter, started by :func:`spinning` and killed
when it exits.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["spinning"]

SPIN = "while True:\n    pass\n"


@contextmanager
def spinning(count: int, *, settle: float = 0.5) -> Iterator[None]:
    """``count`` spinning processes for the block's duration (none for ``count <= 0``), given
    ``settle`` seconds to start before the block runs; killed and reaped on exit, exceptions
    included."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(max(0, count))]
    try:
        if spinners:
            time.sleep(settle)
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
