"""The player interface, the Kaggle adapters both ways, and the one game loop."""

from __future__ import annotations

import time

import pytest

from agents import leftmost, random_agent
from agents.engine.board import Board, IllegalMoveError, Outcome
from agents.kit.adapter import as_player, kaggle_agent, observation
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.kit.record import MoveRecord


class Column:
    """Always plays the same column while it can, then the leftmost legal one."""

    def __init__(self, column: int) -> None:
        self.column = column
        self.clocks: list[Clock] = []

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        self.clocks.append(clock)
        column = self.column if board.can_play(self.column) else board.legal_moves()[0]
        return MoveRecord.since(time.perf_counter(), board, "column", column)


def test_a_game_is_played_to_its_outcome_from_the_empty_board():
    result = play_game([Column(3), Column(4)])
    assert result.moves == (3, 4, 3, 4, 3, 4, 3)
    assert result.outcome == Outcome(1) and result.result == 1.0
    assert len(result.seconds) == 7


def test_an_opening_is_continued_and_left_untouched():
    opening = Board.from_moves("44")
    result = play_game([Column(0), Column(6)], opening)
    assert result.moves[:2] == (3, 3) and opening.moves == (3, 3)
    assert result.outcome == Outcome(1)  # mark 1 fills column 0 first


def test_kaggle_agents_play_through_the_adapter_and_players_become_agents():
    result = play_game([as_player(leftmost.agent), as_player(random_agent.make_agent(seed=1))])
    assert result.moves[0] == 0 and result.outcome is not None
    agent = kaggle_agent(Column(5))
    obs, config = observation(Board.from_moves("1"), Clock())
    assert (obs.mark, obs["step"], config.actTimeout, config.timeout) == (2, 1, 2.0, 2.0)
    assert agent(obs, config) == 5 and type(agent(obs, config)) is int


def test_an_illegal_move_raises_and_a_finished_game_is_refused():
    class OffTheBoard:
        def play(self, board: Board, clock: Clock) -> MoveRecord:
            return MoveRecord.since(time.perf_counter(), board, "off the board", 9)

    with pytest.raises(IllegalMoveError):
        play_game([OffTheBoard(), Column(0)])
    with pytest.raises(ValueError, match="already over"):
        play_game([Column(0), Column(1)], Board.from_moves("1212121"))
    with pytest.raises(ValueError, match="two players"):
        play_game([Column(0)])


class Slow(Column):
    def play(self, board: Board, clock: Clock) -> MoveRecord:
        time.sleep(0.02)
        return super().play(board, clock)


def test_time_beyond_the_move_limit_is_charged_to_the_players_bank():
    slow, quick = Slow(0), Column(1)
    play_game([slow, quick], clock=Clock(act_timeout=0.0, overage=10.0))
    banks = [clock.overage for clock in slow.clocks]
    assert banks[0] == 10.0 and all(a > b for a, b in zip(banks, banks[1:], strict=False))
    assert quick.clocks[0].overage == 10.0 and quick.clocks[-1].overage < 10.0  # its own time only
