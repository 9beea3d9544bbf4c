"""Move analysis: verdicts, judging against an independent solver, the cache, moves.csv and
``connectx analyze``. Hand-built records; the solver reads the opening databases."""

from __future__ import annotations

import random

import pytest

from agents.engine.board import Board
from agents.engine.solver import Solver
from connectx.cli import main
from reports.exact import ExactScores
from reports.stats import solved
from reports.stats.accuracy import accuracy
from reports.stats.analysis import OPENING, Analysis, AnalysisError, JudgedMove, Verdict
from reports.stats.judging import judge, unavailable
from tests.records import game_record
from tournament.record import Termination
from tournament.schedule import Settings
from tournament.store import Store

pytestmark = pytest.mark.skipif(unavailable([]) is not None, reason="the opening databases are not installed")


def random_game(seed: int, *, plies: int = 42) -> tuple[int, ...]:
    """Legal random moves from the empty board until a line, a full board or ``plies``."""
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over() and board.ply < plies:
        board.push(rng.choice(board.legal_moves()))
    return board.moves


def played(moves: tuple[int, ...], game_id: int = 0, opening: tuple[int, ...] = (), **fields):
    """The record of ``moves`` played by alpha (mark 1) and beta, its result read from the board."""
    outcome = Board.from_moves(moves).outcome()
    result = 0.5 if outcome is None or outcome.winner is None else (1.0 if outcome.winner == 1 else 0.0)
    fields = {"termination": Termination.DRAW if result == 0.5 else Termination.WIN} | fields
    return game_record(
        game_id=game_id,
        pair_id=game_id,
        first="alpha",
        second="beta",
        seed=0,
        opening=opening,
        moves=moves,
        move_times=(0.1,) * len(moves),
        result=result,
        **fields,
    )


def test_verdicts_compare_the_value_and_the_outcome() -> None:
    assert Verdict.of(3, 3) is Verdict.BEST
    assert Verdict.of(5, 2) is Verdict.INACCURACY  # a slower win
    assert Verdict.of(-2, -5) is Verdict.INACCURACY  # a faster loss
    assert Verdict.of(0, 0) is Verdict.BEST
    assert Verdict.of(4, 0) is Verdict.MISTAKE  # win -> draw
    assert Verdict.of(0, -1) is Verdict.MISTAKE  # draw -> loss
    assert Verdict.of(1, -1) is Verdict.MISTAKE  # win -> loss


def test_the_first_move_is_judged_by_the_solved_opening() -> None:
    # Pons' scores of the empty board's columns (gamesolver.org): only the centre wins.
    judged = judge([played((3, 3, 2))]).moves
    first = judged[0]
    assert (first.ply, first.agent, first.position, first.column) == (1, "alpha", "", 4)
    assert (first.value_before, first.value_after, first.best_columns) == (1, 1, (4,))
    assert first.verdict is Verdict.BEST
    edge = judge([played((0,))]).moves[0]
    assert (edge.column, edge.value_after, edge.verdict) == (1, -2, Verdict.MISTAKE)


@pytest.mark.parametrize("seed", [3, 11])
def test_every_late_verdict_agrees_with_a_solver_without_databases(seed: int) -> None:
    moves = random_game(seed)
    judged = judge([played(moves)]).moves
    assert [move.ply for move in judged] == list(range(1, len(moves) + 1))
    independent = Solver(databases=False, fast=False)
    late = [move for move in judged if move.ply >= 20]
    assert late, "the game should last past ply 20"
    for move in late:
        scores = independent.analyse(move.position)
        best = max(score for score in scores if score is not None)
        assert move.value_before == best
        assert move.value_after == scores[move.column - 1]
        assert move.best_columns == tuple(c + 1 for c, s in enumerate(scores) if s == best)
        assert move.verdict is Verdict.of(best, scores[move.column - 1])


