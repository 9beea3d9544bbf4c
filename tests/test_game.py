"""A game process's environment, kept from game to game, referees as a new one does."""

from __future__ import annotations

import pytest

from tournament import sandbox
from tournament.game import Environments, play_game
from tournament.record import Termination
from tournament.schedule import GameTask


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
        GameTask(0, 0, "kaggle-random", "kaggle-random", 6, 7, 4, 2.0, None, seed=3),
        GameTask(1, 0, "kaggle-random", "leftmost", 6, 7, 4, 2.0, None, seed=4, opening=(3, 3, 2)),
        GameTask(2, 1, "kaggle-random", "kaggle-random", 6, 7, 4, 2.0, None, seed=5),
        GameTask(3, 1, "kaggle-random", "kaggle-random", 5, 6, 4, 2.0, None, seed=6),  # another board
        GameTask(4, 2, "kaggle-random", "kaggle-random", 6, 7, 4, 2.0, None, seed=7, opening=(0,)),
    ]
    environments = Environments()
    kept = [play_game(task, environments=environments) for task in tasks]
    for task, record in zip(tasks, kept, strict=True):
        new = play_game(task)
        assert _same(record, new), task
        assert len(record.moves) >= 7 and record.moves[: len(task.opening)] == task.opening


def test_an_environment_the_referee_failed_in_is_not_kept(monkeypatch):
    task = GameTask(0, 0, "kaggle-random", "kaggle-random", 6, 7, 4, 2.0, None, seed=3)
    environments = Environments()
    kept = environments.take(task)
    assert environments.take(task) is kept
    assert environments.take(GameTask(1, 0, "random", "random", 5, 6, 4, 2.0, None, seed=3)) is not kept

    def fails(self, agents):
        raise RuntimeError("the referee failed")

    kept = environments.take(task)
    monkeypatch.setattr(type(kept), "run", fails)
    with pytest.raises(RuntimeError, match="the referee failed"):
        play_game(task, environments=environments)
    assert environments.take(task) is not kept


def test_a_zygote_asked_how_a_host_ended_with_hosts_on_their_way_still_answers_and_serves():
    sandbox.become_subreaper()
    zygote = sandbox.Zygote()
    try:
        pid, conn = zygote.host()
        conn.close()  # a blank host without an assignment exits
        zygote.clear()  # reaps it and asks for the next game's two hosts
        assert zygote.ended(pid) == "stopped answering"  # not a host's message read as the answer
        task = GameTask(0, 0, "kaggle-random", "kaggle-random", 6, 7, 4, 2.0, None, seed=3)
        assert play_game(task, zygote=zygote).termination in (Termination.WIN, Termination.DRAW)
    finally:
        zygote.close()
