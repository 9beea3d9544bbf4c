"""One game through the referee: a kept environment referees as a new one does; Kaggle's rules on a call
(``tournament.rules``); the one constructor of a record; the configuration agents see."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from agents.engine.board import Board
from agents.kit.clock import Clock
from tests.records import game_task
from tournament import rules, sandbox
from tournament.game import Environments, play_episode
from tournament.record import Forfeit, GameRecord, Termination
from tournament.replies import Unreadable


def _same(record, other):
    return (record.moves, record.statuses, record.rewards, record.termination, len(record.move_times)) == (
        other.moves,
        other.statuses,
        other.rewards,
        other.termination,
        len(other.move_times),
    )


def test_a_kept_environment_plays_every_game_as_a_new_one():
    tasks = [
        game_task(first="kaggle-random", second="kaggle-random", seed=3),
        game_task(game_id=1, pair_id=0, first="kaggle-random", second="leftmost", seed=4, opening=(3, 3, 2)),
        game_task(game_id=2, pair_id=1, first="kaggle-random", second="kaggle-random", seed=5),
        game_task(
            game_id=3, pair_id=1, first="kaggle-random", second="kaggle-random", rows=5, columns=6, seed=6
        ),  # another board
        game_task(game_id=4, pair_id=2, first="kaggle-random", second="kaggle-random", seed=7, opening=(0,)),
    ]
    environments = Environments()
    kept = [play_episode(task, environments=environments) for task in tasks]
    for task, record in zip(tasks, kept, strict=True):
        new = play_episode(task)
        assert _same(record, new), task
        assert len(record.moves) >= 7 and record.moves[: len(task.opening)] == task.opening


def test_an_environment_the_referee_failed_in_is_not_kept(monkeypatch):
    task = game_task(first="kaggle-random", second="kaggle-random", seed=3)
    environments = Environments()
    kept = environments.take(task)
    assert environments.take(task) is kept
    assert (
        environments.take(
            game_task(game_id=1, pair_id=0, first="random", second="random", rows=5, columns=6, seed=3)
        )
        is not kept
    )

    def fails(self, agents):
        raise RuntimeError("the referee failed")

    kept = environments.take(task)
    monkeypatch.setattr(type(kept), "run", fails)
    with pytest.raises(RuntimeError, match="the referee failed"):
        play_episode(task, environments=environments)
    assert environments.take(task) is not kept


def test_a_zygote_asked_how_a_host_ended_with_hosts_on_their_way_still_answers_and_serves():
    sandbox.become_subreaper()
    zygote = sandbox.Zygote()
    try:
        pid, conn = zygote.host()
        conn.close()  # a blank host without an assignment exits
        zygote.clear()  # reaps it and asks for the next game's two hosts
        assert zygote.ended(pid) == "stopped answering"  # not a host's message read as the answer
        task = game_task(first="kaggle-random", second="kaggle-random", seed=3)
        assert play_episode(task, zygote=zygote).termination in (Termination.WIN, Termination.DRAW)
    finally:
        zygote.close()


def test_a_zygote_that_something_else_reaped_closes_without_error():
    zygote = sandbox.Zygote()
    os.kill(zygote.pid, signal.SIGKILL)
    os.waitpid(zygote.pid, 0)  # as a wait for any child would, before the zygote's owner closes it
    zygote.close()  # no ChildProcessError: it is gone already
    assert not zygote.pid


# ---- why an action is INVALID: the detail of the forfeit ------------------------------------

FULL_4 = "444444"  # column 4 (3 to the agent) full, mark 1 to move


RANGE = "(columns are 0-6 to the agent, 1-7 here)"
TYPE = "an agent must return a Python int"


@pytest.mark.parametrize(
    "action,detail",
    [
        (3, "chose column 4, which is full (it returned 3, counting from 0)"),
        (7, f"returned 7: there is no column 8 on a 7-column board {RANGE}"),
        (-1, f"returned -1: a column is never negative {RANGE}"),
        ("3", f"returned '3' (a str; {TYPE})"),
        (3.0, f"returned 3.0 (a float; {TYPE})"),
        (True, f"returned True (a bool; {TYPE})"),
        (np.int64(2), f"returned numpy.int64 2 (a numpy integer; {TYPE}, e.g. int(column))"),
        (Unreadable("builtins.list", "[3]"), f"returned [3] (a list; {TYPE})"),
        (2, "returned 2: column 3, a legal move here: the referee ruled it INVALID for another reason"),
    ],
)
def test_an_invalid_action_says_why_counting_columns_from_1(action, detail):
    board = Board.from_moves(FULL_4)
    assert rules.invalid_action(1, action, board) == f"mark 1 {detail}"
    assert board.moves == tuple(int(c) - 1 for c in FULL_4)  # the board is left as it was


def test_none_is_kaggles_default_column_and_says_so_when_it_is_full():
    message = rules.invalid_action(2, None, Board.from_moves("1111112"))
    assert message == "mark 2 returned None: Kaggle played its default action, column 1, which is full"
    on_a_wide_board = rules.invalid_action(1, 12, Board(rows=4, columns=12, inarow=3))
    assert "no column 13 on a 12-column board (columns are 0-11 to the agent, 1-12 here)" in on_a_wide_board


def test_a_forfeit_detail_reads_the_board_the_offender_was_shown():
    """The referee plays an opening that fills column 4; ``middle``, second, then chooses it."""
    opening = (3, 3, 3, 3, 3, 3)
    record = play_episode(game_task(first="leftmost", second="middle", opening=opening))
    assert (record.termination, record.offender) == (Termination.INVALID, 2)
    assert record.detail == "mark 2 chose column 4, which is full (it returned 3, counting from 0)"
    returns_none = str(Path(__file__).parent / "misbehaving" / "returns_none.py")
    task = game_task(game_id=1, pair_id=1, first=returns_none, second="leftmost", opening=(0,) * 6)
    record = play_episode(task)
    assert (record.termination, record.offender) == (Termination.INVALID, 1)
    assert record.detail == "mark 1 returned None: Kaggle played its default action, column 1, which is full"


# ---- Kaggle's rules on a call: the column played, or the forfeit ----------------------------


def test_judge_plays_a_legal_int_and_none_as_kaggles_default_column():
    board = Board.from_moves("4")
    assert rules.rule_on(2, board, 3, seconds=0.01, clock=Clock()) == 3
    assert rules.rule_on(2, board, None, seconds=0.01, clock=Clock()) == 0


@pytest.mark.parametrize("action", [3.0, 3.7, "3", True, np.int64(3), np.float64(3.0), 7, -1])
def test_judge_forfeits_anything_but_a_python_int_naming_a_column_as_invalid(action):
    ruling = rules.rule_on(1, Board(), action, seconds=0.01, clock=Clock())
    assert isinstance(ruling, Forfeit)
    assert (ruling.offender, ruling.termination) == (1, Termination.INVALID)
    assert ruling.detail == rules.invalid_action(1, action, Board())


def test_judge_checks_time_first_then_an_exception_then_the_action():
    """Kaggle's order: a call over actTimeout plus the bank is TIMEOUT whatever it gave; a raise is
    ERROR; the proxy's DeadlineExceeded (it gave up waiting) is TIMEOUT with its note."""
    from tournament.environments import DeadlineExceeded

    clock, board = Clock(1.0, 2.0), Board()
    for answer in (3, 3.5, RuntimeError("boom")):
        late = rules.rule_on(1, board, answer, seconds=3.5, clock=clock)
        assert late.termination is Termination.TIMEOUT
        assert late.detail == "mark 1 took 3.5 s, over its 3.0 s (actTimeout 1 s and 2.0 s left in its bank)"
    assert rules.rule_on(1, board, 3, seconds=2.9, clock=clock) == 3  # the bank covers it
    error = rules.rule_on(2, Board.from_moves("1"), RuntimeError("mark 2 raised ValueError: x"), seconds=0.1,
                        clock=clock)  # fmt: skip
    assert (error.offender, error.termination, error.detail) == (
        2,
        Termination.ERROR,
        "mark 2 raised ValueError: x",
    )
    gave_up = rules.rule_on(
        1, board, DeadlineExceeded("mark 1 did not return within 1.5 s"), seconds=1.5, clock=clock
    )
    assert (gave_up.termination, gave_up.detail) == (
        Termination.TIMEOUT,
        "mark 1 did not return within 1.5 s",
    )


