"""What ``connectx ladder add`` tells: each progress line and its last line show the newcomer's Elo and
95 % interval as the rating list would show them after the games played so far; an add stopped at
its cap wider than ``--until`` says why; a second command on a ladder in use names ``--ladder``.
(4x4 boards, three in a row, cheap agents, as ``tests/test_ladder.py``.)"""

from __future__ import annotations

import os
import re

import pytest

from connectx.cli import main
from reports.stats.ratings import rate
from reports.stats.tally import head_to_head, pentanomials
from tests.test_ladder import BOARD, add, copy
from tournament.store import Store
from tournament.store.locks import run_lock

FIRST = ("random", "leftmost", "one_step")
LINE = re.compile(r"(\d+) pairs(?: in all;|:) Elo (\S+) \(([^)]*)\)")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A ladder of three members, two game pairs a pairing."""
    ladder = tmp_path_factory.mktemp("seeded") / "ladder"
    command = ["ladder", "init", *FIRST, *BOARD, "--pairs", "2", "--workers", "2", "--ladder", str(ladder)]
    assert main(command) == 0
    return ladder


def expected(records, newcomer: str) -> str:
    """The newcomer's Elo and interval in the joint fit of ``records``, as the lines word them."""
    rating = next(r for r in rate(head_to_head(records), pentanomials(records)) if r.name == newcomer)
    if not rating.is_finite:
        bound = rating.interval()  # ≥ +120, ≤ -30 or "" (no bound)
        return f"{rating.estimate()} ({bound + '; ' if bound else ''}no finite interval yet)"
    reach = max(rating.elo - rating.low, rating.high - rating.elo)
    return f"{rating.elo:+.0f} ({rating.low:+.0f} to {rating.high:+.0f}, ±{reach:.0f})"


def test_every_line_of_an_add_shows_the_interval_the_list_shows_and_a_capped_one_says_why(
    seeded, tmp_path, capsys
):
    ladder = copy(seeded, tmp_path / "ladder")
    capsys.readouterr()
    assert add(ladder, "minimax:depth=1", "--pairs", "6", "--until", "1") == 0
    out = capsys.readouterr().out
    with Store.open(ladder / "games") as store:
        records = store.records()
    newcomer = "minimax@1"
    mine = sorted({r.pair_id for r in records if newcomer in (r.first, r.second)})
    lines = [line for line in out.splitlines() if LINE.search(line)]
    assert len(lines) >= 3  # after 2 and 4 pairs, and the last line after 6
    for line in lines:
        pairs, elo, interval = LINE.search(line).groups()
        before = [
            r for r in records if newcomer not in (r.first, r.second) or r.pair_id in mine[: int(pairs)]
        ]
        assert f"{elo} ({interval})" == expected(before, newcomer), line
    last = next(line for line in out.splitlines() if line.startswith(f"{newcomer} joined"))
    assert "6 pairs in all" in last and "stopped: it has played its game pairs" in last
    assert f"Elo {expected(records, newcomer)}" in last
    reach = re.search(r"±(\d+)\)", last)
    if reach is not None and int(reach.group(1)) > 1:
        assert f"its interval reaches ±{reach.group(1)}, not ±1: it is rated against the" in out
        assert "`--pairs 12`" in out


def test_a_second_command_on_a_ladder_in_use_names_the_ladder_option(seeded, tmp_path, capsys):
    ladder = copy(seeded, tmp_path / "ladder")
    lock = run_lock(ladder / "games")  # as a running add holds it
    try:
        capsys.readouterr()
        with pytest.raises(SystemExit) as stopped:
            add(ladder, "minimax:depth=1", "--pairs", "1")
        err = capsys.readouterr().err
    finally:
        os.close(lock)
    assert stopped.value.code == 2
    assert "is in use by another `connectx ladder` command" in err and "--ladder" in err
    assert "--out" not in err
    assert len(err.strip().splitlines()) <= 2  # argparse's usage line and the message
