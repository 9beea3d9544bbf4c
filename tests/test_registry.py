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
    uses_solver,
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
    from agents.kit.adapter import observation
    from agents.kit.clock import Clock
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
        ("minimax:width=3", "unknown parameter 'width' for 'minimax'"),
        ("minimax:depth=0", "depth must be >= 1"),
        ("missing/agent.py", "agent file not found"),
        ("leftmost:seed=1", "unknown parameter 'seed' for 'leftmost': leftmost takes no parameters"),
        ("kaggle-random:seed=1", "kaggle-environments' own agent and takes no parameters"),
    ],
)
def test_bad_specs_say_what_is_wrong(text, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(text)


@pytest.mark.parametrize(
    "text,guess",
    [("negamx", "negamax"), ("Negamax", "negamax"), ("mimimax", "minimax"), ("onestep", "one_step"),
     ("kaggle_negamax", "kaggle-negamax"), ("negamx:depth=3", "negamax")],
)  # fmt: skip
def test_a_mistyped_agent_name_gets_the_closest_one(text, guess):
    with pytest.raises(SpecError) as error:
        parse_spec(text)
    message = str(error.value)
    assert message.startswith(f"unknown agent {text.partition(':')[0]!r}: did you mean {guess!r}?")
    assert "\n" not in message


def test_a_name_close_to_none_lists_every_agent():
    with pytest.raises(SpecError) as error:
        parse_spec("alphabeta")
    assert "did you mean" not in str(error.value)
    assert "known: random, leftmost" in str(error.value) and "kaggle-negamax" in str(error.value)


def test_a_mistyped_parameter_is_unknown_with_the_closest_and_the_valid_ones():
    with pytest.raises(SpecError) as error:
        parse_spec("negamax:dept=3")
    message = str(error.value)
    assert message.startswith(
        "unknown parameter 'dept' for 'negamax': did you mean 'max_depth'? negamax takes "
    )
    assert all(str(p) in message for p in parameters("negamax"))  # every one, as `connectx agents` lists it
    assert "max_depth: int = unset" in message and "book: bool = true" in message
    with pytest.raises(SpecError, match="did you mean 'depth'"):
        parse_spec("minimax:depth=2,dpeth=3")  # the unknown one of several
    with pytest.raises(SpecError) as error:
        parse_spec("minimax:x=1")  # nothing close: no guess, still the list
    assert (
        str(error.value)
        == "unknown parameter 'x' for 'minimax': minimax takes depth: int = 3, seed: int = unset"
    )


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
    assert [str(p) for p in parameters("minimax")] == ["depth: int = 3", "seed: int = unset"]
    assert str(Parameter("path", "text", "")) == "path: text (required)"
    assert summary("random") == "a uniformly random legal column."  # no ``random``: prefix, no backticks


@pytest.mark.parametrize(
    "text", ["random:seed=x", "random:seed=1.5", "negamax:book=yes", "minimax:depth=true"]
)
def test_a_value_of_the_wrong_type_is_an_error(text):
    with pytest.raises(SpecError, match="must be"):
        parse_spec(text)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--agents", "negamx", "random"],
        ["sprt", "negamx", "random"],
        ["play", "negamx"],
        ["build", "negamx"],
    ],
)
def test_every_command_taking_a_spec_suggests_the_agent_in_one_line(argv, tmp_path, monkeypatch, capsys):
    from connectx.cli import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err == f"connectx {argv[0]}: error: unknown agent 'negamx': did you mean 'negamax'? " + (
        "(`connectx agents` lists every agent)\n"
    )
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_uses_solver_names_the_agents_that_search_with_the_compiled_solver(tmp_path):
    """The runner compiles the solver before forking only for these (tests/test_fast_solver.py)."""
    assert uses_solver("negamax") and uses_solver("network:search=none")
    for spec in ("random", "one_step", "minimax:depth=2", "mcts", "lms", "ppo", "kaggle-negamax"):
        assert not uses_solver(spec), spec
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(
        "def agent(obs, config):\n    from agents.negamax import agent as a\n    return a(obs, config)\n"
    )
    plain = tmp_path / "plain.py"
    plain.write_text("import numpy as np\nfrom agentsmith import x\ndef agent(obs, config):\n    return 0\n")
    broken = tmp_path / "broken.py"
    broken.write_text("import agents\ndef agent(obs, config)\n")
    assert uses_solver(str(wrapper))
    assert not uses_solver(str(plain)) and not uses_solver(str(broken))
    assert not uses_solver("no-such-agent") and not uses_solver(str(tmp_path / "missing.py"))