def test_opening_moves_count_for_no_agent_and_marks_alternate() -> None:
    judged = judge([played((3, 2, 3, 4), opening=(3, 2))]).moves
    assert [move.agent for move in judged] == [OPENING, OPENING, "alpha", "beta"]
    assert [move.mark for move in judged] == [1, 2, 1, 2]
    assert Analysis(judged).agents() == ["alpha", "beta"]


def test_mirror_images_share_a_key_and_their_scores() -> None:
    moves = (0, 1, 1, 4)
    mirrored = tuple(6 - column for column in moves)
    exact = ExactScores()
    one, other = exact.of(Board.from_moves(moves)), exact.of(Board.from_moves(mirrored))
    assert one.key == other.key and one.mirrored != other.mirrored and one.kept == other.kept
    assert not one.cached and other.cached and other.scores == one.scores[::-1]
    first = judge([played(moves + (3,))])
    second = judge([played(mirrored + (3,))], known=first.solved)
    assert second.solved == {} and second.cached == 5
    for a, b in zip(first.moves, second.moves, strict=True):
        assert (a.value_before, a.value_after, a.verdict) == (b.value_before, b.value_after, b.verdict)
        assert b.best_columns == tuple(sorted(8 - column for column in a.best_columns))


def test_two_workers_judge_as_one() -> None:
    """13 plies a game: the last move's columns lie past the databases' 12 stones, so each worker
    solves positions with the compiled kernel too (the plies from 13 to 16 cost most to solve, and
    the claim needs none of them)."""
    records = [played(random_game(seed, plies=13), game_id=seed) for seed in range(3)]
    assert judge(records, workers=2).moves == judge(records).moves


def test_moves_csv_round_trips_and_a_damaged_one_is_refused(tmp_path) -> None:
    analysis = Analysis(judge([played(random_game(5))]).moves)
    analysis.write(tmp_path / "moves.csv")
    assert Analysis.read(tmp_path).moves == analysis.moves
    assert Analysis.read(tmp_path / "nowhere") is None
    text = (tmp_path / "moves.csv").read_text().replace(",best\n", ",brilliant\n", 1)
    (tmp_path / "moves.csv").write_text(text)
    with pytest.raises(AnalysisError, match="line"):
        Analysis.read(tmp_path)


def move(game: int, ply: int, agent: str, before: int, after: int) -> JudgedMove:
    return JudgedMove(game, ply, agent, "4" * (ply - 1), 4, before, after, (4,), Verdict.of(before, after))


def test_the_deciding_move_is_the_losers_last_mistake() -> None:
    record = played((3, 3, 2, 2, 1, 1, 0))  # alpha wins on the bottom row
    moves = [move(0, 1, "alpha", 1, 1), move(0, 2, "beta", -1, -3), move(0, 3, "alpha", 2, 2)]
    moves += [move(0, 4, "beta", 0, 0), move(0, 5, "alpha", 0, 0), move(0, 6, "beta", 0, -18)]
    analysis = Analysis(moves)
    assert analysis.decisive(record) == moves[5]
    [beta] = [a for a in accuracy(analysis, [record]) if a.agent == "beta"]
    assert (beta.moves, beta.mistakes, beta.inaccuracies, beta.first_mistake_ply) == (3, 1, 1, 6)
    assert (beta.lost, beta.lost_by_own_mistake, beta.decided_by_own_mistake) == (1, 1, 1.0)
    assert analysis.worst("beta", n=2) == [moves[5], moves[1]]
    assert analysis.perfect("alpha") and not analysis.perfect("beta")


def test_a_game_lost_from_the_first_move_was_not_lost_by_a_mistake() -> None:
    record = played((3, 3, 2, 2, 1, 1, 0))
    analysis = Analysis([move(0, 2, "beta", -1, -1), move(0, 4, "beta", -2, -3)])
    assert analysis.decisive(record) is None
    [beta] = [a for a in accuracy(analysis, [record]) if a.agent == "beta"]
    assert (beta.lost, beta.lost_by_own_mistake, beta.decided_by_own_mistake) == (1, 0, 0.0)


