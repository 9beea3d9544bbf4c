"""``connectx ladder``: a ladder seeded once (4x4 boards, three in a row, cheap agents), three adds
rated as one joint fit, versions side by side, an add killed with SIGKILL and resumed into the same
games, and bad input refused in one line with nothing stored changed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from connectx.cli import main
from reports.stats.ladder import rating_list
from reports.stats.ratings import rate
from reports.stats.tally import head_to_head, pentanomials
from tournament.ladder import Roster
from tournament.store import Store

BOARD = ("--rows", "4", "--columns", "4", "--inarow", "3")
FIRST = ("random", "leftmost", "one_step")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    """A ladder of three members, one game pair a pairing; copy it (:func:`copy`) to change it."""
    ladder = tmp_path_factory.mktemp("seeded") / "ladder"
    assert (
        main(["ladder", "init", *FIRST, *BOARD, "--pairs", "1", "--workers", "2", "--ladder", str(ladder)])
        == 0
    )
    return ladder


def copy(ladder: Path, to: Path) -> Path:
    shutil.copytree(ladder, to, symlinks=True, ignore=shutil.ignore_patterns("*.lock"))
    return to


def games(ladder: Path) -> dict[int, tuple]:
    """What each stored game says happened, without its times."""
    with Store.open(ladder / "games") as store:
        return {r.game_id: (r.task, r.moves, r.result, r.termination) for r in store.records()}


def add(ladder: Path, *args: str) -> int:
    return main(["ladder", "add", *args, "--workers", "2", "--ladder", str(ladder)])


def test_after_three_adds_the_list_is_a_fresh_joint_fit_and_versions_stand_side_by_side(
    seeded, tmp_path, capsys, monkeypatch
):
    ladder = copy(seeded, tmp_path / "ladder")  # the default folder of the working directory
    monkeypatch.chdir(tmp_path)
    bot = tmp_path / "bot.py"
    bot.write_text(
        "def agent(obs, config):\n    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n"
    )
    assert add(ladder, "minimax:depth=1", "--pairs", "2") == 0
    assert main(["ladder", "remove", "leftmost", "--ladder", str(ladder)]) == 0
    assert add(ladder, "random:seed=7", "--pairs", "2") == 0  # other parameters: random@2
    assert add(ladder, str(bot), "--pairs", "2") == 0
    capsys.readouterr()
    assert main(["ladder"]) == 0  # alone: show
    shown = capsys.readouterr().out

    roster = Roster.load(ladder)
    assert roster.ids == ["random@1", "leftmost@1", "one_step@1", "minimax@1", "random@2", "bot@1"]
    with Store.open(ladder / "games") as store:
        records = store.records()
    fresh = rate(head_to_head(records), pentanomials(records))
    listed = [entry.rating for entry in rating_list(records, roster)]
    assert listed == fresh  # the same players, order, Elo and intervals
    for rating in fresh:
        assert f"{rating.name} {rating.estimate()}" in " ".join(shown.split())
    assert "random@2" in shown and "random@1" in shown
    seeds = {r.pair_id: r.task.seed for r in records if r.pair_id < 5}  # the round robin's, then the add's
    assert seeds == {
        0: 3118038342,
        1: 3076692213,
        2: 421723846,
        3: 757366822,
        4: 3532415197,
    }  # main at 430ffb7
    later = [r for r in records if r.pair_id >= roster.sessions[2].first_pair]
    assert later and all("leftmost@1" not in (r.first, r.second) for r in later)  # retired: plays no more
    assert (
        "retired" in shown and (ladder / "history.png").is_file()
    )  # show draws the ratings as members joined

    assert main(["ladder", "report", "--out", str(tmp_path / "report")]) == 0  # run's reports, of every game
    for name in ("report.html", "report.md", "games.csv", "ladder.md", "history.png"):
        assert (tmp_path / "report" / name).is_file()
    assert "random@2" in (tmp_path / "report" / "report.md").read_text()


def test_an_add_killed_with_sigkill_resumes_into_the_games_of_one_never_stopped(seeded, tmp_path):
    spec = ("minimax:depth=1", "--pairs", "4")  # two batches of two pairs
    whole = copy(seeded, tmp_path / "whole")
    assert add(whole, *spec) == 0
    killed = copy(seeded, tmp_path / "killed")
    before = len(games(killed))
    command = [
        sys.executable,
        "-m",
        "connectx",
        "ladder",
        "add",
        *spec,
        "--workers",
        "2",
        "--ladder",
        str(killed),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    try:
        while len(games(killed)) == before and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the add and its game processes, mid-batch
        process.wait()
    interrupted = games(killed)
    assert before < len(interrupted) < len(games(whole)), "killed too late to test a resume"
    assert add(killed, *spec) == 0
    assert games(killed) == games(whole)


@pytest.mark.parametrize(
    "args,message",
    [
        (["show", "--ladder", "{tmp}/nowhere"], "no ladder in"),
        (["add", "random", "--ladder", "{tmp}/nowhere"], "no ladder in"),
        (["remove", "random", "--ladder", "{tmp}/nowhere"], "no ladder in"),
        (["add", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["add", "{tmp}/broken.py"], "does not play: its validation game"),
        (["add", "minimax", "--pairs", "0"], "--pairs must be >= 1"),
        (["init", "random", "--pairs", "0"], "--pairs must be >= 1"),
        (["add", "minimax", "--rows", "5"], "holds a ladder of 4x4 boards"),
        (
            ["init", "random", "leftmost", "--rows", "5", "--columns", "4", "--inarow", "3"],
            "holds a ladder of 4x4",
        ),
        (["init", "random", "leftmost", *BOARD], "holds a ladder already"),
        (["show", "--anchor", "nobody=100"], "no member 'nobody'"),
        (["remove", "nobody"], "no member 'nobody'"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_changes_nothing(seeded, tmp_path, capsys, args, message):
    (tmp_path / "broken.py").write_text("def agent(obs, config) return 0\n")
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    if "--ladder" not in args:
        args += ["--ladder", str(seeded)]
    roster, stored = (seeded / "ladder.json").read_bytes(), games(seeded)
    with pytest.raises(SystemExit) as exit_:
        main(["ladder", *args])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("connectx ladder") and message in error, error
    assert (seeded / "ladder.json").read_bytes() == roster and games(seeded) == stored
    assert not (seeded / "agents").exists()  # no file copied


def _roster_with(seeded: Path, change) -> str:
    """The seeded ladder's ``ladder.json`` with ``change(data)`` applied, as text."""
    data = json.loads((seeded / "ladder.json").read_text())
    change(data)
    return json.dumps(data)