# ---- one constructor records every game -----------------------------------------------------


def test_a_record_ended_by_its_moves_takes_the_boards_result_and_kaggles_statuses():
    task = game_task(first="a", second="b", opening=(3, 3))
    won = GameRecord.ended(task, [3, 3, 4, 4, 5, 5, 6])  # 4455667: mark 1 along the bottom
    assert (won.result, won.termination, won.offender) == (1.0, Termination.WIN, None)
    assert (won.statuses, won.rewards) == (("DONE", "DONE"), (1, -1))
    full = [0, 0, 0, 1, 1, 2, 2, 2, 1]  # 3x3, 3 in a row: no line
    draw = GameRecord.ended(
        game_task(game_id=1, pair_id=1, first="a", second="b", rows=3, columns=3, inarow=3), full, [0.1] * 9
    )
    assert (draw.result, draw.termination, draw.rewards) == (0.5, Termination.DRAW, (0, 0))
    assert draw.moves == tuple(full) and draw.move_times == (0.1,) * 9
    with pytest.raises(ValueError, match="not over after 3 moves"):
        GameRecord.ended(task, [3, 3, 4])
    with pytest.raises(ValueError, match="begin with the opening"):
        GameRecord.ended(task, [4, 4, 3, 3, 5, 5, 6])  # won, but not from the opening


def test_a_forfeit_loses_with_kaggles_statuses_and_rewards():
    task = game_task(first="a", second="b")
    second = GameRecord.ended(task, [3], (0.1, 0.2), Forfeit(2, Termination.TIMEOUT, "late"), duration=1.5)
    assert (second.result, second.termination, second.offender, second.detail) == (
        1.0,
        Termination.TIMEOUT,
        2,
        "late",
    )
    assert (second.statuses, second.rewards, second.duration) == (("DONE", "TIMEOUT"), (0, None), 1.5)
    first = GameRecord.ended(task, [], forfeit=Forfeit(1, Termination.TIMEOUT, "bank", status="INVALID"))
    assert (first.result, first.statuses, first.rewards) == (0.0, ("INVALID", "DONE"), (None, 0))
    with pytest.raises(ValueError):
        Forfeit(1, Termination.WIN)


# ---- Kaggle's configuration -----------------------------------------------------------------


def test_an_agent_sees_kaggles_timeout_never_0_below_a_second(tmp_path):
    """``timeout``, the obsolete whole-second copy of ``actTimeout``, was int(actTimeout): 0 at 0.5 s."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def agent(obs, config):\n    raise RuntimeError(f'{config.timeout!r} {config.actTimeout!r}')\n"
    )
    for act_timeout, seen in ((0.5, "1 0.5"), (2.0, "2 2.0"), (2.5, "2 2.5")):
        record = play_episode(
            game_task(
                first=str(probe), second="leftmost", rows=4, columns=4, inarow=3, act_timeout=act_timeout
            )
        )
        assert record.termination is Termination.ERROR
        assert f"RuntimeError: {seen}" in record.detail
