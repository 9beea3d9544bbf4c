"""Size and first-move time of every built-in agent as a single-file Kaggle submission.

Usage: ``.venv/bin/python benchmarks/submissions.py [--agents SPEC ...] [--games N] [--act-timeout S]``

For each spec: build the file (:func:`submissions.build.build_spec`), run the full check
(:func:`submissions.check.check_file`: validation episode plus ``games`` against each of Kaggle's
``random`` and ``negamax``, Kaggle's own timings) and, in a separate fresh ``python -I`` process
with the project made unimportable, split move one into its parts (seconds):

* ``exec``: executing the file, as Kaggle's ``get_last_callable`` does;
* ``load``: executing the inlined modules and ``make_agent`` -- the built ``agent`` does this at its
  first call; at module level it would move into ``exec``, the sum staying the same;
* ``move``: the first move itself, on the empty board with ``actTimeout`` = ``--act-timeout``.

kaggle_environments is imported first in that process, as it is in Kaggle's, so the standard
library modules both use (``dataclasses``, ``typing``...) are already loaded.

Prints a Markdown table; ``overage`` is the most seconds beyond ``actTimeout`` the file drew from
its 60 s bank in one game (the check's default time policy allows it). Runs one game at a time (the
machine is shared): a few minutes with Kaggle's 2 s ``actTimeout``, most of it in ``negamax``, which
spends its free time on every move and part of its bank on exact solving.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Run as a script, this file's directory comes first on sys.path and this file, being named
# submissions.py, would hide the ``submissions`` package: drop that entry before importing it.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

from agents.kit.clock import DEFAULT_ACT_TIMEOUT  # noqa: E402
from agents.registry import BUILTIN  # noqa: E402
from submissions import probe  # noqa: E402
from submissions.build import build_spec, write  # noqa: E402
from submissions.check import PROJECT_ROOT, check_file  # noqa: E402

SPLIT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import probe
probe.isolate(sys.argv[2], json.loads(sys.argv[3]))
import kaggle_environments  # as in Kaggle's process: the stdlib modules it imports are warm
path, act_timeout = sys.argv[4], float(sys.argv[5])
t0 = time.perf_counter()
namespace = {}
with open(path, encoding="utf-8") as handle:
    exec(compile(handle.read(), path, "exec"), namespace)
t1 = time.perf_counter()
agent = namespace["_load"](namespace["_PREFIX"], namespace["_MODULES"], namespace["_ENTRY"])
agent = agent.make_agent(**namespace["_PARAMS"])
t2 = time.perf_counter()
obs = {"board": [0] * 42, "mark": 1, "remainingOverageTime": 60, "step": 0}
agent(obs, {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": act_timeout})
t3 = time.perf_counter()
print(json.dumps({"exec": t1 - t0, "load": t2 - t1, "move": t3 - t2}))
"""


def split_first_move(path: Path, act_timeout: float) -> dict[str, float] | None:
    """Seconds of exec / load / move for the built file at ``path`` (see the module docstring);
    None when the file cannot play (its check says why)."""
    packages = sorted(p.name for p in PROJECT_ROOT.iterdir() if (p / "__init__.py").is_file())
    with tempfile.TemporaryDirectory(prefix="connectx-bench-") as tmp:
        work = Path(tmp)
        shutil.copyfile(probe.__file__, work / "probe.py")
        (work / "split.py").write_text(SPLIT, encoding="utf-8")
        command = [
            sys.executable,
            "-I",
            str(work / "split.py"),
            str(work),
            str(PROJECT_ROOT),
            json.dumps(packages),
            str(path),
            str(act_timeout),
        ]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=list(BUILTIN), metavar="SPEC")
    parser.add_argument("--games", type=int, default=1, help="games against each Kaggle opponent (default 1)")
    parser.add_argument("--act-timeout", type=float, default=DEFAULT_ACT_TIMEOUT)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="connectx-built-") as tmp:
        for spec in args.agents:
            path = Path(tmp) / (spec.replace(":", "_").replace(",", "_").replace("=", "-") + ".py")
            write(build_spec(spec), path)
            report = check_file(path, games=args.games, act_timeout=args.act_timeout)
            parts = split_first_move(path, args.act_timeout)
            verdict = "pass" if report.passed else "FAIL: " + report.reasons[0][:100]
            split = "-"
            if parts is not None:
                split = f"{parts['exec']:.4f} / {parts['load']:.4f} / {parts['move']:.3f}"
            first = "-" if report.times.first_move is None else f"{report.times.first_move:.3f}"
            slowest = "-" if report.times.slowest is None else f"{report.times.slowest:.3f}"
            rows.append(
                f"| {spec} | {report.size} | {report.size / 1024:.1f} | {first} | "
                f"{split} | {slowest} | "
                f"{report.times.overage:.1f} | {report.times.near_limit}/{report.times.moves} | {verdict} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    print(f"actTimeout {args.act_timeout:g} s, {args.games} game(s) against each Kaggle opponent")
    print()
    print(
        "| spec | bytes | KB | first move (s, check) | exec / load / move (s) | slowest move (s) "
        "| overage (s) | moves ≥ 80 % | check |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
