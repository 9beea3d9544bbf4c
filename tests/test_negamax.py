"""Behaviour of the negamax agent: tactics, odd configurations, time (on a fake clock), purity."""

from __future__ import annotations

import copy
import random
import time

import pytest

from agents import negamax
from agents.engine.board import Board
from agents.engine.search import WIN, Search
from agents.kit.budget import Budget, move_budget
from agents.kit.clock import Clock


def _obs(board: Board, overage: float = 0.0) -> dict:
    return {"board": board.to_kaggle(), "mark": board.mark, "remainingOverageTime": overage}


def _config(rows: int = 6, columns: int = 7, inarow: int = 4, act: float = 2.0) -> dict:
    return {"rows": rows, "columns": columns, "inarow": inarow, "actTimeout": act}


def test_takes_win_in_one() -> None:
    board = Board.from_moves("112233")  # X on 1,2,3 bottom row; X to move wins in column 4 (index 3)
    assert negamax.agent(_obs(board), _config(act=0.3)) == 3


def test_takes_vertical_win_rather_than_block() -> None:
    board = Board.from_moves("1212127")  # X has three in column 1, O three in column 2; O to move
    assert negamax.agent(_obs(board), _config(act=0.3)) == 1


def test_blocks_loss_in_one() -> None:
    board = Board.from_moves("11223")  # X has 1,2,3 on the bottom row; O must block column 4
    assert negamax.agent(_obs(board), _config(act=0.3)) == 3


def _gives_win(board: Board, move: int) -> bool:
    child = board.copy()
    child.push(move)
    return bool(child.winning_moves())


def test_never_plays_under_an_opponent_threat_when_it_can_avoid_it() -> None:
    rng = random.Random(7)
    checked = 0
    agent = negamax.make_agent()
    while checked < 8:
        board = Board()
        for _ in range(rng.randrange(6, 20)):
            if board.winning_moves() or board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves()))
        if board.is_game_over() or board.winning_moves():
            continue
        opponent_view = board.copy()
        opponent_view.position ^= opponent_view.mask  # the opponent's immediate wins
        if opponent_view.winning_moves():
            continue
        unsafe = [c for c in board.legal_moves() if _gives_win(board, c)]
        if not unsafe or len(unsafe) == len(board.legal_moves()):
            continue
        assert not _gives_win(board, agent(_obs(board), _config(act=0.1)))
        checked += 1


def test_a_board_where_no_line_fits_is_played_without_searching() -> None:
    # 6x7 with 10 in a row: every game is a draw; searching for a proof would draw on the bank each move.
    player = negamax.Negamax()
    board = Board(6, 7, 10)
    assert not board.geo.winnable and Board(6, 7, 7).geo.winnable
    while board.legal_moves():
        move = player.play(board, Clock(act_timeout=2.0, overage=60.0))
        board.push(move.column)
        assert move.stage in ("draw", "only")
    assert board.outcome().winner is None


@pytest.mark.parametrize(
    ("rows", "columns", "inarow"),
    [(1, 1, 1), (1, 1, 2), (3, 3, 1), (2, 5, 3), (10, 10, 5), (4, 4, 9), (6, 7, 4), (1, 9, 4), (9, 1, 4)],
)
def test_legal_int_on_odd_configurations(rows: int, columns: int, inarow: int) -> None:
    board = Board(rows, columns, inarow)
    config = _config(rows, columns, inarow, act=0.2)
    agent = negamax.make_agent()
    for _ in range(min(6, rows * columns)):
        obs = _obs(board)
        before = copy.deepcopy(obs)
        move = agent(obs, config)
        assert type(move) is int
        assert board.can_play(move)
        assert obs == before
        board.push(move)
        if board.is_game_over():
            break


