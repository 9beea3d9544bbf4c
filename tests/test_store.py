"""SQLite storage keeps every record exactly, and refuses to mix tournaments."""

from __future__ import annotations

import pytest

from tournament.record import GameRecord, Termination
from tournament.schedule import Settings, schedule
from tournament.store import Store, StoreError

SETTINGS = Settings(entrants=("random", "leftmost", "minimax:depth=2"), games=2)


def record(game_id: int, **changes) -> GameRecord:
    fields = dict(
        game_id=game_id,
        pair_id=game_id // 2,
        first="random",
        second="leftmost",
        rows=6,
        columns=7,
        inarow=4,
        act_timeout=2.0,
        seed=9,
        moves=(3, 3, 4),
        move_times=(0.1, 0.2, 0.3, 0.01),
        result=0.0,
        termination=Termination.INVALID,
        offender=1,
        statuses=("INVALID", "DONE"),
        rewards=(None, 0),
        detail="mark 1 returned '3' (builtins.str)",
        duration=1.5,
        started_at="2026-11-21T23:00:00+00:00",
    )
    fields.update(changes)
    return GameRecord(**fields)


def test_records_round_trip(tmp_path):
    games = [record(0), record(1, result=0.5, termination=Termination.DRAW, offender=None, rewards=(0, 0))]
    with Store.create(tmp_path, SETTINGS) as store:
        for game in games:
            store.add(game)
    with Store.open(tmp_path) as store:
        assert store.records() == games
        assert store.settings() == SETTINGS
        assert store.game_ids() == {0, 1}


def test_same_settings_resume_and_other_settings_are_refused(tmp_path):
    with Store.create(tmp_path, SETTINGS) as store:
        store.add(record(0))
    with Store.create(tmp_path, SETTINGS) as store:
        assert store.game_ids() == {0}
    other = Settings(entrants=("random", "leftmost"), games=2)
    with pytest.raises(StoreError, match="different tournament"):
        Store.create(tmp_path, other)
    with Store.open(tmp_path) as store:
        assert store.records() == [record(0)]


def test_open_refuses_a_directory_without_a_tournament(tmp_path):
    with pytest.raises(StoreError, match="no tournament"):
        Store.open(tmp_path)
    (tmp_path / "tournament.db").write_text("not sqlite")
    with pytest.raises(StoreError, match="not a tournament database"):
        Store.open(tmp_path)


def test_record_rejects_inconsistent_fields():
    with pytest.raises(ValueError):
        record(0, offender=None)
    with pytest.raises(ValueError):
        record(0, result=0.25)


def test_schedule_pairs_every_pairing_with_colours_swapped():
    tasks = schedule(SETTINGS)
    assert len(tasks) == 3 * 2 * 2
    assert [t.game_id for t in tasks] == list(range(12))
    for a, b in zip(tasks[::2], tasks[1::2], strict=True):
        assert (a.first, a.second) == (b.second, b.first)
        assert a.pair_id == b.pair_id and a.seed == b.seed
    assert len({t.seed for t in tasks}) == 6
    played = {frozenset((t.first, t.second)) for t in tasks}
    assert len(played) == 3


def test_gauntlet_plays_only_the_first_entrant():
    tasks = schedule(Settings(entrants=("negamax", "random", "leftmost"), games=1, gauntlet=True))
    assert len(tasks) == 4 and all("negamax" in (t.first, t.second) for t in tasks)
