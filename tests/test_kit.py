"""The agents' kit: the move's budget, the tactics, the solved-positions stage, the move record."""

from __future__ import annotations

import dataclasses
import gc
import math
import time
from pathlib import Path

import numpy as np
import pytest

from agents.engine.board import Board
from agents.engine.solver import Solver
from agents.kit import solved
from agents.kit.adapter import kaggle_agent, observation
from agents.kit.budget import Budget, collector_paused, move_budget
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.kit.solved import EXACT_EMPTY_LIMIT, TABLE_LIMIT, SolvedChoice, SolvedPositions
from agents.kit.tactics import tactical_move

PONS = Path(__file__).parent / "data" / "pons"


class FakeClock:
    """``time.perf_counter`` for tests: reads ``now``, which the test sets."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# budget


def test_bank_is_spent_within_its_share() -> None:
    budget = move_budget(Clock(act_timeout=2.0, overage=10.0), ply=10, size=42)
    assert budget.total <= 2.0
    assert budget.solve + budget.fallback <= 2.0 + (10.0 - 3.0) * 0.3
    broke = move_budget(Clock(act_timeout=2.0, overage=0.0), ply=10, size=42)
    assert broke.solve + broke.fallback <= broke.total <= 2.0


@pytest.mark.parametrize("ply", [6, 8, 10, 20, 30])
def test_a_full_bank_buys_at_most_longest_seconds_a_move(ply: int) -> None:
    budget = move_budget(Clock(act_timeout=2.0, overage=60.0), ply=ply, size=42)
    base = 2.0 - 0.15
    share = 0.3 if ply < 28 else 0.1
    assert budget.solve == pytest.approx(0.5 * base + min(share * 57.0, 4.0 - 2.0))
    assert budget.solve + budget.fallback <= 4.0 - 0.15 + 1e-9  # the move's worst case, margin kept
    assert budget.total == pytest.approx(base) and budget.fallback == pytest.approx(0.5 * base)


@pytest.mark.parametrize("ply", [0, 1])
def test_the_first_move_of_either_player_gets_no_allowance(ply: int) -> None:
    # kaggle-environments 1.33.2 ignores agentTimeout and times the file's loading as part of the
    # first call (see agents.kit.budget): the first move's budget is any early move's.
    clock = Clock(act_timeout=2.0, overage=60.0)
    assert move_budget(clock, ply=ply, size=42) == move_budget(clock, ply=10, size=42)
    first = move_budget(clock, ply=ply, size=42)
    assert (first.solve, first.total, first.fallback) == pytest.approx((0.925 + 2.0, 1.85, 0.925))


def test_a_low_bank_is_still_shared_below_the_cap() -> None:
    budget = move_budget(Clock(act_timeout=2.0, overage=6.0), ply=8, size=42)
    assert budget.solve == pytest.approx(0.5 * 1.85 + 0.3 * 3.0)  # 0.9 s of bank < the 2 s cap


def test_longest_sets_the_cap_and_never_cuts_the_free_time() -> None:
    roomy = move_budget(Clock(act_timeout=2.0, overage=60.0), ply=8, size=42, longest=10.0)
    assert roomy.solve == pytest.approx(0.5 * 1.85 + 8.0)  # 0.3 * 57 = 17.1 s capped at 10 - 2
    slow = move_budget(Clock(act_timeout=5.0, overage=60.0), ply=8, size=42)
    assert slow.solve == pytest.approx(0.5 * 4.85)  # actTimeout above the cap: no bank, full base
    assert slow.total == pytest.approx(4.85)


def test_a_tiny_act_timeout_still_leaves_a_twentieth_of_a_second() -> None:
    assert move_budget(Clock(act_timeout=0.1, overage=0.0), ply=8, size=42).total == pytest.approx(0.05)


def test_bank_fallback_moves_half_a_move_from_solving_to_the_fallback() -> None:
    clock = Clock(act_timeout=2.0, overage=60.0)
    plain = move_budget(clock, ply=8, size=42, longest=20.0)
    funded = move_budget(clock, ply=8, size=42, longest=20.0, bank_fallback=True)
    assert funded.fallback == pytest.approx(1.85)  # the whole base after a failed solve
    assert funded.solve == pytest.approx(plain.solve - 0.5 * 1.85)
    assert funded.solve + funded.fallback == pytest.approx(plain.solve + plain.fallback)
    low = move_budget(Clock(act_timeout=2.0, overage=3.5), ply=8, size=42, bank_fallback=True)
    assert low.fallback == pytest.approx(0.5 * 1.85 + 0.3 * 0.5)  # only what the bank pays moves
    assert low.solve == pytest.approx(0.5 * 1.85)
    broke = move_budget(Clock(act_timeout=2.0, overage=0.0), ply=8, size=42, bank_fallback=True)
    assert (broke.solve, broke.fallback) == pytest.approx((0.5 * 1.85, 0.5 * 1.85))


def test_the_search_deadline_keeps_the_move_or_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(now=10.5)
    monkeypatch.setattr(time, "perf_counter", clock)
    budget = Budget(solve=3.0, total=1.85, fallback=0.9)
    assert budget.search_deadline(10.0, after_solving=False) == pytest.approx(11.85)  # the move's end
    clock.now = 13.0  # exact solving ran past the move's free time
    assert budget.search_deadline(10.0, after_solving=True) == pytest.approx(13.9)
    assert budget.search_deadline(10.0, after_solving=False) == pytest.approx(13.05)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_then_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with pytest.raises(RuntimeError), collector_paused():
            assert not gc.isenabled()
            raise RuntimeError("passes through")
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


# tactics


@pytest.mark.parametrize(
    ("board", "expected"),
    [
        (Board.from_moves([0], rows=1, columns=2, inarow=2), ("only", 1)),
        (Board(6, 7, 10), ("draw", 0)),  # no line of 10 fits on 6x7
        (Board.from_moves("112233"), ("win", 3)),
        (Board.from_moves("1212127"), ("win", 1)),  # a win at once comes before a block
        (Board.from_moves("11223"), ("block", 3)),
        (Board.from_moves("41424"), ("block", 3)),  # a vertical three
        (Board(), None),
        (Board.from_moves("4453"), None),
        (Board.from_moves("27374"), None),  # two threats: every move loses, the search decides
    ],
)
def test_tactical_moves(board: Board, expected: tuple[str, int] | None) -> None:
    before = (board.position, board.mask, board.ply)
    assert tactical_move(board) == expected
    assert (board.position, board.mask, board.ply) == before


def test_tactics_refuse_a_finished_game() -> None:
    with pytest.raises(ValueError, match="over"):
        tactical_move(Board.from_moves("1212121"))


# solved positions


def test_without_the_databases_the_book_answers_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.engine import book as book_module
    from agents.engine.book import Book, canonical
    from agents.engine.solver import databases

    monkeypatch.setattr(databases, "_loaded", [None])  # as if bitbully-databases were not installed

    board = Board.from_moves("41")
    key, mirrored = canonical(board.position, board.mask, board.geo)
    column = 5 if not mirrored else 1  # a deliberately unusual move, to see it come from the book
    entry = np.array([(2 << 4) | column], dtype=np.uint8)  # a win, this column
    fake = Book(np.array([key], dtype=np.uint64), entry, depth=(2, -1))
    monkeypatch.setattr(book_module, "_cached", fake)
    assert SolvedPositions().choose(board, deadline=0.0) == SolvedChoice(("book", 5), None)
    assert SolvedPositions(book=False).choose(board, deadline=0.0) == SolvedChoice(None, None)  # 40 empty


def test_with_the_databases_the_solver_plays_the_fastest_win_from_the_first_move() -> None:
    pytest.importorskip("bitbully_databases")
    stage = SolvedPositions()
    assert stage.choose(Board(), deadline=math.inf) == SolvedChoice(("exact", 3), None)
    # 32164625: columns 3 and 4 (1-based) both win, column 3 with the 11th stone, 4 with the 18th
    assert stage.choose(Board.from_moves("32164625"), deadline=math.inf) == SolvedChoice(("exact", 2), None)
    # 4453 is lost for mark 1; columns 3, 6 and 7 lose last (score -2 against -3 to -5)
    verdict = stage.choose(Board.from_moves("4453"), deadline=math.inf)
    assert verdict.move is not None and verdict.move[1] in (2, 5, 6)


def test_exact_solving_proves_a_late_move() -> None:
    moves, score = (PONS / "Test_L3_R1.head").read_text().split("\n", 1)[0].split()
    board = Board.from_moves(moves)
    assert not board.winning_moves()  # the stage's precondition: the tactics came first
    verdict = SolvedPositions(book=False).choose(board, deadline=math.inf)
    assert verdict.move is not None and verdict.move[0] == "exact" and verdict.allowed is None
    chosen = Solver().analyse(moves)[verdict.move[1]]
    assert chosen is not None and (chosen > 0) - (chosen < 0) == (int(score) > 0) - (int(score) < 0)
    assert SolvedPositions(exact=False).choose(board, deadline=math.inf) == SolvedChoice(None, None)


class FakeSolver:
    """A :class:`~agents.engine.solver.Solver` that runs out of time having proven ``lost`` lost."""

    made: list[tuple[int, ...]] = []
    lost: tuple[int, ...] = ()

    def __init__(self, rows: int, columns: int, inarow: int, *, table_limit: int, databases: bool) -> None:
        self.made.append((rows, columns, inarow, table_limit))
        self.database = None
        self.nodes = 0

    def choose(
        self, position: int, mask: int, ply: int, *, deadline: float, refine_deadline: float | None
    ) -> tuple[None, dict[int, int]]:
        return None, {c: -1 for c in self.lost}


def test_out_of_time_the_search_gets_the_moves_not_proven_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solved, "Solver", FakeSolver)
    monkeypatch.setattr(FakeSolver, "made", [])
    stage = SolvedPositions(book=False)
    board = Board.from_moves("444444")
    assert board.geo.size - board.ply == EXACT_EMPTY_LIMIT
    monkeypatch.setattr(FakeSolver, "lost", (0, 6))
    assert stage.choose(board, deadline=0.0) == SolvedChoice(None, (1, 2, 4, 5))  # column 3 is full
    monkeypatch.setattr(FakeSolver, "lost", (0, 1, 2, 3, 4, 5, 6))
    assert stage.choose(Board.from_moves("4444441"), deadline=0.0) == SolvedChoice(None, ())  # all lost
    assert FakeSolver.made == [(6, 7, 4, TABLE_LIMIT)]  # one solver, its table kept between moves
    stage.choose(Board.from_moves("1234512", rows=5, columns=5, inarow=4), deadline=0.0)
    assert FakeSolver.made[1:] == [(5, 5, 4, TABLE_LIMIT)]  # one a geometry
    early = Board.from_moves("44444")  # one empty cell too many: the solver is not asked
    assert stage.choose(early, deadline=0.0) == SolvedChoice(None, None)
    assert len(FakeSolver.made) == 2


# record


def test_a_record_is_frozen_and_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "perf_counter", FakeClock(now=2.25))
    record = MoveRecord.since(2.0, Board.from_moves("44"), "search", 3, depth=7, nodes=1234)
    assert record == MoveRecord("search", 2, 3, 0.25, depth=7, nodes=1234)
    assert (record.visits, record.reused, record.simulations) == (None, None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.column = 4  # type: ignore[misc]
    assert not hasattr(record, "__dict__")


def test_the_agent_keeps_the_record_its_player_returned_for_each_move() -> None:
    class Recording:
        records: list[MoveRecord] = []

        def play(self, board: Board, clock: Clock) -> MoveRecord:
            self.records.append(MoveRecord.since(time.perf_counter(), board, "only", 0))
            return self.records[-1]

    player = Recording()
    agent = kaggle_agent(player)
    for moves in ("", "1"):
        assert agent(*observation(Board.from_moves(moves), Clock())) == 0
        assert agent.last_move is player.records[-1] and player.records[-1].ply == len(moves)  # type: ignore[attr-defined]


def test_a_strategy_times_its_move_with_the_collector_paused_and_keeps_the_record() -> None:
    from agents.kit.strategy import Strategy

    class Leftmost(Strategy):
        def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
            self.collecting = gc.isenabled()
            return MoveRecord.since(start, board, "leftmost", board.legal_moves()[0])

    player = Leftmost()
    move = player.play(Board.from_moves("1111"), Clock())
    assert move.column == 0 and move.stage == "leftmost" and move.ply == 4 and move.seconds >= 0
    assert player.collecting is False and gc.isenabled()
