"""The mistake benchmark: its checker agrees with a full analysis by the solver, it plays agents and
files as Kaggle calls them, and it prints and saves what the issue asks for (tiny inputs, no timing
assertions)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agents.engine.board import Board
from agents.engine.solver import SearchAborted, Solver
from agents.registry import parse_spec
from benchmarks import mistakes
from benchmarks.kaggle_call import close_players, play
from benchmarks.mistakes import (
    HIDDEN,
    Entrant,
    child_outcome,
    entrants,
    is_mistake,
    main,
    outcome_sign,
    rate_interval,
    run_position,
    samples,
    time_rules,
)

PONS = Path(__file__).parent / "data" / "pons"


def _head(name: str, count: int) -> list[tuple[str, int]]:
    lines = (PONS / f"Test_{name}.head").read_text().splitlines()[:count]
    return [(m, int(s)) for m, s in (line.split() for line in lines)]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A Pons data directory of 4 end-game (L3_R1) and 3 middle-game (L2_R1) positions."""
    for name, count in (("L3_R1", 4), ("L2_R1", 3)):
        lines = (PONS / f"Test_{name}.head").read_text().splitlines()[:count]
        (tmp_path / f"Test_{name}").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("name", ["L3_R1", "L2_R1"])
def test_is_mistake_matches_the_solver_analysis(name: str) -> None:
    solver = Solver()
    seen = set()
    for moves, score in _head(name, 6):
        scores = solver.analyse(moves, weak=True)
        best = outcome_sign(score)
        assert best == max(s for s in scores if s is not None)
        for column, value in enumerate(scores):
            if value is None:
                continue
            expected = value < best
            seen.add(expected)
            assert is_mistake(moves, column, best, max_nodes=10**8) is expected, (moves, column)
            if best >= 0:
                assert -child_outcome(moves + str(column + 1)) == value
    assert seen == {True, False}  # both kinds of move occur


def test_child_outcome_of_ended_games_and_which_solver_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert child_outcome("1212121") == -1  # the last move won: the side to move has lost
    asked = []

    class Answer:
        score = 5

    monkeypatch.setattr(mistakes, "solve", lambda moves, weak: asked.append((moves, weak)) or Answer())
    assert child_outcome("444444") == 1  # 6 stones: the database-backed solve, its score's sign
    assert child_outcome("4" * 6 + "3" * 6) == 1  # 12 stones
    assert asked == [("444444", True), ("4" * 6 + "3" * 6, True)]
    moves, score = _head("L2_R1", 1)[0]  # more than 12 stones: the numba (or pure-Python) solver
    assert child_outcome(moves) == outcome_sign(score)
    assert len(asked) == 2


def test_is_mistake_reports_an_exhausted_node_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mistakes, "_checker", None)  # an empty table: earlier tests solved this position
    moves, column = "52753311433677442422121", 3  # L2_R1, won (score 8)
    with pytest.raises(SearchAborted):
        child_outcome(moves + str(column + 1), max_nodes=1)
    assert is_mistake(moves, column, 1, max_nodes=1) is None
    assert is_mistake(moves, column, -1, max_nodes=1) is False  # lost: no mistake, nothing checked


def test_rate_interval_is_the_exact_binomial_interval() -> None:
    low, high = rate_interval(0, 30)
    assert low == 0.0 and high == pytest.approx(100 * (1 - 0.025 ** (1 / 30)), rel=1e-6)
    low, high = rate_interval(84, 1000)
    assert 6.7 < low < 8.4 < high < 10.4
    assert rate_interval(0, 0) == (0.0, 100.0)


def test_time_rules() -> None:
    def records(*seconds: float) -> list[dict[str, float]]:
        return [{"seconds": s, "bank": max(0.0, s - 2.0)} for s in seconds]

    assert time_rules(records(1.0, *[0.5] * 8, 3.0), 2.0, 60.0)[0]  # one move in ten over 2 s
    ok, why = time_rules(records(*[0.5] * 8, 3.0, 3.0), 2.0, 60.0)
    assert not ok and "2 of 10 moves over 2 s" in why
    ok, why = time_rules(records(*[0.5] * 19, 10.5), 2.0, 60.0)
    assert not ok and "10.50 s" in why
    ok, why = time_rules(records(*[0.5] * 19, 8.0), 2.0, 10.0)  # 6 s of a 10 s bank
    assert not ok and "bank" in why
    ok, why = time_rules(records(*[0.5] * 19, 8.0), 2.0, 5.0)
    assert not ok and "ran out of bank" in why


def test_samples_are_seeded_and_all_by_default(data: Path) -> None:
    every = samples(["L3_R1", "L2_R1"], None, 1, data)
    assert [len(every["L3_R1"]), len(every["L2_R1"])] == [4, 3]
    some = samples(["L3_R1"], 2, 7, data)["L3_R1"]
    assert some == samples(["L3_R1"], 2, 7, data)["L3_R1"] == random.Random(7).sample(every["L3_R1"], 2)


def test_run_position_records_the_move_and_its_check() -> None:
    spec = Entrant(parse_spec("negamax"))
    for moves, score in _head("L3_R1", 3):
        record = run_position(spec, "L3_R1", moves, score, 2.0, 60.0, 10**8, 1)
        assert record["set"] == "L3_R1" and record["moves"] == moves and record["error"] is None
        assert Board.from_moves(moves).can_play(record["column"])
        assert record["mistake"] is False and record["bank"] == max(0.0, record["seconds"] - 2.0)
        if score >= 0:
            assert -record["outcome"] == outcome_sign(score)


