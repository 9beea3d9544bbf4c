"""The ``connectx`` command end to end: a real (small) tournament, resuming, and bad input."""

from __future__ import annotations

import csv

import pytest

from tournament.cli import main
from tournament.store import Store

FILES = (
    "tournament.db",
    "standings.csv",
    "crosstable.csv",
    "elo.csv",
    "pairs.csv",
    "los.csv",
    "elo.png",
    "elo_progress.png",
    "crosstable.png",
)


ARGS = ("--agents", "leftmost", "middle", "minimax:depth=1", "--games", "2", "--openings", "none")


def run(*args: str) -> int:
    return main(["run", *args])


@pytest.fixture(scope="module")
def tournament_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("t")
    # From the empty board, so that `middle` fills the centre column and forfeits.
    assert run(*ARGS, "--out", str(out)) == 0
    return out


def test_run_writes_every_report_and_counts_add_up(tournament_dir, capsys):
    assert all((tournament_dir / name).is_file() for name in FILES)
    with open(tournament_dir / "standings.csv") as handle:
        rows = {row["agent"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"leftmost", "middle", "minimax:depth=1"}
    for row in rows.values():
        assert int(row["games"]) == 8  # 2 opponents x 2 games x 2 colours
        assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == 8
    assert int(rows["middle"]["invalid"]) > 0  # middle forfeits once the centre is full
    with Store.open(tournament_dir) as store:
        assert len(store.records()) == 12


def test_rerun_resumes_and_plays_nothing_new(tournament_dir, capsys):
    before = (tournament_dir / "tournament.db").stat().st_size
    assert run(*ARGS, "--out", str(tournament_dir)) == 0
    assert "12 of 12 games already played" in capsys.readouterr().out
    assert (tournament_dir / "tournament.db").stat().st_size >= before


def test_table_prints_the_standings(tournament_dir, capsys):
    assert main(["table", str(tournament_dir)]) == 0
    out = capsys.readouterr().out
    assert "minimax:depth=1" in out and "Elo" in out


@pytest.mark.parametrize(
    "args,message",
    [
        (["--agents", "leftmost", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["--agents", "leftmost", "missing.py"], "agent file not found"),
        (["--agents", "leftmost", "leftmost"], "listed twice"),
        (["--agents", "leftmost"], "at least two"),
        (["--agents", "leftmost", "random", "--rows", "0"], "--rows must be >= 1"),
        (["--agents", "leftmost", "random", "--games", "0"], "--games must be >= 1"),
        (["--agents", "leftmost", "random", "--act-timeout", "-1"], "must be positive"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        run(*args, "--out", str(out))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.strip().splitlines()[-1].startswith("connectx")
    assert not out.exists()


def test_a_different_tournament_in_the_same_directory_is_refused_untouched(tournament_dir, capsys):
    before = (tournament_dir / "tournament.db").read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        run("--agents", "leftmost", "random", "--out", str(tournament_dir))
    assert exit_info.value.code == 2
    assert "different tournament" in capsys.readouterr().err
    assert (tournament_dir / "tournament.db").read_bytes() == before


def test_table_of_a_missing_directory_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["table", str(tmp_path / "nothing")])
    assert exit_info.value.code == 2
    assert "no tournament" in capsys.readouterr().err


def test_sprt_accepts_h1_for_a_clearly_stronger_agent_and_resumes(tmp_path, capsys):
    out = tmp_path / "sprt"
    args = ["sprt", "one_step", "random", "--elo0", "0", "--elo1", "100", "--out", str(out), "--workers", "2"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "H1 accepted after" in text and "LLR" in text
    with Store.open(out) as store:
        games = len(store.records())
        assert all(6 <= len(record.opening) <= 8 for record in store.records())  # the built-in suite
    assert main(args) == 0  # already decided: plays nothing more
    assert "H1 accepted" in capsys.readouterr().out
    with Store.open(out) as store:
        assert len(store.records()) == games


@pytest.mark.parametrize(
    "args",
    [
        ["sprt", "random", "random:seed=2", "--elo0", "10", "--elo1", "0"],
        ["sprt", "random", "random:seed=2", "--alpha", "0"],
        ["sprt", "random", "nosuchagent"],
        ["run", "--agents", "random", "leftmost", "--openings", "missing.txt"],
        ["run", "--agents", "random", "leftmost", "--opening-plies", "-1"],
    ],
)
def test_bad_sprt_and_opening_options_exit_2_and_write_nothing(args, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--out", str(tmp_path / "x")])
    assert exit_info.value.code == 2
    assert not (tmp_path / "x").exists()
