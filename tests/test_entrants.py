"""Agents straight from a notebook cell (issue 56): a callable is pickled by value
(:mod:`connectx.entrants`) and played sandboxed exactly as a file is, unpickled only in its host,
once confined (:mod:`tournament.sandbox.loading`); what cannot be sent is named before any game.

A cell's code is run here as a notebook runs it: executed in a namespace named ``__main__``
(:func:`_cell`), so its functions are ``__main__``'s, which cloudpickle sends by value. The same
text saved to a ``.py`` file is the file agent it is compared with.
"""

from __future__ import annotations

import functools
import os
import pickle
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from agents.registry import SpecError, load_agent, parse_spec, uses_solver
from connectx.cli import main
from connectx.entrants import AgentError, entrant_spec, entrant_specs
from reports.entrants import entrant, short_names
from tournament.driver import Backend, Tournament
from tournament.record import Termination
from tournament.sandbox import landlock
from tournament.schedule import Settings
from tournament.store import Store

ONE = Backend(workers=1)

CELL = """
import numpy as np


def make(preference):
    weights = np.asarray(preference)

    def my_agent(obs, config):
        legal = [c for c in range(config.columns) if obs.board[c] == 0]
        if np.random.random() < 0.3:  # the host's global generator, seeded by the game
            return int(np.random.choice(legal))
        return next(int(c) for c in weights if c in legal)

    return my_agent


my_agent = make([1, 2, 0, 3])
"""
"""A cell whose agent closes over a numpy array and draws on numpy's global generator (so that the
games' seeds matter), for a 4x4 board."""


def _cell(source: str, **names: Any) -> dict[str, Any]:
    """The namespace of ``source`` run as a notebook cell runs (module ``__main__``), with ``names``."""
    namespace: dict[str, Any] = {"__name__": "__main__", **names}
    exec(compile(textwrap.dedent(source), "<cell>", "exec"), namespace)
    return namespace


def _settings(*entrants: str, games: int = 2, seed: int = 5) -> Settings:
    return Settings(entrants=entrants, games=games, rows=4, columns=4, inarow=3, seed=seed)


def _records(out: Path) -> dict[int, Any]:
    with Store.open(out) as store:
        return {record.game_id: record for record in store.records()}


# ---- specs, paths and names ----


def test_specs_and_paths_are_checked_and_kept_as_written(tmp_path):
    file = tmp_path / "mine.py"
    file.write_text("def agent(obs, config):\n    return 0\n")
    assert entrant_specs(["minimax:depth=2", " negamax ", str(file), file], tmp_path) == [
        "minimax:depth=2",
        "negamax",
        str(file),
        str(file),
    ]
    for bad, said in [("negamx", "did you mean 'negamax'"), (tmp_path / "gone.py", "agent file not found")]:
        with pytest.raises(AgentError, match=said):
            entrant_spec(bad, tmp_path)
    with pytest.raises(AgentError, match="^3 is not an agent: give a spec"):
        entrant_spec(3, tmp_path)  # type: ignore[arg-type]
    assert not (tmp_path / "agents").exists()


def test_a_callable_becomes_a_pickle_named_after_it_and_the_same_call_gives_the_same_specs(tmp_path):
    first = _cell("def agent(obs, config):\n    return 0\n")["agent"]
    second = _cell("def agent(obs, config):\n    return 1\n")["agent"]
    cell = _cell(
        """
        class Greedy:
            def __call__(self, obs, config):
                return 0

            def act(self, obs, config):
                return 0

        def weighted(obs, config, weight=1):
            return 0
        """
    )
    greedy = cell["Greedy"]()
    agents = [first, second, first, greedy, functools.partial(cell["weighted"], weight=2)]
    agents += [lambda obs, config: 0, greedy.act, greedy.act]  # a new bound method each time
    folder = tmp_path / "run"
    specs = entrant_specs(agents, folder)
    names = ["agent", "agent_2", "agent", "Greedy", "weighted", "lambda", "act", "act"]
    assert specs == [str(folder / "agents" / f"{name}.pkl") for name in names]
    assert entrant_specs(agents, folder) == specs  # a second call resumes the same tournament
    assert sorted(path.name for path in (folder / "agents").iterdir()) == sorted(
        f"{n}.pkl" for n in set(names)
    )
    assert [parse_spec(spec).kind for spec in specs] == ["file"] * 8
    assert short_names(specs[:2]) == {specs[0]: "agent", specs[1]: "agent_2"}
    assert entrant(specs[3]).description == f"callable pickled {specs[3]}"
    with pytest.raises(SpecError, match="pickled callable: only a tournament's sandboxed host plays it"):
        load_agent(parse_spec(specs[0]))  # nothing of agents/ unpickles


