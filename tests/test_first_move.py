"""A player's first move compiles the solver before its search, charged to the bank; the garbage
collector is off while a move is prepared and searched, and as it was after."""

from __future__ import annotations

import gc

import pytest

from agents.engine.board import Board
from agents.kit.budget import charged
from agents.kit.clock import Clock
from agents.kit.record import MoveRecord
from agents.kit.solved import SolvedPositions
from agents.kit.strategy import Strategy


def test_what_is_charged_comes_out_of_the_bank_never_below_zero():
    assert charged(Clock(2.0, 60.0), 4.5) == Clock(2.0, 55.5)
    assert charged(Clock(2.0, 3.0), 4.5) == Clock(2.0, 0.0)
    assert charged(Clock(2.0, 60.0), -1.0) == Clock(2.0, 60.0)


class Preparing(Strategy):
    """Prepares 4 s (of a fake clock) at its first move; records what each move was given."""

    def __init__(self) -> None:
        self.given: list[tuple[Clock, bool]] = []
        self.prepared_with_gc: list[bool] = []

    def _prepare(self) -> float:
        self.prepared_with_gc.append(gc.isenabled())
        return 4.0 if len(self.prepared_with_gc) == 1 else 0.0

    def _choose(self, board: Board, clock: Clock, start: float) -> MoveRecord:
        self.given.append((clock, gc.isenabled()))
        return MoveRecord.since(start, board, "search", board.legal_moves()[0])


@pytest.mark.parametrize("enabled", [True, False])
def test_the_first_move_pays_for_what_it_prepares_out_of_the_bank_with_the_collector_off(enabled):
    player = Preparing()
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        player.play(Board(), Clock(2.0, 60.0))
        player.play(Board.from_moves("4"), Clock(2.0, 60.0))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert player.given == [(Clock(2.0, 56.0), False), (Clock(2.0, 60.0), False)]
    assert player.prepared_with_gc == [False, False]


def test_the_solved_stage_compiles_once_and_not_at_all_without_the_solver():
    solved = SolvedPositions()
    assert solved.prepare() >= 0.0
    assert solved.prepare() == 0.0
    assert SolvedPositions(exact=False).prepare() == 0.0
