"""Openings: parsing, random openings, the schedule's game pairs, and play through the referee."""

from __future__ import annotations

import pytest

from agents.engine.board import geometry
from tests.records import game_task
from tournament.game import play_episode
from tournament.openings import OpeningError, pair_openings, parse_openings, random_openings, resolve
from tournament.schedule import GameTask, Settings, pair_seed, schedule, single_game_settings

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


def test_the_seeds_are_those_played_before_pair_seed_so_stored_runs_resume_the_same():
    """Pinned from main at 430ffb7, where the schedule, the ladder and ``connectx play`` each drew
    ``random.Random(f"{seed}:{pair_id}").getrandbits(32)`` themselves."""
    tasks = schedule(Settings(("a", "b", "c"), games=2, seed=1))  # a round robin of 3, 2 pairs a pairing
    assert [(t.game_id, t.pair_id, t.first, t.second, t.seed) for t in tasks] == [
        (0, 0, "a", "b", 3118038342), (1, 0, "b", "a", 3118038342),
        (2, 1, "a", "c", 3076692213), (3, 1, "c", "a", 3076692213),
        (4, 2, "b", "c", 421723846), (5, 2, "c", "b", 421723846),
        (6, 3, "a", "b", 757366822), (7, 3, "b", "a", 757366822),
        (8, 4, "a", "c", 3532415197), (9, 4, "c", "a", 3532415197),
        (10, 5, "b", "c", 3232976141), (11, 5, "c", "b", 3232976141),
    ]  # fmt: skip
    assert [pair_seed(1, pair) for pair in range(6)] == [t.seed for t in tasks[::2]]
    assert [pair_seed(9, pair) for pair in (0, 7)] == [3290117692, 2266189917]


def test_the_settings_of_single_games_are_those_stored_before():
    """``connectx play``, the board page and ``connectx import`` built these themselves before
    (main at 430ffb7): equal settings, so their stored runs take more games."""
    board = {"rows": 5, "columns": 6, "inarow": 4, "act_timeout": 1.5}
    played = single_game_settings(("human", "leftmost"), **board, toolkit="t")
    assert played == Settings(entrants=("human", "leftmost"), games=1, **board, gauntlet=True)
    assert (played.seed, played.opening_source, played.workers, played.toolkit) == (1, "none", 1, "t")
    imported = single_game_settings(("x", "y"), **board, imported_from="kaggle episodes")
    assert imported == Settings(
        entrants=("x", "y"), games=1, **board, seed=0, opening_source="kaggle episodes"
    )
    assert (imported.gauntlet, imported.workers, imported.cores) == (False, None, None)


def test_a_game_task_is_built_by_keyword_only():
    with pytest.raises(TypeError, match="positional"):
        GameTask(0, 0, "a", "b", 6, 7, 4, 2.0, None, 1)  # type: ignore[misc]
    assert game_task(seed=5) == GameTask(
        game_id=0, pair_id=0, first="a", second="b", rows=6, columns=7, inarow=4, act_timeout=2.0,
        hang_limit=None, seed=5,
    )  # fmt: skip


def test_the_referee_plays_the_opening_and_the_record_keeps_it():
    task = game_task(first="leftmost", second="leftmost", opening=(3, 3, 2))
    record = play_episode(task)
    assert record.opening == (3, 3, 2)
    assert record.moves[:3] == (3, 3, 2) and record.moves[3] == 0  # mark 2, leftmost, moves first
    assert len(record.move_times) == len(record.moves) - 3  # no agent call for the opening