def test_uses_solver_reads_a_pickle_without_unpickling_it(tmp_path):
    cell = _cell(
        """
        from agents.negamax import agent as negamax

        def strong(obs, config):
            return negamax(obs, config)

        def plain(obs, config):
            return 0
        """
    )
    strong, plain = entrant_specs([cell["strong"], cell["plain"]], tmp_path)
    assert (uses_solver(strong), uses_solver(plain)) == (True, False)


def test_a_module_beside_the_notebook_is_sent_by_value_and_an_installed_one_by_name(tmp_path, monkeypatch):
    (tmp_path / "beside_the_notebook.py").write_text(
        "import numpy as np\nTABLE = np.arange(7)\n\n\ndef pick():\n    return int(TABLE[3])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "beside_the_notebook", raising=False)
    cell = _cell(
        """
        from beside_the_notebook import pick

        def agent(obs, config):
            return pick()
        """
    )
    spec = entrant_spec(cell["agent"], tmp_path / "run")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    unpickle = (
        "import pickle, sys; agent = pickle.load(open(sys.argv[1], 'rb')); "
        "print(agent(None, None), 'beside_the_notebook' in sys.modules, 'numpy' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", unpickle, spec],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["3", "False", "True"]  # the module by value, numpy imported by name


# ---- what cannot be sent ----


def _unsendable(tmp_path: Path) -> list[tuple[Any, str]]:
    log = open(tmp_path / "log.txt", "w")  # noqa: SIM115 - closed by the test
    lock = threading.Lock()
    sock = socket.socket()
    cell = _cell(
        """
        def logging_agent(obs, config):
            log.write("thinking")
            return 0

        def locking_agent(obs, config):
            with lock:
                return 0

        def counting_agent(obs, config, counter=(n for n in range(99))):
            return next(counter) % config.columns

        def holder(sock):
            return lambda obs, config: sock.fileno() % config.columns

        class Helper:
            def __init__(self):
                self.log = log

        helper = Helper()

        def helped(obs, config):
            return helper.log.fileno() % 2
        """,
        log=log,
        lock=lock,
    )
    file, refers = f"an open file {log!r}", "cannot be sent to its sandbox: it refers to"
    return [
        (cell["logging_agent"], f"logging_agent {refers} {file} (global 'log')"),
        (cell["locking_agent"], f"locking_agent {refers} a lock {lock!r} (global 'lock')"),
        (cell["counting_agent"], f"counting_agent {refers} a generator <generator object"),
        (cell["holder"](sock), f"<lambda> {refers} a socket {sock!r} (closure variable 'sock')"),
        (cell["helped"], f"helped {refers} {file} (global 'helper' → attribute 'log')"),
        (
            functools.partial(cell["logging_agent"]),
            f"logging_agent {refers} {file} (its function → global 'log')",
        ),
    ]


def test_what_cannot_be_sent_is_named_in_one_sentence_before_anything_is_written(tmp_path):
    cases = _unsendable(tmp_path)
    try:
        for agent, message in cases:
            with pytest.raises(AgentError) as raised:
                entrant_specs(["leftmost", agent], tmp_path / "run")
            assert str(raised.value).startswith(message)
            assert "\n" not in str(raised.value)
        assert not (tmp_path / "run").exists()
    finally:
        cases[0][0].__globals__["log"].close()


# ---- played sandboxed ----

with_landlock = pytest.mark.skipif(
    not landlock.abi(), reason="this kernel has no Landlock: agents read what any user may"
)


@pytest.mark.slow
def test_a_cell_function_over_an_array_plays_as_its_file_twin_does_with_the_same_seed(tmp_path):
    spec = entrant_spec(_cell(CELL)["my_agent"], tmp_path / "cell")
    twin = tmp_path / "file" / "my_agent.py"
    twin.parent.mkdir()
    twin.write_text(CELL)
    runs = {}
    for name, entrant_ in (("cell", spec), ("file", str(twin))):
        with Tournament(tmp_path / name, _settings(entrant_, "one_step", "random"), ONE) as tournament:
            tournament.play()
        runs[name] = _records(tmp_path / name)
    assert len(runs["cell"]) == 12
    assert all(record.detail == "" and not record.termination.is_forfeit for record in runs["cell"].values())

    def outcome(record: Any) -> tuple:
        return record.moves, record.result, record.termination, record.rewards

    assert {i: outcome(r) for i, r in runs["cell"].items()} == {
        i: outcome(r) for i, r in runs["file"].items()
    }
    assert len({outcome(r)[0] for r in runs["cell"].values()}) > 6  # the games differ: the seeds matter


@pytest.mark.slow
@with_landlock
def test_a_cell_function_cannot_read_a_file_the_calling_process_can(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the kernel's secret: 7d2a")
    cell = _cell(
        """
        def snooper(obs, config):
            try:
                with open(SECRET) as file:
                    found = file.read()
            except OSError as error:
                raise RuntimeError(f"could not read it: {type(error).__name__}") from None
            raise RuntimeError(f"read {found!r}")
        """,
        SECRET=str(secret),
    )
    with pytest.raises(RuntimeError, match="the kernel's secret"):
        cell["snooper"](None, None)  # here, it reads it
    spec = entrant_spec(cell["snooper"], tmp_path / "run")
    with Tournament(tmp_path / "run", _settings(spec, "leftmost", games=1), ONE) as tournament:
        tournament.play()
    records = _records(tmp_path / "run").values()
    assert [r.termination for r in records] == [Termination.ERROR] * 2
    for record in records:
        assert "RuntimeError: could not read it: " in record.detail
        assert "secret: 7d2a" not in record.detail


@pytest.mark.slow
def test_the_pickle_is_unpickled_in_its_host_only_and_there_at_its_first_move(tmp_path, monkeypatch):
    """The pickle's ``__reduce__`` writes a file where it runs and returns an agent that tells where
    that was: it ran in the host (another process, its own directory), never in this one."""
    runner = tmp_path / "runner"
    runner.mkdir()
    monkeypatch.chdir(runner)
    cell = _cell(
        """
        import os

        def touch(name):
            with open(name, "w") as file:
                file.write("unpickled here")
            where = f"pid {os.getpid()} in {os.getcwd()}"

            def told(obs, config):
                raise RuntimeError(f"unpickled by {where}")

            return told

        class Unpickling:
            def __reduce__(self):
                return touch, ("unpickled.txt",)

            def __call__(self, obs, config):
                return 0
        """
    )
    spec = entrant_spec(cell["Unpickling"](), tmp_path / "run")
    with Tournament(tmp_path / "run", _settings(spec, "leftmost", games=1), ONE) as tournament:
        tournament.play()
    records = list(_records(tmp_path / "run").values())
    assert not list(runner.iterdir()) and not (tmp_path / "run" / "unpickled.txt").exists()
    for record in records:
        assert record.termination is Termination.ERROR
        assert "RuntimeError: unpickled by pid " in record.detail
        assert f"pid {os.getpid()} " not in record.detail and str(runner) not in record.detail
        assert record.move_times and len(record.moves) == (
            0 if record.first == spec else 1
        )  # at its first move


@pytest.mark.slow
def test_a_pickle_that_does_not_unpickle_is_its_agent_error_with_the_reason(tmp_path):
    broken = tmp_path / "broken.pkl"
    data = pickle.dumps(os.getcwd)  # pickled by name: a module the host cannot import stands in
    broken.write_bytes(data.replace(b"posix", b"nopos"))
    with Tournament(tmp_path / "run", _settings(str(broken), "leftmost", games=1), ONE) as tournament:
        tournament.play()
    for record in _records(tmp_path / "run").values():
        assert record.termination is Termination.ERROR
        assert (
            f"UnpicklingFailed: the pickled agent {broken} does not unpickle in its host: " in record.detail
        )
        assert "ModuleNotFoundError: No module named 'nopos'" in record.detail


@pytest.mark.slow
def test_a_callable_object_and_a_partial_play_again_from_the_command_line_by_their_names(tmp_path, capsys):
    cell = _cell(
        """
        import numpy as np

        class Column:
            def __init__(self, order):
                self.order = np.array(order)

            def __call__(self, obs, config):
                return next(int(c) for c in self.order if obs.board[c] == 0)

        def ranked(obs, config, order=()):
            return next(c for c in order if obs.board[c] == 0)
        """
    )
    folder = tmp_path / "run"
    specs = entrant_specs(
        [cell["Column"]([3, 2, 1, 0]), functools.partial(cell["ranked"], order=(0, 1, 2, 3))], folder
    )
    args = ["run", "--agents", *specs, "leftmost", "--games", "1", "--openings", "none", "--rows", "4"]
    assert main([*args, "--columns", "4", "--inarow", "3", "--workers", "1", "--out", str(folder)]) == 0
    shown = capsys.readouterr().out
    assert "Column" in shown and "ranked" in shown and str(folder / "agents") not in shown
    records = _records(folder).values()
    assert len(records) == 6 and all(record.detail == "" for record in records)


@pytest.mark.slow
def test_the_command_line_refuses_a_pickle_that_does_not_unpickle_before_any_game(tmp_path, capsys):
    broken = tmp_path / "broken.pkl"
    broken.write_bytes(pickle.dumps(os.getcwd).replace(b"posix", b"nopos"))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--agents", str(broken), "leftmost", "--out", str(tmp_path / "run"), "--games", "1"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"connectx run: error: the pickled agent {broken} does not unpickle in its host: "
        "ModuleNotFoundError: No module named 'nopos': every game of it would be an ERROR; fix it, "
        "or --allow-broken plays it anyway\n"
    )
    assert not (tmp_path / "run").exists()
