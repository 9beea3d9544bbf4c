"""The ``connectx`` command end to end: a real (small) tournament, resuming, and bad input."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import time

import pytest

from connectx.cli import main
from reports.exact import meaning
from reports.words import plural
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


def test_rerun_resumes_and_plays_nothing_new(tournament_dir, capsys, reported):
    with Store.open(tournament_dir) as store:
        before = store.records()
    assert run(*ARGS, "--out", str(tournament_dir)) == 0
    assert "12 of 12 games already played" in capsys.readouterr().out
    with Store.open(tournament_dir) as store:
        assert store.records() == before  # the same games, none replayed or added


def test_options_with_no_command_are_runs(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--agents", "leftmost", "random", "--games", "0", "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("connectx run: error: --games must be >= 1")


def test_the_first_lines_come_before_the_solver_compiles(tmp_path, monkeypatch, capsys, reported):
    """A machine's first run compiles the solver (numba: seconds) before its games: what the run
    plays on is said before, and nothing compiles for agents that do not search with it."""
    from agents.engine import solver

    said = []

    def compiling():
        said.append(capsys.readouterr().out)
        raise KeyboardInterrupt  # enough: what had been said when the compile began is known

    monkeypatch.setattr(solver, "warm_up", compiling)
    assert run("--agents", "negamax", "leftmost", "--games", "1", "--out", str(tmp_path / "out")) == 130
    assert len(said) == 1 and said[0].startswith("isolation: ")
    assert "interrupted: 0 games stored" in capsys.readouterr().err
    assert run("--agents", "middle", "leftmost", "--games", "1", "--out", str(tmp_path / "other")) == 0
    assert len(said) == 1


def test_sigterm_stops_a_run_as_ctrl_c_does_cleans_up_and_exits_143(tmp_path):
    temporary, out = tmp_path / "tmp", tmp_path / "out"  # the scratch directories go to TMPDIR
    temporary.mkdir()
    command = ["run", "--agents", "leftmost", "middle", "random", "--games", "500", "--openings", "none"]
    process = subprocess.Popen(
        [sys.executable, "-m", "connectx", *command, "--out", str(out)],
        env={**os.environ, "TMPDIR": str(temporary)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(1200):  # until games are being stored (a guard of minutes, not a time limit)
            if (out / "tournament.db").exists():
                with Store.open(out) as store:
                    if store.game_ids():
                        break
            time.sleep(0.1)
        assert list(temporary.glob("connectx-scratch-*")), "no game under way"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=300)
    finally:
        process.kill()
    with Store.open(out) as store:
        stored = len(store.game_ids())
    assert process.returncode == 143, err
    assert 0 < stored < 3000
    assert err.endswith(
        f"\nterminated: {plural(stored, 'game')} stored in {out}; run the same command again to resume\n"
    )
    assert list(temporary.iterdir()) == [] and sorted(path.name for path in out.iterdir()) == [
        "tournament.db",
        "tournament.lock",
    ]


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
    args = ["sprt", "one_step", "random", "--elo0", "0", "--elo1", "200", "--out", str(out), "--workers", "2"]
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


def test_sprt_stores_in_its_own_folder_by_default_leaving_the_last_tournament(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "latest").mkdir(parents=True)
    (tmp_path / "runs" / "latest" / "tournament.db").write_bytes(b"the last tournament")
    tiny = ["--rows", "4", "--columns", "4", "--inarow", "3", "--openings", "none", "--workers", "1"]
    assert main(["sprt", "leftmost", "random", "--max-games", "2", *tiny]) == 0
    with Store.open(tmp_path / "runs" / "sprt") as store:
        assert len(store.records()) == 2
    assert [p.name for p in (tmp_path / "runs" / "latest").iterdir()] == ["tournament.db"]
    assert (tmp_path / "runs" / "latest" / "tournament.db").read_bytes() == b"the last tournament"


def test_at_act_timeout_half_a_second_agents_read_a_timeout_of_1_not_0(tmp_path, capsys, reported):
    """Kaggle's obsolete ``timeout``, whole seconds, was ``int(actTimeout)``: 0 at ``--act-timeout 0.5``."""
    probe = tmp_path / "probe.py"
    probe.write_text("def agent(obs, config):\n    raise RuntimeError(f'timeout={config.timeout!r}')\n")
    tiny = ["--rows", "4", "--columns", "4", "--inarow", "3", "--openings", "none", "--workers", "1"]
    out = tmp_path / "t"
    assert (
        run(
            "--agents",
            str(probe),
            "leftmost",
            "--games",
            "1",
            "--act-timeout",
            "0.5",
            *tiny,
            "--out",
            str(out),
        )
        == 0
    )
    with Store.open(out) as store:
        records = store.records()
    assert len(records) == 2 and all("RuntimeError: timeout=1\n" in record.detail for record in records)