MALFORMED = {
    "a JSON list": lambda seeded: "[]",
    "bad JSON": lambda seeded: '{"format": 1, "members": [',
    "not UTF-8": lambda seeded: b"\xff\xfe{}".decode("latin-1"),
    "nested 64,000 deep": lambda seeded: "[" * 32_000 + "]" * 32_000,
    "no format": lambda seeded: _roster_with(seeded, lambda d: d.pop("format")),
    "members an object": lambda seeded: _roster_with(seeded, lambda d: d.update(members={})),
    "no sessions": lambda seeded: _roster_with(seeded, lambda d: d.pop("sessions")),
    "a member a string": lambda seeded: _roster_with(seeded, lambda d: d["members"].__setitem__(0, "random")),
    "a member without spec": lambda seeded: _roster_with(seeded, lambda d: d["members"][0].pop("spec")),
    "a version as text": lambda seeded: _roster_with(seeded, lambda d: d["members"][0].update(version="1")),
    "a spec a number": lambda seeded: _roster_with(seeded, lambda d: d["members"][1].update(spec=7)),
    "files of numbers": lambda seeded: _roster_with(seeded, lambda d: d["members"][0].update(files=[1])),
    "an unknown key": lambda seeded: _roster_with(seeded, lambda d: d["members"][0].update(colour="red")),
    "a session of another kind": lambda seeded: _roster_with(
        seeded, lambda d: d["sessions"][0].update(kind="x")
    ),
    "a session naming nobody": lambda seeded: _roster_with(
        seeded, lambda d: d["sessions"][0].update(members=["nobody@1"])
    ),
    "ended as text": lambda seeded: _roster_with(seeded, lambda d: d["sessions"][0].update(ended="yes")),
    "a member twice": lambda seeded: _roster_with(seeded, lambda d: d["members"].append(d["members"][0])),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_ladder_json_is_one_line_exit_2_and_changes_nothing(seeded, tmp_path, capsys, case):
    ladder = copy(seeded, tmp_path / "ladder")
    (ladder / "ladder.json").write_text(MALFORMED[case](seeded), encoding="latin-1")
    roster, stored = (ladder / "ladder.json").read_bytes(), games(ladder)
    for args in (["show"], ["add", "minimax:depth=1"], ["remove", "random"], ["init", "random", *BOARD]):
        with pytest.raises(SystemExit) as exit_:
            main(["ladder", *args, "--ladder", str(ladder)])
        assert exit_.value.code == 2, args
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and error.startswith("connectx ladder") and "ladder.json" in error, (
            error
        )
        assert (ladder / "ladder.json").read_bytes() == roster and games(ladder) == stored
