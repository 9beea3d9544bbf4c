"""``connectx report`` and ``report --analyze`` on a run that cannot be written: a read-only bind mount
of a stored run, in a mount namespace of its own (``unshare -m``; skipped where that is not allowed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.records import settings_for, synthetic_records
from tournament.store import Store

ROOT = Path(__file__).parent.parent
AGENTS = ("alpha", "beta")


def in_read_only_view(tmp_path: Path, source: Path, *argv: str) -> subprocess.CompletedProcess:
    """Run ``connectx ARGV`` (``VIEW`` in it replaced) where VIEW is a read-only bind mount of ``source``."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    view = tmp_path / "view"
    view.mkdir()
    command = [sys.executable, "-m", "connectx", *(str(view) if a == "VIEW" else a for a in argv)]
    script = f"mount --bind {source} {view} && mount -o remount,bind,ro {view} && " + " ".join(
        f"'{part}'" for part in command
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    if done.returncode != 0 and "mount" in done.stderr and "connectx" not in done.stderr:
        pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    return done


@pytest.fixture
def stored(tmp_path) -> Path:
    """A run of one game pair (``--analyze`` judges every move of it, about 0.1 s of CPU a game)."""
    run = tmp_path / "run"
    records = [r for r in synthetic_records(AGENTS, 1) if (r.task.rows, r.task.columns) == (6, 7)]
    assert len(records) == 2
    with Store.create(run, settings_for(AGENTS, 1)) as store:
        for record in records:
            store.add(record)
    return run


def test_report_of_a_read_only_run_prints_the_standings_and_writes_nothing(stored, tmp_path):
    before = sorted(path.name for path in stored.iterdir())
    done = in_read_only_view(tmp_path, stored, "report", "VIEW")
    assert done.returncode == 0, done.stderr
    assert "alpha" in done.stdout and "read-only" in done.stdout
    assert sorted(path.name for path in stored.iterdir()) == before


def test_report_out_writes_a_read_only_runs_reports_and_analysis_elsewhere(stored, tmp_path):
    out = tmp_path / "elsewhere"
    done = in_read_only_view(tmp_path, stored, "report", "VIEW", "--analyze", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "report.html").is_file() and (out / "moves.csv").is_file()
    assert "perfect play" in (out / "report.html").read_text().lower()
    assert not (stored / "report.html").exists() and not (stored / "moves.csv").exists()
