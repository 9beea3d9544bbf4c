"""Cost per game of an agent given as a callable (pickled by value, :mod:`connectx.entrants`) against
the same agent given as a ``.py`` file, both played sandboxed by the runner.

Usage: ``python -m benchmarks.callable_agents [--games 40] [--rounds 5]``

The agent is a notebook cell's function (:data:`CELL`, run as ``__main__`` as a notebook runs it):
it closes over a numpy table of column weights (6x7, as an evaluation table would be) and plays the
legal column of highest weight, or a random one now and then from numpy's global generator (which
the host seeds from the game). It is pickled with ``cloudpickle.dumps``, as ``connectx.entrants``
pickles a cell's function (by value: it is ``__main__``'s; the benchmarks do not import the command
line's package). The same text saved to a ``.py`` file is the file agent. Each plays
``--games`` games against ``random`` on 6x7 (each side first in turn, game ``i`` seeded ``i``) with
:func:`tournament.runner.run_games` and one worker, in a fresh Python process of its own for each
measure (so that what one measure imported does not help another):

* ``file``: the ``.py`` file, in a process that never imported cloudpickle (``connectx run``);
* ``callable``: the pickle (the runner imports cloudpickle first:
  :func:`tournament.sandbox.loading.preload`; each host reads the bytes and unpickles them at the
  agent's first move);
* ``file, cloudpickle imported``: the ``.py`` file in a process that imported cloudpickle before
  playing, as a notebook's kernel has once it has sent a callable: what the import costs the games
  of ordinary agents.

The three are interleaved in ``--rounds`` rounds (this 2-core machine's speed drifts from minute to
minute), and each ratio to ``file`` is taken within a round; printed are the mean milliseconds a game
(wall time and CPU time of all processes) and the median ratio over the rounds. The records of the
three are checked to be the same games (same moves), else the benchmark fails. Also printed: the
pickle's size, the time to pickle it, the load a host does at the agent's first move (unpickling,
against executing the file as Kaggle's loader does), and the time ``import cloudpickle`` takes in a
fresh process that imported the runner (the median of 5 processes).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

CELL = """
import numpy as np

WEIGHTS = np.array([[3, 4, 5, 7, 5, 4, 3], [4, 6, 8, 10, 8, 6, 4], [5, 8, 11, 13, 11, 8, 5],
                    [5, 8, 11, 13, 11, 8, 5], [4, 6, 8, 10, 8, 6, 4], [3, 4, 5, 7, 5, 4, 3]])


def make(weights):
    table = weights.sum(axis=0)

    def my_agent(obs, config):
        legal = [c for c in range(config.columns) if obs.board[c] == 0]
        if np.random.random() < 0.2:
            return int(np.random.choice(legal))
        return max(legal, key=lambda c: table[c])

    return my_agent


my_agent = make(WEIGHTS)
"""
"""The agent: a notebook cell's text."""

SIDES = ("file", "callable", "file, cloudpickle imported")


def _child(spec: str, games: int, import_cloudpickle: bool) -> dict[str, Any]:
    """Play ``games`` games of ``spec`` against random here; seconds a game and the games' moves."""
    if import_cloudpickle:
        import cloudpickle  # noqa: F401 - as a notebook's kernel has it

    from tournament.record import GameRecord
    from tournament.runner import run_games
    from tournament.schedule import GameTask

    tasks = [
        GameTask(game_id=i, pair_id=i // 2, first=spec if i % 2 == 0 else "random",
                 second="random" if i % 2 == 0 else spec, rows=6, columns=7, inarow=4,
                 act_timeout=2.0, hang_limit=None, seed=i)
        for i in range(games)
    ]  # fmt: skip
    start, used = time.perf_counter(), _cpu()
    results = list(run_games(tasks, 1))
    wall, cpu = time.perf_counter() - start, _cpu() - used
    records = {record.game_id: record for record in results if isinstance(record, GameRecord)}
    failed = [i for i in range(games) if i not in records or records[i].detail]
    return {
        "wall": wall / games,
        "cpu": cpu / games,
        "moves": [list(records[i].moves) for i in sorted(records)],
        "failed": failed,
    }


