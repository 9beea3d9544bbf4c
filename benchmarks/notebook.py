"""What the Python API costs a notebook: the time from ``import connectx`` to the first game's result,
what its run process adds, and the caller's memory after the default tournament.

Usage: ``python -m benchmarks.notebook [--rounds 3] [--no-default-run]``

Each measurement runs in a fresh interpreter, as a notebook's kernel starts (and because the
benchmarks may not import the command line's package, ``lint-imports``):

1. **First result.** ``import connectx``, then ``connectx.tournament(["leftmost", "random"],
   games=1)`` on Kaggle's 6x7 board: seconds to the import's end, to the first game stored (the
   first progress message from the run's process, :mod:`connectx.background`) and to the return of
   the two-game result, over ``--rounds`` rounds (median printed, with each round).
2. **The run process's start.** Seconds for a fresh interpreter to import what that process needs
   before its first game (the driver, the runner, the sandbox, kaggle-environments): what ``connectx
   run`` would pay before its first game if it went through a run process too.
3. **Memory.** The default tournament (``connectx.tournament()``: every built-in agent, 2 game pairs a
   pairing, 364 games), then the caller's resident memory (``VmRSS``, and its peak ``VmHWM``) after
   it returns and again after its standings and HTML are made (pandas, matplotlib).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

FIRST_RESULT = """
import json, time
start = time.perf_counter()
import connectx
imported = time.perf_counter()
import connectx.tournaments as api
first = []
told = api._Bar.__call__
def spy(bar, message):
    if not first and type(message).__name__ == "GameStored":
        first.append(time.perf_counter())
    told(bar, message)
api._Bar.__call__ = spy
result = connectx.tournament(["leftmost", "random"], games=1, progress=False)
done = time.perf_counter()
assert len(result.games) == 2
print(json.dumps({"import": imported - start, "first": first[0] - start, "result": done - start}))
"""

RUN_PROCESS = """
import time
start = time.perf_counter()
import connectx.background, connectx.runs, tournament.runner, tournament.sandbox, tournament.environments
print(time.perf_counter() - start)
"""

MEMORY = """
import json, time
import connectx

def rss():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return {key: int(fields[key].split()[0]) // 1024 for key in ("VmRSS", "VmHWM")}

start = time.perf_counter()
result = connectx.tournament(progress=False)
played = time.perf_counter() - start
after_run = rss()
result.standings
html = result._repr_html_()
shown = {"games": len(result.games), "seconds": played, "after_run": after_run, "after_tables": rss()}
print(json.dumps(shown))
"""


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-default-run", action="store_true", help="skip the 364-game tournament")
    args = parser.parse_args()
    rounds = [json.loads(_python(FIRST_RESULT)) for _ in range(args.rounds)]
    for key, what in (("import", "import connectx"), ("first", "first game stored"), ("result", "result")):
        times = [r[key] for r in rounds]
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{what:<20} {statistics.median(times):6.2f} s median ({shown})")
    starts = [float(_python(RUN_PROCESS)) for _ in range(args.rounds)]
    shown = ", ".join(f"{t:.2f}" for t in starts)
    print(f"run process imports  {statistics.median(starts):6.2f} s median ({shown})")
    if not args.no_default_run:
        start = time.perf_counter()
        memory = json.loads(_python(MEMORY))
        print(
            f"default tournament: {memory['games']} games in {memory['seconds']:.0f} s "
            f"({time.perf_counter() - start:.0f} s with the interpreter); the caller's RSS "
            f"{memory['after_run']['VmRSS']} MiB after it (peak {memory['after_run']['VmHWM']} MiB), "
            f"{memory['after_tables']['VmRSS']} MiB after its standings and HTML "
            f"(peak {memory['after_tables']['VmHWM']} MiB)"
        )


if __name__ == "__main__":
    main()
