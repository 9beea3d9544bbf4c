"""``connectx train`` and the driver under it, with a fake learner; ``build METHOD:weights=PATH``.

The fake method ``learned`` is a package written to a temporary directory: ``fakelearn.learned``, an
agent playing the legal column of highest weight (weights ``w``, one per column, from a ``.npz``
file: ``weights=PATH`` or the shipped ``learned.npz`` read through ``fakelearn.resources``), and
``fakelearn.trainer.Learner``, which moves ``w`` by draws from its own generator and from the global
``random`` (so that resuming must restore both), times its parameter ``step``, and reports a
``drift`` metric. The agent draws
from the global ``random`` too (so that evaluating must leave it as it was).
"""

from __future__ import annotations

import csv
import importlib
import pickle
import random
import sys
import textwrap

import numpy as np
import pytest

from agents import registry
from agents.engine.board import geometry
from agents.weights import save
from connectx.cli import main
from submissions.build import BuildError, build_spec
from training import learners
from training.driver import TrainingSettings, run

RESOURCES = """
from pathlib import Path


def read(name):
    path = Path(__file__).parent / "data" / name
    if not path.is_file():
        raise FileNotFoundError(f"agent data file missing: {path}")
    return path.read_bytes()
"""

AGENT = '''
"""``learned``: the legal column of highest weight (a fake learned agent for tests)."""

import io
import random

import numpy as np

from fakelearn import resources


def make_agent(weights: str | None = None):
    cache = {}

    def agent(obs, config):
        if "w" not in cache:
            data = open(weights, "rb").read() if weights else resources.read("learned.npz")
            with np.load(io.BytesIO(data)) as archive:
                cache["w"] = archive["w"]
        board, columns = obs["board"], config["columns"]
        legal = [c for c in range(columns) if board[c] == 0]
        random.random()  # as an agent breaking ties with the global generator would
        return int(max(legal, key=lambda c: (cache["w"][c], -c)))

    return agent


agent = make_agent()
'''

TRAINER = """
import random
from dataclasses import dataclass

import numpy as np

from agents.weights import save


@dataclass(frozen=True)
class Parameters:
    step: float = 1.0


class Learner:
    def __init__(self, geo, seed, parameters):
        self.geo = geo
        self.step = parameters.step
        self.rng = np.random.default_rng(seed)
        self.w = np.zeros(geo.columns)

    def train(self, games):
        before = self.w.copy()
        for _ in range(games):
            self.w += self.step * (self.rng.normal(size=self.w.shape) + random.random())
        return {"drift": float(np.abs(self.w - before).sum() / games)}

    def save(self, path):
        save(path, {"w": self.w}, self.geo)

    def state(self):
        return {"w": self.w.copy(), "rng": self.rng.bit_generator.state}

    def load_state(self, state):
        self.w = state["w"].copy()
        self.rng.bit_generator.state = state["rng"]
"""

SIX_BY_SEVEN = geometry(6, 7, 4)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """The fake method ``learned`` registered as a learner and an agent; its package directory."""
    package = tmp_path / "pkg" / "fakelearn"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, text in (("resources", RESOURCES), ("learned", AGENT), ("trainer", TRAINER)):
        (package / f"{name}.py").write_text(textwrap.dedent(text))
    shipped = np.zeros(7)
    shipped[0] = 1.0  # the shipped weights play column 0
    save(package / "data" / "learned.npz", {"w": shipped}, SIX_BY_SEVEN)
    monkeypatch.syspath_prepend(str(package.parent))
    for name in list(learners.LEARNERS):  # the one dict every module reads: only the fake is known
        monkeypatch.delitem(learners.LEARNERS, name)
    monkeypatch.setitem(learners.LEARNERS, "learned", "fakelearn.trainer.Learner")
    monkeypatch.setitem(registry.BUILTIN, "learned", "fakelearn.learned")
    yield package
    for name in [m for m in sys.modules if m.startswith("fakelearn")]:
        del sys.modules[name]


def _train(out, *options: str) -> int:
    return main(["train", "learned", "--out", str(out), "-q", *options])