@pytest.mark.parametrize(
    "args",
    [
        ["sprt", "random", "random:seed=2", "--elo0", "10", "--elo1", "0"],
        ["sprt", "random", "random:seed=2", "--alpha", "0"],
        ["sprt", "random", "nosuchagent"],
        ["run", "--agents", "random", "leftmost", "--openings", "missing.txt"],
        ["run", "--agents", "random", "leftmost", "--opening-plies", "-1"],
        ["run", "--agents", "random", "leftmost", "--address", "auto"],  # needs --backend ray
        ["sprt", "random", "leftmost", "--backend", "dask"],
    ],
)
def test_bad_sprt_and_opening_options_exit_2_and_write_nothing(args, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--out", str(tmp_path / "x")])
    assert exit_info.value.code == 2
    assert not (tmp_path / "x").exists()


# ---- what a new user met: help, the agent list, one-line errors, boards nobody can win ----


@pytest.mark.parametrize("command", ["run", "sprt", "solve"])
def test_board_options_have_help(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--rows ROWS rows of the board (default 6)" in text
    assert "--columns COLUMNS columns of the board (default 7)" in text
    assert "--inarow INAROW stones in a line that win (default 4" in text


def test_agents_lists_descriptions_and_parameters_read_from_the_code(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "``" not in out
    lines = out.splitlines()
    minimax = lines.index(next(line for line in lines if line.startswith("minimax ")))
    assert "alpha-beta" in lines[minimax]
    assert lines[minimax + 1].split() == [
        "parameters:",
        "depth:",
        "int",
        "=",
        "3,",
        "seed:",
        "int",
        "=",
        "unset",
    ]
    assert any("exact: bool = true" in line for line in lines)
    assert any(line.startswith("leftmost ") for line in lines) and "parameters: none" in out


@pytest.mark.parametrize(
    "args,message",
    [
        (["--agents", "random:seed=x", "leftmost"], "bad parameters for 'random': seed must be an integer"),
        (
            ["--agents", "random", "leftmost", "--rows", "3", "--columns", "3", "--inarow", "4"],
            "--inarow 4 does not fit on a 3x3 board, so nobody can win; use --inarow 3 or less",
        ),
        (["--agents", "random", "leftmost", "--inarow", "10"], "--inarow 10 does not fit on a 6x7 board"),
    ],
)
def test_bad_specs_and_unwinnable_boards_are_refused_in_one_line(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        run(*args, "--out", str(out))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("connectx run: error: ") and message in err
    assert not out.exists()


def test_an_out_that_cannot_be_a_directory_is_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        run("--agents", "random", "leftmost", "--out", "/dev/null/x", "--openings", "none")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "/dev/null/x" in err


def test_python_m_connectx_is_the_command(capsys):
    """A fresh interpreter says what ``main`` says here (``agents``: a command that needs no solver)."""
    done = subprocess.run(
        [sys.executable, "-m", "connectx", "agents"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert main(["agents"]) == 0
    assert done.stdout == capsys.readouterr().out and "negamax" in done.stdout


# ---- connectx solve ----


def test_solve_says_what_the_score_means(capsys):
    assert main(["solve", "32164625", "44444433"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "32164625 11  Red (mark 1) to move wins with its 11th stone"
    moves, score, *words = lines[1].split()
    assert moves == "44444433" and " ".join(words) == meaning(int(score), 8, 42)


@pytest.mark.parametrize(
    "score,ply,text",
    [
        (-2, 4, "Red (mark 1) to move loses: Yellow wins with its 20th stone"),
        (1, 41, "Yellow (mark 2) to move wins with its 21st stone"),
        (0, 3, "Yellow (mark 2) to move: a draw with best play"),
    ],
)
def test_meaning_follows_pons_convention(score, ply, text):
    assert meaning(score, ply, 42) == text


def test_solve_reads_stdin_and_stops_at_a_bad_line_as_bad_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("32164625 trailing words\n4453x\n44\n"))
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "--weak"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "32164625 1  Red (mark 1) to move wins\n"  # the lines before it stay answered
    assert captured.err == (
        "connectx solve: error: line 2: invalid position '4453x': move 5 'x' is not a column digit 1-7\n"
    )


def test_solve_warns_that_few_stones_can_take_minutes_without_the_databases(capsys, monkeypatch):
    from agents.engine.solver import databases

    monkeypatch.setattr(databases, "_loaded", [None])
    assert main(["solve", "44444433"]) == 0
    assert "8 stones; positions with fewer than 10" in capsys.readouterr().err


def test_solve_answers_the_empty_board_from_the_databases(capsys):
    pytest.importorskip("bitbully_databases")
    assert main(["solve", "-a", ""]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(" -2 -1 0 1 0 -1 -2  Red wins with its 21st stone, playing column 4.\n")
    assert "can take minutes" not in err


@pytest.mark.parametrize(
    "position,message",
    [
        ("12a", "position 2: invalid position '12a': move 3 'a' is not a column digit 1-7"),
        ("9999999", "position 2: invalid position '9999999': move 1 '9' is not a column digit 1-7"),
        ("1212121", "position 2: invalid position '1212121': the position is already won"),
        ("4444444", "position 2: invalid position '4444444': move 7: column 4 is full"),
        ("12121213", "position 2: invalid position '12121213': move 8 '3' comes after the game was won"),
    ],
)
def test_solve_refuses_a_bad_position_as_bad_input_before_solving_any(capsys, position, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "121212", position])
    assert exit_info.value.code == 2
    assert capsys.readouterr() == ("", f"connectx solve: error: {message}\n")


def test_solve_shows_a_full_column_as_a_dash(capsys):
    assert main(["solve", "-a", "444444"]) == 0
    assert capsys.readouterr().out.startswith(
        "444444 -1 0 1 - 1 0 -1  Red wins with its 21st stone, playing columns 3 or 5.\n"
    )


def test_solve_exit_status_follows_the_cli(capsys):
    """0 all solved; 2 bad input in one line, as run and play."""
    assert main(["solve", "121212"]) == 0
    for argv, message in (
        (
            ["--rows", "3", "--columns", "3", "--inarow", "4"],  # small: before, it was solved (a draw)
            "--inarow 4 does not fit on a 3x3 board, so nobody can win; use --inarow 3 or less",
        ),
        (["--rows", "17"], "--rows must be >= 1 and <= 16, got 17"),
    ):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_info:
            main(["solve", *argv, "12"])
        assert exit_info.value.code == 2
        assert capsys.readouterr().err == f"connectx solve: error: {message}\n"


def test_solve_interrupted_is_one_line_and_130(capsys, monkeypatch):
    from agents.engine.solver import Solver

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Solver, "solve", interrupted)
    assert main(["solve", "4453"]) == 130
    out, err = capsys.readouterr()
    assert err.strip() == "interrupted" and out == ""
