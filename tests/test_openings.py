"""Openings: parsing, random openings, the schedule's game pairs, and play through the referee."""

from __future__ import annotations

import pytest

from agents.engine.board import geometry
from tournament.game import play_episode
from tournament.openings import OpeningError, pair_openings, parse_openings, random_openings, resolve
from tournament.schedule import GameTask, Settings, schedule

GEO = geometry(6, 7, 4)


def test_parse_openings_reads_pons_notation_and_skips_comments():
    text = "# balanced\n4453 0\n\n44  # centre twice\n4453\n"
    assert parse_openings(text, GEO) == ((3, 3, 4, 2), (3, 3))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("4x", "move 2 'x' is not a column digit"),
        ("40", "move 2 '0' is not a column digit"),
        ("8", "not a column"),
        ("1111111", "full"),
        ("1212121", "ends the game"),  # mark 1 has four in column 1
        ("121212", "winning move"),  # mark 1 to move with three stacked
    ],
)
def test_bad_openings_are_refused_with_the_line(line, message):
    with pytest.raises(OpeningError, match=message):
        parse_openings(f"44\n{line}\n", GEO, origin="mine.txt")
    with pytest.raises(OpeningError, match="mine.txt line 2"):
        parse_openings(f"44\n{line}\n", GEO, origin="mine.txt")


def test_an_empty_file_is_refused(tmp_path):
    with pytest.raises(OpeningError, match="no opening"):
        parse_openings("# nothing\n", GEO)
    with pytest.raises(OpeningError, match="not found"):
        resolve(str(tmp_path / "missing.txt"), GEO, pairs=4, seed=1)


def test_random_openings_are_seeded_distinct_and_leave_the_game_open():
    openings = random_openings(GEO, 4, 50, seed=3)
    assert openings == random_openings(GEO, 4, 50, seed=3)
    assert openings != random_openings(GEO, 4, 50, seed=4)
    assert len(openings) == 50 and all(len(opening) == 4 for opening in openings)
    text = "\n".join("".join(str(c + 1) for c in opening) for opening in openings)
    assert parse_openings(text, GEO) == openings  # each one passes the checks, none twice
    for opening in openings:
        mirror = tuple(6 - c for c in opening)
        assert mirror == opening or mirror not in openings


def test_auto_is_the_built_in_suite_on_6x7_and_random_openings_elsewhere():
    description, suite = resolve("auto", GEO, pairs=4, seed=1)
    assert "built-in suite" in description and len(suite) == 350
    assert {len(opening) for opening in suite} == {6, 7, 8}
    description, openings = resolve("auto", geometry(7, 8, 4), pairs=4, seed=1)
    assert description == "random, 4 plies" and len(openings) == 4


def test_tiny_boards_get_shorter_openings_or_none():
    assert resolve("auto", geometry(2, 2, 2), pairs=3, seed=1)[1] in ((), ((0,),), ((1,),), ((0,), (1,)))
    with pytest.raises(OpeningError, match="no opening"):
        resolve("plies=4", geometry(1, 2, 2), pairs=3, seed=1)


def test_every_pairing_plays_the_same_openings_in_colour_swapped_pairs():
    openings = random_openings(GEO, 4, 3, seed=1)
    settings = Settings(("a", "b", "c"), games=5, openings=openings, seed=9)
    tasks = schedule(settings)
    expected = pair_openings(openings, 5, 9)
    assert sorted(set(expected)) == sorted(openings)  # all used, cycled past three
    for task in tasks:
        round_ = task.pair_id // 3  # three pairings a round
        assert task.opening == expected[round_]
    for first, second in zip(tasks[::2], tasks[1::2], strict=True):
        assert (first.pair_id, first.opening) == (second.pair_id, second.opening)
        assert (first.first, first.second) == (second.second, second.first)


def test_the_referee_plays_the_opening_and_the_record_keeps_it():
    task = GameTask(0, 0, "leftmost", "leftmost", 6, 7, 4, 2.0, None, seed=1, opening=(3, 3, 2))
    record = play_episode(task)
    assert record.opening == (3, 3, 2)
    assert record.moves[:3] == (3, 3, 2) and record.moves[3] == 0  # mark 2, leftmost, moves first
    assert len(record.move_times) == len(record.moves) - 3  # no agent call for the opening