def test_a_failed_move_is_a_mistake_unless_the_position_is_lost(tmp_path: Path) -> None:
    raises = tmp_path / "raises.py"
    raises.write_text("def agent(obs, config):\n    raise RuntimeError('boom')\n")
    spec = Entrant(parse_spec(str(raises)))
    try:
        won = run_position(spec, "L3_R1", "2252576253462244111563365343671351", 2, 2.0, 60.0, 10**8, 1)
        lost = run_position(spec, "L3_R1", "2252576253462244111563365343671351441", -1, 2.0, 60.0, 10**8, 1)
    finally:
        close_players()
    assert won["mistake"] is True and "boom" in won["error"] and won["column"] is None
    assert lost["mistake"] is False


def test_a_file_agent_plays_isolated_from_the_project(tmp_path: Path) -> None:
    first = tmp_path / "first.py"
    first.write_text("def agent(obs, config):\n    return [c for c in range(7) if obs.board[c] == 0][0]\n")
    leaky = tmp_path / "leaky.py"
    leaky.write_text("def agent(obs, config):\n    from agents.engine.board import Board\n    return 3\n")
    board = Board.from_moves("1111112")
    obs = {"board": board.to_kaggle(), "mark": board.mark, "step": 7, "remainingOverageTime": 60.0}
    config = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2.0, "timeout": 2.0}
    try:
        move = play(parse_spec(str(first)), obs, config)
        assert move.column == 1 and move.error is None and move.leaks == ()
        move = play(parse_spec(str(leaky)), obs, config)
        assert move.column is None and "Error" in move.error and move.leaks == ()
    finally:
        close_players()


def test_a_file_plays_with_numba_and_with_it_hidden(tmp_path: Path) -> None:
    sees = tmp_path / "sees.py"
    sees.write_text(
        "try:\n    import numba\nexcept ImportError:\n    numba = None\n"
        "def agent(obs, config):\n    return 3 if numba is None else 6\n"
    )
    file, builtin = parse_spec(str(sees)), parse_spec("negamax")
    played = entrants([file, builtin], "both")
    assert [(e.spec, e.hidden) for e in played] == [(file, ()), (file, HIDDEN), (builtin, ())]
    assert played[1].text == f"{file.text} (numba hidden)"
    assert [e.hidden for e in entrants([file], "without")] == [HIDDEN]
    try:
        with_numba = run_position(
            played[0], "L3_R1", "2252576253462244111563365343671351", 2, 2.0, 60.0, 10**8, 1
        )
        without = run_position(
            played[1], "L3_R1", "2252576253462244111563365343671351", 2, 2.0, 60.0, 10**8, 1
        )
    finally:
        close_players()
    assert (with_numba["column"], without["column"]) == (6, 3)
    assert without["spec"].endswith("(numba hidden)")


def test_main_prints_a_table_per_spec_and_saves_the_positions(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "results.json"
    argv = ["--spec", "random", "--spec", "negamax", "--data", str(data), "--sets", "L3_R1,L2_R1"]
    assert main([*argv, "--per-set", "2", "--workers", "0", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "0 workers" not in printed and "no workers" in printed
    lines = printed.splitlines()
    assert lines.index("random") < lines.index("negamax")
    assert sum(line.startswith(("L3_R1 ", "L2_R1 ")) for line in lines) == 4
    assert sum("time rules: " in line for line in lines) == 2
    assert any(line.startswith("negamax: 0 mistakes in 4 checked") for line in lines)
    saved = json.loads(out.read_text())
    assert saved["specs"] == ["random", "negamax"] and saved["act"] == 2.0 and saved["bank"] == 60.0
    assert len(saved["results"]) == 8
    assert {"set", "moves", "column", "seconds", "bank", "mistake"} <= set(saved["results"][0])


def test_main_runs_in_worker_processes(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--spec", "negamax", "--data", str(data), "--sets", "L3_R1", "--workers", "2"]) == 0
    printed = capsys.readouterr().out
    assert "2 workers" in printed
    assert "negamax: 0 mistakes in 4 checked (0 unchecked)" in printed


def test_verdicts_replay_finds_the_start_value_and_the_one_mistake() -> None:
    from benchmarks.verdicts import Mistake, replay
    from tests.records import game_task
    from tournament.record import GameRecord, Termination

    opening = "23163416124767223154467471272416755633"  # Pons L3_R1: drawn; column 5 loses
    solver = Solver()
    board = Board.from_moves(opening)
    board.play(4)  # mark 1's mistake
    while not board.is_game_over():  # then both sides play perfectly
        scores = solver.analyse(board.moves, weak=True)
        board.play(max((c for c, s in enumerate(scores) if s is not None), key=lambda c: scores[c]))
    task = game_task(first="a", second="b", opening=tuple(int(c) - 1 for c in opening))
    winner = board.winner()
    record = GameRecord(
        task=task,
        moves=board.moves,
        move_times=(),
        result={1: 1.0, 2: 0.0, None: 0.5}[winner],
        termination=Termination.DRAW if winner is None else Termination.WIN,
    )
    assert winner == 2
    assert replay(record, Solver()) == (0, [Mistake(ply=38, column=4, mark=1, before=0, after=-1)])