def _loads(pickled: str, file: str) -> dict[str, float]:
    """Seconds the host's load at the first move takes here, the median of 200: unpickling the
    pickle, and executing the file as Kaggle's loader does (``get_last_callable``)."""
    import pickle

    import cloudpickle  # noqa: F401 - the host has it, imported before it is confined

    from tournament.environments import build_agent  # noqa: F401 - kaggle_environments, the runner's way

    from kaggle_environments.agent import get_last_callable  # isort: skip

    data, source = Path(pickled).read_bytes(), Path(file).read_text()
    times: dict[str, list[float]] = {"unpickle": [], "execute the file": []}
    for _ in range(200):
        start = time.perf_counter()
        pickle.loads(data)
        times["unpickle"].append(time.perf_counter() - start)
        start = time.perf_counter()
        get_last_callable(source, path=file)
        times["execute the file"].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measure(spec: str, games: int, import_cloudpickle: bool) -> dict[str, Any]:
    """:func:`_child` in a fresh Python process."""
    command = [sys.executable, "-m", "benchmarks.callable_agents", "--child", spec, "--games", str(games)]
    done = subprocess.run(
        command + (["--import-cloudpickle"] if import_cloudpickle else []), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"the measure of {spec} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _import_seconds() -> float:
    """Seconds ``import cloudpickle`` takes in a fresh process that imported the runner first (as
    :func:`tournament.sandbox.loading.preload` imports it), the median of 5 processes."""
    code = "import tournament.runner, time; t = time.perf_counter(); import cloudpickle; "
    code += "print(time.perf_counter() - t)"
    times = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        for _ in range(5)
    ]
    return statistics.median(float(done.stdout) for done in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games of each measure")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--import-cloudpickle", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--loads", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.games, args.import_cloudpickle)))
        return
    if args.loads:
        print(json.dumps(_loads(*args.loads)))
        return

    import cloudpickle

    with tempfile.TemporaryDirectory() as folder:
        namespace: dict[str, Any] = {"__name__": "__main__"}
        exec(compile(textwrap.dedent(CELL), "<cell>", "exec"), namespace)
        start = time.perf_counter()
        data = cloudpickle.dumps(namespace["my_agent"])  # as connectx.entrants pickles a cell's function
        pickling = time.perf_counter() - start
        pickled = str(Path(folder, "my_agent.pkl"))
        Path(pickled).write_bytes(data)
        file = Path(folder, "my_agent.py")
        file.write_text(CELL)
        specs = {"file": (str(file), False), "callable": (pickled, False)}
        specs["file, cloudpickle imported"] = (str(file), True)
        wall: dict[str, list[float]] = {side: [] for side in SIDES}
        cpu: dict[str, list[float]] = {side: [] for side in SIDES}
        for _ in range(args.rounds):
            moves = []
            for side in SIDES:
                spec, imported = specs[side]
                result = _measure(spec, args.games, imported)
                if result["failed"]:
                    raise SystemExit(f"{side}: games {result['failed']} were forfeited")
                wall[side].append(result["wall"])
                cpu[side].append(result["cpu"])
                moves.append(result["moves"])
            if any(other != moves[0] for other in moves):
                raise SystemExit("the callable and the file did not play the same games")
        size = Path(pickled).stat().st_size
        command = [sys.executable, "-m", "benchmarks.callable_agents", "--loads", pickled, str(file)]
        loads = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    print(
        f"my_agent (a cell's function over a 6x7 numpy table) against random, {args.rounds} rounds of "
        f"{args.games} games a measure, the runner with 1 worker; the games were the same"
    )
    print(f"  the pickle: {size:,} bytes, pickled in {pickling * 1000:.1f} ms")
    print(f"  import cloudpickle in a fresh process, after the runner's: {_import_seconds() * 1000:.1f} ms")
    print(
        "  the agent's load at its first move, in a fresh process (median of 200): "
        + ", ".join(f"{name} {seconds * 1000:.2f} ms" for name, seconds in loads.items())
    )
    for label, measure in (("wall", wall), ("CPU", cpu)):
        means = ", ".join(f"{side} {statistics.mean(measure[side]) * 1000:.1f}" for side in SIDES)
        print(f"  {label}: {means} ms/game (means)")
        for side in SIDES[1:]:
            ratios = [value / base for value, base in zip(measure[side], measure["file"], strict=True)]
            print(
                f"    {side} / file: {statistics.median(ratios):.3f}x median over rounds "
                f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
            )


if __name__ == "__main__":
    main()