def test_train_writes_weights_curve_checkpoint_and_says_where(fake, tmp_path, capsys):
    out = tmp_path / "run"
    assert _train(out, "--games", "40", "--eval-every", "20", "--eval-pairs", "2") == 0
    printed = capsys.readouterr().out
    assert f"learned:weights={out / 'learned.npz'}" in printed
    assert str(out / "curve.csv") in printed and str(out / "curve.png") in printed
    assert "random" in printed and "one_step" in printed
    with open(out / "curve.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["games"] for row in rows] == ["20", "40"]
    assert list(rows[0]) == ["games", "seconds", "drift", "score_random", "score_one_step"]
    for row in rows:
        assert 0 <= float(row["score_random"]) <= 1 and 0 <= float(row["score_one_step"]) <= 1
        assert float(row["drift"]) > 0
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(out / "checkpoint.pkl", "rb") as handle:
        saved = pickle.load(handle)
    assert saved["games"] == 40 and len(saved["history"]) == 2
    assert saved["settings"]["method"] == "learned"


def test_the_curve_has_metrics_every_100_games_and_scores_at_evaluations(fake, tmp_path):
    out = tmp_path / "run"
    assert _train(out, "--games", "350", "--eval-every", "150", "--eval-pairs", "1") == 0
    with open(out / "curve.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["games"] for row in rows] == ["100", "150", "200", "300", "350"]
    assert [bool(row["score_random"]) for row in rows] == [False, True, False, True, True]
    assert all(float(row["drift"]) > 0 for row in rows)


def test_an_interrupted_run_resumed_ends_with_the_weights_of_an_uninterrupted_one(fake, tmp_path, capsys):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert _train(whole, "--games", "50", "--seed", "3", "--eval-pairs", "1") == 0
    assert _train(parts, "--games", "20", "--seed", "3", "--eval-pairs", "1") == 0
    random.seed(99)  # as a new process would: the resumed run must restore the global generators
    np.random.seed(99)
    assert _train(parts, "--games", "50", "--seed", "3", "--eval-pairs", "1", "--param", "step=1") == 0
    with np.load(whole / "learned.npz") as a, np.load(parts / "learned.npz") as b:
        assert np.array_equal(a["w"], b["w"])
    assert _train(parts, "--games", "50", "--seed", "3") == 0  # already there: nothing trained
    assert "already holds 50 games" in capsys.readouterr().out
    with np.load(parts / "learned.npz") as b, np.load(whole / "learned.npz") as a:
        assert np.array_equal(a["w"], b["w"])


def test_evaluations_do_not_change_what_training_draws(fake, tmp_path):
    rare, often = tmp_path / "rare", tmp_path / "often"
    settings = TrainingSettings("learned", SIX_BY_SEVEN, 30, seed=1, eval_every=30, eval_pairs=1)
    run(settings, rare, progress=False)
    settings = TrainingSettings("learned", SIX_BY_SEVEN, 30, seed=1, eval_every=10, eval_pairs=1)
    run(settings, often, progress=False)
    with np.load(rare / "learned.npz") as a, np.load(often / "learned.npz") as b:
        assert np.array_equal(a["w"], b["w"])


@pytest.mark.parametrize(
    "options, message",
    [
        (["--seed", "4"], "seed 0 (asked 4)"),
        (["--rows", "5"], "rows 6 (asked 5)"),
        (["--param", "step=2"], "params {'step': 1.0} (asked {'step': 2.0})"),
    ],
)
def test_another_run_in_the_same_directory_is_refused_untouched(fake, tmp_path, capsys, options, message):
    out = tmp_path / "run"
    assert _train(out, "--games", "10") == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        _train(out, "--games", "20", *options)
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error and "another --out" in error
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_a_checkpoint_of_an_older_layout_is_refused_untouched(fake, tmp_path, capsys):
    out = tmp_path / "run"
    assert _train(out, "--games", "10") == 0
    with open(out / "checkpoint.pkl", "rb") as handle:
        saved = pickle.load(handle)
    saved["format"] -= 1
    with open(out / "checkpoint.pkl", "wb") as handle:
        pickle.dump(saved, handle)
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        _train(out, "--games", "20")
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "checkpoint format" in error
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "nope", "--games", "5"], "unknown method 'nope' (known: learned)"),
        (["train", "learned", "--games", "0"], "--games must be >= 1"),
        (["train", "learned", "--games", "5", "--eval-pairs", "0"], "--eval-pairs must be >= 1"),
        (["train", "learned", "--games", "5", "--rows", "0"], "--rows must be >= 1"),
        (["train", "learned", "--steps", "5"], "learned counts its training in games: give --games"),
        (
            ["train", "learned", "--games", "5", "--param", "x=1"],
            "learned has no parameter 'x' (known: step)",
        ),
        (["train", "learned", "--games", "5", "--param", "step=fast"], "step=fast: not a number"),
        (["train", "learned", "--games", "5", "--param", "x"], "give NAME=VALUE"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(fake, tmp_path, capsys, argv, message):
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--out", str(out)])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error
    assert not out.exists()


def test_ppo_without_the_rl_extra_says_in_one_line_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as if PyTorch were not installed
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["train", "ppo", "--steps", "100", "--out", str(out)])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "the [rl] extra" in error and "pip install -e '.[rl]'" in error
    assert not out.exists()


