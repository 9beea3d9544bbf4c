"""The ladder's statistics without playing: matchmaking's choices, the Kaggle-style replay, and the
pairs the two ratings order otherwise (records built by hand)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from reports.stats.headtohead import WDL
from reports.stats.kaggle import KaggleParameters, replay
from reports.stats.ladder import Entry, LadderRater, disagreements
from reports.stats.ratings import Rating
from tests.records import game_record
from tournament.ladder import Member, Outlook
from tournament.ladder.matchmaking import choose, pair_gain
from tournament.record import Termination


def outlook(elo: dict[str, float], sd: dict[str, float], newcomer: str = "new") -> Outlook:
    """Independent ratings (the newcomer's too), the target the newcomer minus the others' mean."""
    names = tuple(elo)
    target = np.array([1.0 if name == newcomer else -1.0 / (len(names) - 1) for name in names])
    return Outlook(names, np.array(list(elo.values())), np.diag([sd[n] ** 2 for n in names]), target)


def test_information_plays_near_the_newcomer_first():
    elo = {"new": 0.0, "far": -600.0, "near": 30.0, "middle": -250.0}
    sd = {"new": 300.0, "far": 40.0, "near": 40.0, "middle": 40.0}
    view = outlook(elo, sd)
    assert choose(view, "new", ["far", "middle", "near"], 1) == ["near"]
    assert (
        pair_gain(view, "new", "near") > pair_gain(view, "new", "middle") > pair_gain(view, "new", "far") > 0
    )


def test_a_pairs_gain_is_the_fall_of_the_targets_variance_in_the_information_matrix():
    rng = np.random.default_rng(3)
    root = rng.normal(size=(4, 4))
    information = root @ root.T + np.eye(4)  # some Fisher information (log-odds units)
    c = 400 / math.log(10)
    elo = np.array([0.0, 120.0, -80.0, 300.0])
    view = Outlook(
        ("new", "a", "b", "c"), elo, np.linalg.inv(information) * c**2, np.array([0.75, -0.25, -0.25, -0.25])
    )
    p = 1 / (1 + math.exp(-(elo[0] - elo[2]) / c))
    u = np.array([1.0, 0.0, -1.0, 0.0])
    after = np.linalg.inv(information + 2 * p * (1 - p) * np.outer(u, u)) * c**2
    fall = view.target @ view.covariance @ view.target - view.target @ after @ view.target
    assert pair_gain(view, "new", "b") == pytest.approx(fall, rel=1e-9)


def test_the_same_opponent_pays_less_each_pair_so_a_batch_spreads_over_near_members():
    elo = {"new": 0.0, "a": 10.0, "b": -10.0, "c": 20.0}
    sd = {"new": 300.0, "a": 60.0, "b": 60.0, "c": 60.0}
    assert sorted(choose(outlook(elo, sd), "new", ["a", "b", "c"], 3)) == ["a", "b", "c"]


def test_uniform_plays_the_fewest_met_first_then_in_joining_order():
    assert choose(None, "new", ["a", "b", "c"], 4, rule="uniform", pairs={"a": 1}) == ["b", "c", "a", "b"]
    with pytest.raises(ValueError, match="unknown matchmaking rule"):
        choose(None, "new", ["a"], 1, rule="closest")


def _game(game_id: int, first: str, second: str, result: float, pair_id: int | None = None):
    """A game without moves that ``first`` scored ``result`` in (a pair of its own unless ``pair_id``)."""
    termination = Termination.DRAW if result == 0.5 else Termination.WIN
    pair_id = game_id if pair_id is None else pair_id
    return game_record(game_id=game_id, pair_id=pair_id, first=first, second=second, moves=(), move_times=(),
                       result=result, termination=termination)  # fmt: skip


def test_the_outlook_of_a_newcomer_without_games_starts_it_in_the_middle_of_the_field():
    records = [
        _game(k, a, b, result, pair_id=k // 2)
        for k, (a, b, result) in enumerate(
            [("x", "y", 1.0), ("y", "x", 1.0), ("x", "z", 1.0), ("z", "x", 0.0)] * 3
        )
    ]
    view = LadderRater().outlook(records, "new")
    assert view is not None and set(view.names) == {"new", "x", "y", "z"}
    others = [view.elo[view.index(name)] for name in "xyz"]
    assert min(others) < view.elo[view.index("new")] < max(others)
    assert abs(view.target.sum()) < 1e-12 and view.target[view.index("new")] > 0
    assert np.all(np.linalg.eigvalsh(view.covariance) > -1e-6)  # a covariance


def test_the_kaggle_replay_starts_at_600_moves_winners_up_pulls_draws_together_and_shrinks_sigma():
    won = replay([_game(0, "a", "b", 1.0)])
    assert won["a"].mu > 600 > won["b"].mu and won["a"].sigma < 200 and won["b"].sigma < 200
    assert won["a"].games == won["b"].games == 1
    drawn = replay([_game(0, "a", "b", 1.0), _game(1, "a", "b", 0.5)])
    assert won["b"].mu < drawn["b"].mu < drawn["a"].mu < won["a"].mu  # toward their mean
    even = replay([_game(0, "a", "b", 0.5)])
    assert even["a"].mu == pytest.approx(600) and even["a"].sigma < 200
    assert replay([_game(0, "a", "a", 1.0)]) == {}  # self-play counts nowhere


def test_the_kaggle_replay_follows_game_ids_and_its_assumed_parameters():
    games = [_game(k, *random.Random(k).sample("abc", 2), 1.0) for k in range(30)]
    shuffled = random.Random(1).sample(games, len(games))
    assert replay(shuffled) == replay(games)
    wide = replay(games, KaggleParameters(sigma=400, beta=200, tau=4))
    assert wide != replay(games) and all(math.isfinite(skill.mu) for skill in wide.values())
    with pytest.raises(ValueError, match="sigma must be positive"):
        KaggleParameters(sigma=0)


def _entry(name: str, elo: float, low: float, high: float, mu: float) -> Entry:
    from reports.stats.kaggle import Skill

    rating = Rating(name, elo, low, high, 10, 5.0)
    return Entry(Member(name, 1, "x", name), rating, WDL(5, 0, 5), Skill(name, mu, 50.0, 10), 1)


def test_disagreements_name_the_pairs_the_two_ratings_order_otherwise_and_whether_they_overlap():
    entries = [
        _entry("a", math.inf, 300.0, math.inf, 900.0),
        _entry("b", 100.0, 50.0, 150.0, 950.0),  # above a by μ: a's bound 300 is above b's 150
        _entry("c", 90.0, 40.0, 140.0, 960.0),  # above b by μ, overlapping
        _entry("d", -math.inf, -math.inf, -200.0, 100.0),
    ]
    assert disagreements(entries) == [("a@1", "b@1", False), ("a@1", "c@1", False), ("b@1", "c@1", True)]


def test_the_history_has_a_checkpoint_an_addition_at_most_twelve_the_last_all_games():
    from reports.stats.ladder import history
    from tournament.ladder import Roster, Session

    records = [
        _game(k, a, b, float(k % 3 != 0), pair_id=k // 2)
        for k, (a, b) in enumerate(
            [("x", "y"), ("y", "x"), ("y", "z"), ("z", "y"), ("x", "z"), ("z", "x")] * 10
        )
    ]
    sessions = tuple(Session("add", (f"m{k}",), 3 * k, 1) for k in range(20))
    checkpoints = history(records, Roster((), sessions))
    assert 1 < len(checkpoints) <= 12 and checkpoints[-1].games == len(records)
    assert [c.games for c in checkpoints] == sorted({c.games for c in checkpoints})


def test_a_changed_file_or_changed_parameters_make_the_next_version_and_defaults_change_nothing(tmp_path):
    from tournament.ladder import Roster, identify

    bot = tmp_path / "bot.py"
    bot.write_text("def agent(obs, config):\n    return 0\n")
    first = identify(str(bot))
    roster = Roster().with_member(Roster().admit(first, added="t", toolkit=""))
    assert roster.admit(identify(str(bot)), added="t", toolkit="").id == "bot@1"  # the same bytes: the same
    bot.write_text("def agent(obs, config):\n    return 1\n")
    second = roster.admit(identify(str(bot)), added="t", toolkit="")
    assert second.id == "bot@2" and second.spec != roster.members[0].spec
    assert second.spec.startswith("agents/") and second.files == (second.spec,)  # plays its own copy
    assert identify("minimax").identity == identify("minimax:depth=3").identity  # 3 is the default
    assert identify("minimax:depth=2").identity != identify("minimax").identity
    assert identify("minimax:depth=2").name == "minimax" and identify("kaggle-random").name == "kaggle-random"
