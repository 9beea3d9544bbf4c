"""The README's test command exits 0 on a green suite where an extra is missing: a test that needs
what is not installed (the ``[rl]`` or ``[ray]`` extra, Chromium) is listed as skipped, not a crash.

The tests of ``tests/data/isolated/`` skip in each way an isolated test can (run in a child pytest
process, :mod:`tests.conftest`): as it runs (``pytest.importorskip``) and by its marker. Their
reports come back through JSON, and pytest-xdist's short summary (``-ra``) once failed on them with
an ``AssertionError`` after every test had passed: exit status 1.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_isolated_tests_that_skip_are_listed_and_the_suite_exits_0():
    command = [sys.executable, "-m", "pytest", "tests/data/isolated/test_skips.py", "-ra", "-n", "1"]
    done = subprocess.run(
        [*command, "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "1 passed, 2 skipped" in said and "AssertionError" not in said
    assert "SKIPPED [1] tests/data/isolated/test_skips.py:8: could not import 'no_such_module" in said
    assert "SKIPPED [1] tests/data/isolated/test_skips.py:11: a marker's skip" in said
