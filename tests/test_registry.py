"""Agent specs: names, parameters and files are checked before anything is played."""

from __future__ import annotations

import shutil

import pytest

from agents.registry import (
    DEFAULT_ENTRANTS,
    Parameter,
    SpecError,
    files_of,
    load_agent,
    parameters,
    parse_spec,
    summary,
    with_paths,
)


def test_builtin_with_parameters():
    spec = parse_spec("minimax:depth=2,seed=4")
    assert (spec.kind, spec.name, spec.params) == ("builtin", "minimax", {"depth": 2, "seed": 4})
    assert callable(load_agent(spec))


def test_kaggle_builtins_resolve_to_their_referee_names():
    assert load_agent(parse_spec("kaggle-random")) == "random"
    assert load_agent(parse_spec("kaggle-negamax")) == "negamax"


def test_file_spec_is_an_absolute_path(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("def agent(obs, config):\n    return 0\n")
    spec = parse_spec(str(path))
    assert spec.kind == "file" and load_agent(spec) == str(path)


def test_a_parameter_naming_a_file_becomes_an_absolute_path(tmp_path, monkeypatch):
    from agents.engine.board import Board
    from agents.kit.adapter import Clock, observation
    from agents.resources import DATA_DIR

    (tmp_path / "runs").mkdir()
    shutil.copy(DATA_DIR / "lms.npz", tmp_path / "runs" / "w.npz")
    monkeypatch.chdir(tmp_path)
    spec = parse_spec("lms:weights=runs/w.npz")
    assert spec.text == "lms:weights=runs/w.npz"
    assert spec.params == {"weights": str(tmp_path / "runs" / "w.npz")}
    monkeypatch.chdir("/")  # another working directory, as in an agent's sandbox
    assert load_agent(spec)(*observation(Board(), Clock())) == 3


def test_files_of_names_a_file_agent_and_file_parameters(tmp_path, monkeypatch):
    from agents.resources import DATA_DIR

    (tmp_path / "runs").mkdir()
    shutil.copy(DATA_DIR / "lms.npz", tmp_path / "runs" / "w.npz")
    (tmp_path / "mine.py").write_text("def agent(obs, config):\n    return 0\n")
    monkeypatch.chdir(tmp_path)
    assert files_of("lms:weights=runs/w.npz") == {"runs/w.npz": str(tmp_path / "runs" / "w.npz")}
    assert files_of("mine.py") == {"mine.py": str(tmp_path / "mine.py")}
    assert files_of("minimax:depth=2") == files_of("kaggle-random") == {}


def test_with_paths_replaces_only_the_files_named():
    moved = {"runs/w.npz": "/elsewhere/w.npz", "mine.py": "/elsewhere/mine.py"}
    assert with_paths("lms:weights=runs/w.npz", moved) == "lms:weights=/elsewhere/w.npz"
    assert with_paths(" mine.py ", moved) == "/elsewhere/mine.py"
    assert with_paths("other.py", moved) == "other.py"
    assert with_paths("minimax:depth=2,seed=4", moved) == "minimax:depth=2,seed=4"
    assert with_paths("minimax", moved) == "minimax"
    assert with_paths("kaggle-random", moved) == "kaggle-random"


@pytest.mark.parametrize(
    "text,message",
    [
        ("alphabeta", "unknown agent 'alphabeta'"),
        ("minimax:depth", "expected key=value"),
        ("minimax:width=3", "bad parameters for 'minimax'"),
        ("minimax:depth=0", "depth must be >= 1"),
        ("missing/agent.py", "agent file not found"),
        ("leftmost:seed=1", "bad parameters"),
    ],
)
def test_bad_specs_say_what_is_wrong(text, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(text)


def test_every_default_entrant_parses():
    assert [parse_spec(name).text for name in DEFAULT_ENTRANTS] == list(DEFAULT_ENTRANTS)


def test_seed_reaches_agents_that_take_one():
    spec = parse_spec("random")
    obs = {"board": [0] * 42, "mark": 1}
    config = {"rows": 6, "columns": 7, "inarow": 4}
    first = [load_agent(spec, seed=3)(obs, config) for _ in range(5)]
    assert first == [load_agent(spec, seed=3)(obs, config) for _ in range(5)]


def test_parameters_and_summary_are_read_from_the_code():
    assert parameters("minimax") == (Parameter("depth", "int", "3"), Parameter("seed", "int", "unset"))
    assert parameters("leftmost") == ()
    assert Parameter("book", "bool", "true") in parameters("negamax")
    assert summary("random") == "a uniformly random legal column."  # no ``random``: prefix, no backticks


@pytest.mark.parametrize(
    "text", ["random:seed=x", "random:seed=1.5", "negamax:book=yes", "minimax:depth=true"]
)
def test_a_value_of_the_wrong_type_is_an_error(text):
    with pytest.raises(SpecError, match="must be"):
        parse_spec(text)