class FakeClock:
    """``time.perf_counter`` for tests: every read advances it by ``step`` seconds."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("moves", ["4", "4444", "3344", "44444123", "4455443"])
def test_heuristic_search_keeps_within_the_move_time(monkeypatch: pytest.MonkeyPatch, moves: str) -> None:
    clock = FakeClock(step=0.01)  # ten milliseconds a read: a few thousand nodes a move
    monkeypatch.setattr(time, "perf_counter", clock)
    board = Board.from_moves(moves)
    player = negamax.Negamax(book=False, exact=False)
    move = player.play(board.copy(), Clock(act_timeout=0.3, overage=0.0))
    assert board.can_play(move.column)
    assert move.stage == "search" and move.depth >= 1 and move.nodes >= 1
    assert clock.now <= 0.3  # 0.3 s a move less the 0.15 s margin, read every 1024 nodes


def test_the_player_passes_longest_to_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def spy(*args: object, **kwargs: float) -> Budget:
        seen.append(kwargs["longest"])
        return Budget(solve=0.0, total=0.05, fallback=0.05)

    monkeypatch.setattr(negamax, "move_budget", spy)
    player = negamax.Negamax(book=False, longest=3.0)
    player.play(Board.from_moves("4444"), Clock(act_timeout=2.0, overage=60.0))
    assert seen == [3.0]


def test_a_proof_may_draw_on_the_bank_on_a_slow_cpu_but_no_game_spends_more_than_half_of_it() -> None:
    """Negamax's time policy, move by move through a game whose every move (from ply 13, where the
    databases end) is so slow to prove that it spends all the time exact solving is given, then the
    fallback's: the first such move may think 15 s, past the old 9.5 s cap, rather than play an
    unproved move; no move takes more than ``longest``, and the game draws at most half the bank."""
    player = negamax.Negamax()
    bank, drawn, longest_move = 60.0, 0.0, 0.0
    for ply in range(13, 42, 2):
        budget = move_budget(
            Clock(act_timeout=2.0, overage=bank),
            ply,
            42,
            margin=player.margin,
            reserve=negamax.BANK_KEPT,
            share=player.share,
            longest=player.longest,
        )
        seconds = budget.solve + budget.fallback  # the proof failed at its deadline, then the search
        longest_move = max(longest_move, seconds)
        bank -= max(0.0, seconds - 2.0)
        drawn = 60.0 - bank
    assert longest_move == pytest.approx(0.925 + 15.0 + 0.925)  # half of the 30 s above BANK_KEPT
    assert longest_move <= player.longest
    assert drawn <= 60.0 - negamax.BANK_KEPT


@pytest.mark.parametrize("longest", [0.0, -1.0])
def test_bad_longest_is_value_error(longest: float) -> None:
    with pytest.raises(ValueError, match="longest"):
        negamax.make_agent(longest=longest)


def test_unknown_parameter_is_type_error() -> None:
    with pytest.raises(TypeError):
        negamax.make_agent(nonsense=1)  # type: ignore[call-arg]


def test_search_finds_forced_win_in_three() -> None:
    # X to move can make a double threat on the bottom row: 2 and 3 taken by X, 1,4,5 empty.
    board = Board.from_moves("2737")  # X: 2,3 bottom; O: 7,7
    result = Search(board.geo, negamax.threat_evaluation(board.geo)).best(board, depth=5)
    assert result.column in (0, 3)  # playing 1 or 4 makes an open three on the bottom row
    assert result.score > WIN - 100


def test_plays_like_the_solution_late_in_the_game() -> None:
    from pathlib import Path

    from agents.engine.solver import Solver

    solver = Solver()
    lines = (Path(__file__).parent / "data" / "pons" / "Test_L3_R1.head").read_text().splitlines()[:8]
    for line in lines:
        moves, score = line.split()
        board = Board.from_moves(moves)
        agent = negamax.make_agent()
        column = agent(_obs(board, overage=5.0), _config(act=1.0))
        assert agent.last_move.stage in ("exact", "win", "block", "only")  # type: ignore[attr-defined]
        scores = solver.analyse(moves)
        chosen = scores[column]
        assert chosen is not None
        sign = (int(score) > 0) - (int(score) < 0)
        assert (chosen > 0) - (chosen < 0) == sign, moves


def test_without_the_databases_a_book_move_is_played_when_known(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from agents.engine import book as book_module
    from agents.engine.book import Book, canonical
    from agents.engine.solver import databases

    monkeypatch.setattr(databases, "_loaded", [None])  # as if bitbully-databases were not installed

    board = Board.from_moves("41")
    key, mirrored = canonical(board.position, board.mask, board.geo)
    column = 5 if not mirrored else 1  # a deliberately unusual move, to see it come from the book
    fake = Book(
        np.array([key], dtype=np.uint64), np.array([(2 << 4) | column], dtype=np.uint8), depth=(2, -1)
    )
    monkeypatch.setattr(book_module, "_cached", fake)
    agent = negamax.make_agent()
    assert agent(_obs(board), _config()) == 5
    assert agent.last_move.stage == "book"  # type: ignore[attr-defined]
