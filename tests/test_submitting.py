"""``connectx.build`` and ``connectx.check``: a function from a notebook cell becomes a single file that
Kaggle's loader plays as the function does, and what cannot be written as source is one sentence."""

from __future__ import annotations

import functools
import linecache
import random
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from kaggle_environments.agent import get_last_callable

from agents.registry import SpecError
from connectx.submitting import CheckResult, build, check
from submissions import functions
from submissions.build import BuildError, provenance
from submissions.report import CheckReport

CELL = '''
import numpy as np
import math
from collections import Counter as Tally

PREFERENCE = np.array([1.0, 2.5, 4.0, 7.5, 4.0, 2.5, 1.0])
NAMES = {"centre": (3,), "edges": [0, 6]}

def legal(board, columns):
    return [c for c in range(columns) if board[c] == 0]

class Scorer:
    """A helper class of the cell."""

    def __init__(self, weights):
        self.weights = weights

    def best(self, moves, board):
        stones = Tally(board)
        return max(moves, key=lambda c: self.weights[c] - math.log1p(stones[1]) * (c in NAMES["edges"]))

def make(scale):
    weights = PREFERENCE * scale
    def my_agent(obs, config):
        moves = legal(obs.board, config.columns)
        return int(Scorer(weights).best(moves, obs.board))
    return my_agent

my_agent = make(2.0)
'''


def cell(source: str, filename: str = "<ipython-input-7-0a1b2c3d4e5f>") -> dict:
    """Run ``source`` as IPython runs a cell: compiled under a cell's name registered in ``linecache``
    (text only, no file), in a namespace called ``__main__``; its namespace."""
    source = textwrap.dedent(source)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def positions(count: int = 60) -> list[list[int]]:
    """6x7 boards after 0 to 30 random legal moves (seeded)."""
    generator = random.Random(56)
    boards = []
    for index in range(count):
        board = [0] * 42
        for ply in range(index % 31):
            column = generator.choice([c for c in range(7) if board[c] == 0])
            row = max(r for r in range(6) if board[r * 7 + column] == 0)
            board[row * 7 + column] = 1 + ply % 2
        boards.append(board)
    return boards


def plays_alike(path: Path, agent) -> None:
    """Kaggle's own loader on the file picks a callable that plays every position as ``agent`` does."""
    loaded = get_last_callable(path.read_text(), path=str(path))
    config = SimpleNamespace(columns=7, rows=6, inarow=4)
    for board in positions():
        obs = SimpleNamespace(board=board, mark=1)
        assert loaded(obs, config) == agent(obs, config)
        assert type(loaded(obs, config)) is int


@pytest.mark.parametrize("filename", ["<ipython-input-7-0a1b2c3d4e5f>", "/tmp/ipykernel_4242/2891354.py"])
def test_a_cell_function_with_its_closure_helpers_and_array_becomes_a_file_kaggle_plays_alike(
    filename, tmp_path
):
    namespace = cell(CELL, filename)
    path = build(namespace["my_agent"], tmp_path / "main.py")
    text = path.read_text()
    assert "from collections import Counter as Tally" in text and "import math" in text
    assert "class Scorer" in text and "def legal" in text and "weights = _connectx_array(" in text
    assert text.rstrip().splitlines()[-1] == "    return int(Scorer(weights).best(moves, obs.board))"
    assert "body intact" in provenance(text)
    plays_alike(path, namespace["my_agent"])


def test_the_built_file_passes_the_check_as_kaggle_loads_it(tmp_path):
    path = build(cell(CELL)["my_agent"], tmp_path / "main.py")
    result = check(path, games=1, act_timeout=10.0, progress=False)
    assert isinstance(result, CheckResult)
    assert result, result
    assert result.report.isolated and result.report.last_callable == "my_agent"
    labels = [game.label for game in result.report.games]
    assert labels[0] == "validation episode (the file against itself)" and len(labels) == 3
    assert labels[1].startswith("vs kaggle-random") and labels[2].startswith("vs kaggle-negamax")
    assert all(game.plies >= 7 for game in result.report.games)  # games were played to an end


