"""CPU time of the ML Elo fit with its profile-likelihood intervals, on the 1,000-game pool of the
report test (``tests/test_report.py::test_a_1000_game_report_stays_small``: nine agents, 14 game
pairs a pairing, cut at 1,000 games, :func:`tests.records.synthetic_records`).

Usage (from the repository's root): ``python -m benchmarks.ratings [--rounds 5]``

Prints the median CPU seconds (``time.process_time``, this process) over ``--rounds`` of:

* ``rate``: :func:`reports.stats.ratings.rate` of the 1,000 games, with intervals and bounds;
* ``rate_with_los``: the same and the LOS matrix (:attr:`Results.ratings`, :attr:`Results.los`);
* ``progress``: :attr:`reports.stats.results.Results.progress`, ``rate`` with intervals at each of
  12 checkpoints (117 intervals and bounds in all).

Measured on this 2-core machine (busy: load 7-9), each code's run right after the other's, median
of 5, twice (Nov 2026):

==============  ====================================  ===========================
                bf906f2: scipy trust-ncg and brentq   Newton (reports.stats.newton)
==============  ====================================  ===========================
rate            0.22-0.26 s                           0.009-0.013 s
rate_with_los   0.28-0.31 s                           0.016-0.020 s
progress        2.67-2.70 s                           0.14-0.17 s
==============  ====================================  ===========================

Run it on a checkout of bf906f2 (the script needs only :func:`~reports.stats.ratings.rate`,
:func:`~reports.stats.ratings.rate_with_los` and :class:`~reports.stats.results.Results`) to compare.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from reports.stats.ratings import rate, rate_with_los
from reports.stats.results import Results
from tests.records import settings_for, synthetic_records
from tournament.record import GameRecord
from tournament.schedule import Settings

AGENTS = (
    "negamax",
    "network",
    "minimax",
    "one_step",
    "kaggle-negamax",
    "slow",
    "leftmost",
    "crashy",
    "fullcol",
)


def _cpu(
    work: Callable[[Results], object], records: list[GameRecord], settings: Settings, rounds: int
) -> float:
    """The median CPU seconds of ``work`` over ``rounds`` calls, each on fresh :class:`Results` of
    ``records`` (nothing cached; their one pass over the games is not timed)."""
    times = []
    for _ in range(rounds):
        results = Results(records, settings)
        began = time.process_time()
        work(results)
        times.append(time.process_time() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rounds", type=int, default=5, help="rounds a measurement, median taken (default 5)"
    )
    rounds = parser.parse_args().rounds
    records = synthetic_records(AGENTS, 14)[:1000]
    settings = settings_for(AGENTS, 14)
    print(f"{len(records)} games, {len(AGENTS)} agents; median of {rounds} rounds")
    cases: dict[str, Callable[[Results], object]] = {
        "rate": lambda results: rate(results.h2h, results.pentanomials),
        "rate_with_los": lambda results: rate_with_los(results.h2h, results.pentanomials),
        "progress": lambda results: results.progress,
    }
    for name, work in cases.items():
        print(f"{name:>14}: {_cpu(work, records, settings, rounds):6.3f} s CPU")


if __name__ == "__main__":
    main()