def test_ctrl_c_keeps_the_last_checkpoint_and_exits_130(fake, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    trainer = importlib.import_module("fakelearn.trainer")
    train = trainer.Learner.train
    calls = []

    def interrupted(self, games):
        calls.append(games)
        if len(calls) == 3:  # the third chunk: after the checkpoint of games 20
            raise KeyboardInterrupt
        return train(self, games)

    monkeypatch.setattr(trainer.Learner, "train", interrupted)
    assert _train(out, "--games", "40", "--eval-every", "20", "--eval-pairs", "1") == 130
    assert "checkpoint of 20 games stays" in capsys.readouterr().err
    with open(out / "checkpoint.pkl", "rb") as handle:
        assert pickle.load(handle)["games"] == 20


def test_a_spec_weights_path_is_embedded_in_the_build_in_place_of_the_shipped_file(fake, tmp_path):
    mine = np.zeros(7)
    mine[3] = 1.0  # plays column 3; the shipped file plays column 0
    path = tmp_path / "sub dir" / "learned.npz"
    path.parent.mkdir()
    save(path, {"w": mine}, SIX_BY_SEVEN)
    submission = build_spec(f"learned:weights={path}")
    assert "weights" not in submission.params
    assert dict(submission.data)["learned.npz"] == path.stat().st_size
    namespace: dict = {}
    exec(compile(submission.text, "submission.py", "exec"), namespace)
    obs, config = {"board": [0] * 42, "mark": 1, "step": 0}, {"rows": 6, "columns": 7, "inarow": 4}
    assert namespace["agent"](obs, config) == 3
    shipped: dict = {}
    exec(compile(build_spec("learned").text, "submission.py", "exec"), shipped)
    assert shipped["agent"](obs, config) == 0


def test_a_weights_path_that_cannot_be_embedded_is_a_build_error(fake, tmp_path):
    with pytest.raises(BuildError, match="weights file not found"):
        build_spec(f"learned:weights={tmp_path / 'missing.npz'}")
    (tmp_path / "bad.npz").write_bytes(b"not an archive")
    with pytest.raises(BuildError, match="not a weights file"):
        build_spec(f"learned:weights={tmp_path / 'bad.npz'}")


def test_paired_score_plays_each_opening_with_both_colours():
    from agents import leftmost, one_step
    from training.evaluation import opponent, paired_score

    openings = [(3, 3), (0, 6), ()]
    # A deterministic agent against itself: each pair is one game twice, once for each side.
    assert paired_score(leftmost.agent, leftmost.agent, SIX_BY_SEVEN, openings) == 0.5
    assert paired_score(one_step.make_agent(seed=1), leftmost.agent, SIX_BY_SEVEN, openings) == 1.0
    assert paired_score(leftmost.agent, opponent("one_step", 1), SIX_BY_SEVEN, openings) == 0.0
    with pytest.raises(ValueError, match="at least one opening"):
        paired_score(leftmost.agent, leftmost.agent, SIX_BY_SEVEN, [])