def store_of(directory, records, rows=6, columns=7) -> None:
    settings = Settings(entrants=("alpha", "beta"), games=len(records), rows=rows, columns=columns)
    with Store.create(directory, settings) as store:
        for record in records:
            store.add(record)


def test_analyze_writes_one_row_per_move_and_caches_positions(tmp_path, capsys) -> None:
    # 13 plies: the last moves' columns lie past the databases, solved and kept in the cache
    records = [played(random_game(seed, plies=13), game_id=seed) for seed in range(2)]
    store_of(tmp_path, records)
    assert main(["analyze", str(tmp_path), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "alpha" in out and "mistakes" in out
    analysis = Analysis.read(tmp_path)
    assert len(analysis.moves) == sum(len(r.moves) for r in records)
    assert len(solved.load(tmp_path)) > 0
    assert main(["analyze", str(tmp_path), "--workers", "1"]) == 0
    assert "0 positions solved" in capsys.readouterr().out
    assert Analysis.read(tmp_path).moves == analysis.moves


def test_analyze_refuses_other_boards_and_missing_runs(tmp_path, capsys) -> None:
    small = game_record(game_id=0, pair_id=0, first="alpha", second="beta", rows=4, columns=5, seed=0,
                        opening=(), moves=(0, 1), move_times=(0.1, 0.1), result=1.0,
                        termination=Termination.ERROR, offender=2)  # fmt: skip
    store_of(tmp_path / "small", [small], rows=4, columns=5)
    with pytest.raises(SystemExit) as exit_:
        main(["analyze", str(tmp_path / "small")])
    assert exit_.value.code == 2
    assert "not available" in capsys.readouterr().err
    assert not (tmp_path / "small" / "moves.csv").exists()
    with pytest.raises(SystemExit) as exit_:
        main(["analyze", str(tmp_path / "nowhere")])
    assert exit_.value.code == 2


def test_run_analyze_judges_the_games_it_played(tmp_path) -> None:
    out = tmp_path / "run"
    args = ["run", "--agents", "leftmost", "minimax:depth=1", "--games", "1", "--openings", "none"]
    assert main([*args, "--out", str(out), "--analyze", "--workers", "1"]) == 0
    analysis = Analysis.read(out)
    with Store.open(out) as store:
        records = store.records()
    assert len(analysis.moves) == sum(len(record.moves) for record in records)
    assert analysis.agents() == ["leftmost", "minimax:depth=1"]


def test_run_analyze_on_another_board_is_refused_before_any_game(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "run",
                "--agents",
                "leftmost",
                "random",
                "--rows",
                "5",
                "--analyze",
                "--out",
                str(tmp_path / "r"),
            ]
        )
    assert exit_.value.code == 2
    assert "6x7" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_report_analyze_judges_then_reports(tmp_path, capsys) -> None:
    store_of(tmp_path, [played(random_game(0))])
    assert main(["report", str(tmp_path), "--analyze"]) == 0
    assert Analysis.read(tmp_path) is not None
    assert "perfect play" in (tmp_path / "report.html").read_text().lower()


def test_the_cache_of_solved_positions_is_a_file_of_its_own(tmp_path) -> None:
    assert solved.load(tmp_path) == {}  # no file: an empty cache
    solved.keep(tmp_path, {5: (1, None, -2)})
    solved.keep(tmp_path, {5: (0, 0, 0), 6: (0, 0, 0)})  # a key kept is kept as it was
    assert solved.load(tmp_path) == {5: (1, None, -2), 6: (0, 0, 0)}
    (tmp_path / solved.CACHE_FILE).write_text("not a database")
    with pytest.raises(solved.CacheError, match="cannot read"):
        solved.load(tmp_path)
