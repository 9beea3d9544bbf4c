"""The tournament driver: it resumes from the store, stores each game as it ends, stops when its stop
rule decides, tells its callback of each game and says what it did; a game the referee fails on is
left for the next run, and a misbehaving agent's game is stored like any other."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from tests.records import game_task
from tournament import runner
from tournament.driver import Backend, BackendError, Started, Summary, Tournament
from tournament.record import GameFailed, GameRecord, Termination
from tournament.schedule import Settings
from tournament.store import Store

MISBEHAVING = Path(__file__).parent / "misbehaving"
ONE = Backend(workers=1)  # one game at a time: games end in the schedule's order


def _settings(*entrants: str, games: int = 2) -> Settings:
    """A small round-robin from the empty board of 4x4, 3 in a row."""
    return Settings(entrants=entrants, games=games, rows=4, columns=4, inarow=3, seed=3)


class AfterGames:
    """A stop rule that decides once it has counted ``games`` games."""

    def __init__(self, games: int) -> None:
        self.games, self.counted = games, 0

    def add(self, records) -> None:
        self.counted += len(list(records))

    @property
    def decision(self) -> str | None:
        return "enough" if self.counted >= self.games else None


def _played(out: Path) -> dict[int, tuple]:
    """What each stored game of ``out`` says happened, without its times."""
    with Store.open(out) as store:
        return {
            r.game_id: (r.task, r.moves, r.result, r.termination, r.offender, r.statuses, r.rewards, r.detail)
            for r in store.records()
        }


def test_a_run_its_rule_stopped_resumes_and_stores_the_games_of_one_whole_run(tmp_path):
    settings = _settings("leftmost", "random:seed=1", "one_step")  # 3 pairings, 12 games
    events: list = []
    with Tournament(tmp_path / "a", settings, ONE) as tournament:
        assert (tournament.settings.workers, tournament.settings.cores) == (1, os.cpu_count())
        summary = tournament.play(AfterGames(5), events.append)
    assert summary == Summary(played=5, failed=0, stored=5, scheduled=12, decision="enough")
    assert events[0] == Started(scheduled=12, stored=0, todo=12)
    assert [event.game_id for event in events[1:]] == [0, 1, 2, 3, 4]  # the game in flight is not stored
    assert sorted(_played(tmp_path / "a")) == [0, 1, 2, 3, 4]

    with Tournament(tmp_path / "a", settings, ONE) as tournament:  # the rule counts the stored games
        assert tournament.play(AfterGames(5), events.append) == Summary(0, 0, 5, 12, "enough")
    assert events[-1] == Started(12, 5, 0)

    with Tournament(tmp_path / "a", settings, ONE) as tournament:  # no rule: the rest
        assert tournament.play(on_event=events.append) == Summary(7, 0, 12, 12, None)
    assert events[-8] == Started(12, 5, 7)

    with Tournament(tmp_path / "b", settings, ONE) as tournament:
        tournament.play()
    assert _played(tmp_path / "a") == _played(tmp_path / "b")


def test_a_game_the_referee_failed_on_is_told_and_left_for_the_next_run(tmp_path, monkeypatch):
    def fails(tasks, workers, limits):
        for task in tasks:
            yield GameFailed(f"game {task.game_id}: the referee failed")

    settings = _settings("leftmost", "random:seed=1", games=1)
    events: list = []
    with monkeypatch.context() as patched:
        patched.setattr(runner, "run_games", fails)
        with Tournament(tmp_path, settings, ONE) as tournament:
            assert tournament.play(on_event=events.append) == Summary(0, 2, 0, 2, None)
    assert [str(event) for event in events[1:]] == [f"game {i}: the referee failed" for i in (0, 1)]
    assert _played(tmp_path) == {}
    with Tournament(tmp_path, settings, ONE) as tournament:
        assert tournament.play() == Summary(2, 0, 2, 2, None)


def test_an_agent_returning_a_whole_float_forfeits_and_its_games_are_stored_once(tmp_path):
    """3.0 passes Kaggle's schema and crashes its referee: the game failed, and every run retried it."""
    float_agent = str(MISBEHAVING / "returns_whole_float.py")
    settings = _settings(float_agent, "leftmost", games=1)
    events: list = []
    with Tournament(tmp_path, settings, ONE) as tournament:
        assert tournament.play(on_event=events.append) == Summary(2, 0, 2, 2, None)
    records = [event for event in events if isinstance(event, GameRecord)]
    assert [(r.termination, r.offender) for r in records] == [
        (Termination.INVALID, 1),
        (Termination.INVALID, 2),
    ]
    assert records[1].detail == "mark 2 returned 3.0 (a float; an agent must return a Python int)"
    with Tournament(tmp_path, settings, ONE) as tournament:
        assert tournament.play() == Summary(0, 0, 2, 2, None)


def test_an_unknown_backend_is_refused_before_anything_is_written(tmp_path):
    with (
        pytest.raises(BackendError, match="no backend 'dask'"),
        Tournament(tmp_path / "out", _settings("leftmost", "random"), Backend("dask")),
    ):
        pass
    assert not (tmp_path / "out").exists()


def test_tasks_given_are_played_instead_of_the_schedule_by_the_specs_their_names_stand_for(tmp_path):
    """A driver that chooses its games as it goes (a ladder) hands them in, named as it stores them."""
    settings = _settings("left@1", "rand@1", games=1)
    tasks = [
        game_task(game_id=k, pair_id=0, first=a, second=b, rows=4, columns=4, inarow=3, seed=5)
        for k, (a, b) in enumerate([("left@1", "rand@1")] * 2)
    ]
    tasks[1] = dataclasses.replace(tasks[1], first="rand@1", second="left@1")
    players = {"left@1": "leftmost", "rand@1": "random:seed=2"}
    with Tournament(tmp_path, settings, ONE) as tournament:
        assert tournament.play(tasks=tasks[:1], players=players) == Summary(1, 0, 1, 1, None)
        assert tournament.play(tasks=tasks, players=players) == Summary(1, 0, 2, 2, None)  # game 0 is stored
    with Store.open(tmp_path) as store:
        stored = store.records()
    assert [r.task for r in stored] == tasks  # under the names, as handed in
    for record in stored:  # left@1 played leftmost: the leftmost column not full, every move
        assert record.offender is None and len(record.moves) >= 5
        heights = [0] * 4
        for ply, column in enumerate(record.moves):
            if (record.first, record.second)[ply % 2] == "left@1":
                assert column == min(c for c in range(4) if heights[c] < 4)
            heights[column] += 1