def test_functions_and_classes_of_a_real_kernels_cells_are_found_in_its_cells(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    cells = [
        "from dataclasses import dataclass\n\n@dataclass\nclass Settings:\n    centre: int = 3\n",
        CELL
        + "S = Settings()\ndef both(obs, config):\n    return my_agent(obs, config) if S.centre else 0\n",
        "import connectx.submitting\nprint(both.__code__.co_filename)\n"
        "connectx.submitting.build(both, 'main.py')",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = notebook.cells[2].outputs[0]["text"]
    assert "/ipykernel_" in printed  # ipykernel's names for a cell's text in linecache
    text = (tmp_path / "main.py").read_text()
    assert "@dataclass\nclass Settings:" in text and "S = _connectx_object(Settings, {'centre': 3})" in text
    plays_alike(tmp_path / "main.py", cell(CELL)["my_agent"])


OBJECTS = """
import functools
from dataclasses import dataclass

import numpy as np

@dataclass
class Settings:
    centre: int = 3

@functools.lru_cache(maxsize=None)
def distance(column, centre):
    return abs(column - centre)

class Player:
    def __init__(self, weights):
        self.weights = weights
        self.settings = Settings()
        self.moves = 0

    def __call__(self, obs, config):
        self.moves += 1
        legal = [c for c in range(config.columns) if obs.board[c] == 0]
        return max(legal, key=lambda c: self.weights[c] - distance(c, self.settings.centre))

player = Player(np.linspace(0.0, 1.0, 7))
"""


def test_a_callable_object_of_the_notebook_with_a_dataclass_and_a_decorated_helper_is_written(tmp_path):
    namespace = cell(OBJECTS, "/tmp/ipykernel_4242/1234.py")
    path = build(namespace["player"], tmp_path / "main.py")
    text = path.read_text()
    assert (
        "@dataclass\nclass Settings:" in text and "@functools.lru_cache(maxsize=None)\ndef distance" in text
    )
    assert "\nagent = _connectx_object(Player, {'weights': _connectx_array(\n" in text
    assert text.rstrip().endswith("'settings': _connectx_object(Settings, {'centre': 3}), 'moves': 0})")
    plays_alike(path, namespace["player"])


def test_a_lambda_alone_on_its_line_is_written_and_one_sharing_it_is_refused(tmp_path):
    namespace = cell(
        """
        score = lambda c: -abs(c - 3)
        first, second = (lambda c: c), (lambda c: -c)
        def agent(obs, config):
            return max((c for c in range(config.columns) if obs.board[c] == 0), key=score)
        def other(obs, config):
            return first(0)
        """
    )
    path = build(namespace["agent"], tmp_path / "main.py")
    assert "score = lambda c: -abs(c - 3)" in path.read_text()
    plays_alike(path, namespace["agent"])
    with pytest.raises(BuildError, match=r"^the lambda first cannot be isolated"):
        build(namespace["other"], tmp_path / "other.py")


@pytest.mark.parametrize(
    "source,message",
    [
        (
            "import pytest as pt\ndef agent(obs, config):\n    return pt.__name__ and 0\n",
            "agent uses the module 'pytest' (as pt), which a submission cannot import: Kaggle loads one "
            "file, with numpy and the standard library only",
        ),
        (
            "from pytest import approx\ndef agent(obs, config):\n    return approx(0) and 0\n",
            "agent uses approx from the module '_pytest.",  # its module moves between pytest versions
        ),
        (
            "def agent(obs, config):\n    import pytest\n    return 0\n",
            "agent imports the module 'pytest', which a submission cannot import",
        ),
        (
            f"LOG = open({__file__!r})\ndef agent(obs, config):\n    LOG.read()\n    return 0\n",
            "agent refers to LOG, an open file, which cannot be written as source",
        ),
        (
            "import threading\nGUARD = threading.Lock()\ndef agent(obs, config):\n    with GUARD:\n"
            "        return 0\n",
            "agent refers to GUARD, a _thread.lock object, which cannot be written as source",
        ),
        (
            "def make():\n    count = 0\n    def agent(obs, config):\n        nonlocal count\n"
            "        count += 1\n        return 0\n    return agent\nagent = make()\n",
            "make.<locals>.agent assigns a variable of the function around it (nonlocal)",
        ),
    ],
    ids=["module", "function", "import", "open-file", "lock", "nonlocal"],
)
def test_what_cannot_be_written_as_source_is_one_sentence_naming_it(source, message, tmp_path):
    namespace = cell(source)
    try:
        with pytest.raises(BuildError) as raised:
            build(namespace["agent"], tmp_path / "main.py")
    finally:
        if "LOG" in namespace:
            namespace["LOG"].close()
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
    assert not (tmp_path / "main.py").exists()


def test_data_over_the_bound_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(functions, "MAX_DATA", 2000)
    namespace = cell(
        "import numpy as np\nTABLE = np.random.default_rng(1).random(1000)\nSMALL = np.zeros(7)\n"
        "LIST = [0.123456789] * 1000\n"
        "def agent(obs, config):\n    return int((TABLE.argmax() + SMALL[0]) % 7)\n"
        "def listed(obs, config):\n    return len(LIST) % 7\n"
    )
    with pytest.raises(BuildError, match=r"^agent refers to TABLE, whose arrays take 0\.0 MB in the file"):
        build(namespace["agent"], tmp_path / "main.py")
    with pytest.raises(BuildError, match=r"^listed refers to LIST, which takes 0\.0 MB as source, over"):
        build(namespace["listed"], tmp_path / "main.py")
    monkeypatch.setattr(functions, "MAX_DATA", 20_000)
    text = build(namespace["agent"], tmp_path / "main.py").read_text()
    assert "# Data: TABLE (" in text and "SMALL (" in text  # both embedded, within the bound


def test_a_spec_builds_as_connectx_build_does_and_files_and_kaggles_agents_are_refused(tmp_path):
    path = build("leftmost", tmp_path / "main.py")
    assert path == tmp_path / "main.py" and "# Agent spec: leftmost" in path.read_text()
    with pytest.raises(BuildError, match="already is a submission; test it with `connectx check"):
        build(path, tmp_path / "again.py")
    with pytest.raises(BuildError, match="kaggle-environments built-in"):
        build("kaggle-random", tmp_path / "again.py")
    with pytest.raises(SpecError, match="unknown agent"):
        build("nosuchagent", tmp_path / "again.py")
    with pytest.raises(BuildError, match="not a file in an existing directory"):
        build("leftmost", tmp_path / "no" / "main.py")
    with pytest.raises(TypeError, match="is a partial: give a function def agent"):
        build(functools.partial(max), tmp_path / "again.py")
    with pytest.raises(TypeError, match="an agent is a spec string, a file path or a function, not int"):
        build(3, tmp_path / "again.py")  # type: ignore[arg-type]
    assert not (tmp_path / "again.py").exists()


@pytest.mark.parametrize("passed", [True, False])
def test_a_check_result_is_truthy_when_it_passed_and_says_so(passed):
    reason = "validation episode (the file against itself): mark 1 ERROR at its move 1: RuntimeError: boom"
    report = CheckReport("main.py", 40, 2.0, passed, () if passed else (reason,), forfeit=not passed)
    result = CheckResult(report)
    assert bool(result) is passed
    verdict = "PASS: Kaggle would not forfeit" if passed else "FAIL: Kaggle would forfeit this agent"
    assert repr(result).startswith(verdict) and repr(result).splitlines()[-1].startswith(
        f"main.py: {verdict}"
    )
    assert verdict in result._repr_html_() and ("#1a7f37" if passed else "#cf222e") in result._repr_html_()


def test_check_refuses_what_is_not_a_file(tmp_path):
    from submissions.check import CheckInputError

    with pytest.raises(CheckInputError, match="is a directory"):
        check(tmp_path, progress=False)
    with pytest.raises(CheckInputError, match="no such file"):
        check(tmp_path / "missing.py", progress=False)
