"""Single-file submissions: built from the package, loaded as Kaggle loads them, checked honestly.

Fast tests build with no check and load the files in this process or in one isolated interpreter;
the few that play through kaggle-environments (a fresh ``python -I`` process each) use small
act timeouts and at most one game per opponent.
"""

from __future__ import annotations

import ast
import base64
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import tokenize
import traceback
import zlib
from pathlib import Path

import numpy as np
import pytest
from kaggle_environments.agent import get_last_callable

import agents.engine.board
from agents.engine.board import Board
from agents.engine.solver.databases import PACKED_FILE, Database
from agents.registry import BUILTIN, SpecError, load_agent, parse_spec
from connectx.cli import main
from submissions import check, databases, probe, timing
from submissions.build import BuildError, body_of, build_module, build_spec, header_fields, provenance, write
from submissions.check import PROJECT_ROOT, check_file
from submissions.databases import pack_wdl
from submissions.report import CheckedGame, format_report
from submissions.verdict import verdict
from tests.records import game_task
from tournament import replies
from tournament.record import Termination
from tournament.refusal import REFEREE_UNNEEDED
from tournament.replies import decode
from tournament.rules import invalid_action
from tournament.runner import run_games

BROKEN = Path(__file__).parent / "data" / "submissions"
POSITIONS = ["", "4", "4453", "444444", "1234567", "3344551", "12121"]
CONFIG = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2.0}

# Parameters that make an agent deterministic where it has a choice (and quick).
DETERMINISTIC = {
    "random": "random:seed=4",
    "one_step": "one_step:seed=3",
    "minimax": "minimax:depth=2,seed=5",
    "negamax": "negamax:max_depth=3,exact=false",  # exact solving stops on the clock
    "mcts": "mcts:rollouts=200,seed=1",
    "network": "network:visits=64,exact=false",  # the solver stops on the clock
    "td": "td:depth=3",  # the default deepens until the clock
}
SPECS = {name: DETERMINISTIC.get(name, name) for name in BUILTIN}
"""One spec per built-in agent: every agent added to the registry is built and played here too."""


def observations() -> list[dict]:
    out = []
    for moves in POSITIONS:
        board = Board.from_moves(moves)
        obs = {"board": board.to_kaggle(), "mark": board.mark, "remainingOverageTime": 60, "step": board.ply}
        out.append(obs)
    return out


@functools.cache
def package_moves(spec_text: str) -> list[int]:
    """The moves of the package's agent ``spec_text`` on :data:`POSITIONS` (deterministic: computed
    once, then shared by the tests; a caller must not change the list)."""
    agent = load_agent(parse_spec(spec_text))
    return [agent(obs, dict(CONFIG)) for obs in observations()]


@functools.cache
def without_data() -> dict[str, str]:
    """Agents that cannot play from the package itself because a data file of theirs is missing
    (e.g. network weights not trained yet): name -> the error. Their built files cannot play either."""
    missing = {}
    for name, spec in SPECS.items():
        try:
            package_moves(spec)
        except FileNotFoundError as error:
            missing[name] = str(error)
    return missing


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """Every built-in agent (see SPECS) built without a check, name -> path."""
    folder = tmp_path_factory.mktemp("built")
    paths = {}
    for name, spec in SPECS.items():
        paths[name] = folder / f"{name}.py"
        write(build_spec(spec), paths[name])
    return paths


@pytest.mark.parametrize("name", list(SPECS))
def test_built_file_declares_what_it_is_and_imports_only_the_stdlib(built, name):
    text = built[name].read_text(encoding="utf-8")
    fields = header_fields(text)
    assert fields["Agent spec"].startswith(SPECS[name] + "  ->  " + BUILTIN[name] + ".make_agent(")
    assert fields["Project"].startswith("connectx-toolkit ")
    assert fields["Built"][:2] == "20"
    digest = __import__("hashlib").sha256(body_of(text).encode()).hexdigest()
    assert fields["Body sha256"].split()[0] == digest
    tree = ast.parse(text)
    imported = {
        alias.name.partition(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module.partition(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names), imported
    last = tree.body[-1]
    assert isinstance(last, ast.FunctionDef) and last.name == "agent"


def test_provenance_tells_an_intact_built_file_from_an_edited_one(built):
    text = built["leftmost"].read_text(encoding="utf-8")
    assert provenance(text).startswith("built from 'leftmost' by connectx-toolkit ")
    assert provenance(text).endswith("; body intact")
    assert "body MODIFIED" in provenance(text.replace("return", "return ", 1))
    assert provenance((BROKEN / "raises.py").read_text()) == ""


def test_inlined_modules_are_the_package_sources_verbatim(built):
    tree = ast.parse(built["minimax"].read_text(encoding="utf-8"))
    modules = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_MODULES"
    )
    names = []
    for entry in ast.literal_eval(modules):
        name, is_package, source = entry
        names.append(name)
        path = PROJECT_ROOT / (name.replace(".", "/") + ("/__init__.py" if is_package else ".py"))
        with tokenize.open(path) as handle:
            assert source == handle.read(), name
    # dependencies first: the entry module last, the package before its modules
    assert names[0] == "agents" and names[-1] == "agents.minimax"
    order = [names.index(m) for m in ("agents.engine.board", "agents.kit.adapter", "agents.minimax")]
    assert order == sorted(order)


def test_building_twice_gives_the_same_bytes_but_the_date_line(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    first = build_spec("minimax:depth=4").text
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    second = build_spec("minimax:depth=4").text
    differ = [(a, b) for a, b in zip(first.splitlines(), second.splitlines(), strict=True) if a != b]
    assert differ == [("# Built: 1970-01-01T00:00:00+00:00", "# Built: 2023-11-14T22:13:20+00:00")]
    assert "_PARAMS = {'depth': 4}" in first


@pytest.mark.parametrize("name", list(SPECS))
def test_kaggles_last_callable_is_the_agent_and_plays_as_the_package_does(built, name):
    if name in (missing := without_data()):
        pytest.skip(f"the package's {name} cannot play: {missing[name]}")
    before = {key: module for key, module in sys.modules.items() if key.split(".")[0] == "agents"}
    agent = get_last_callable(built[name].read_text(encoding="utf-8"), path=str(built[name]))
    assert agent.__name__ == "agent"
    moves = [agent(obs, dict(CONFIG)) for obs in observations()]
    assert moves == package_moves(SPECS[name])
    assert all(type(move) is int for move in moves)
    # the inlined modules are private copies: the package's modules were neither used nor replaced
    after = {key: module for key, module in sys.modules.items() if key.split(".")[0] == "agents"}
    assert after == before
    private = [module for key, module in sys.modules.items() if key.endswith(".agents.engine.board")]
    assert private and all(module.Board is not agents.engine.board.Board for module in private)


ISOLATED_PLAYER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import probe
probe.isolate(sys.argv[2], ["agents", "submissions", "tournament"])
try:
    import agents
    print(json.dumps({"error": "agents importable from " + str(agents.__file__)}))
    sys.exit(1)
except ModuleNotFoundError:
    pass
request = json.loads(sys.argv[3])
with probe.refusing(request["refuse"]):  # as the check's probe imports kaggle-environments
    from kaggle_environments.agent import get_last_callable
moves = {}
for name, path in request["files"].items():
    with open(path) as handle:
        agent = get_last_callable(handle.read(), path=path)
    moves[name] = [agent(obs, dict(request["config"])) for obs in request["observations"]]
ours = sorted(key for key in sys.modules if key.split(".")[0] in ("agents", "submissions", "tournament"))
print(json.dumps({"moves": moves, "project_modules": ours}))
"""


def run_isolated(tmp_path: Path, files: dict[str, Path]) -> dict:
    """Play ``files`` on :data:`POSITIONS` in ``python -I`` with the project made unimportable."""
    work = tmp_path / "isolated"
    work.mkdir()
    shutil.copyfile(probe.__file__, work / "probe.py")
    (work / "player.py").write_text(ISOLATED_PLAYER, encoding="utf-8")
    request = {"files": {k: str(v) for k, v in files.items()}, "observations": observations()}
    request["config"] = CONFIG
    request["refuse"] = list(REFEREE_UNNEEDED)
    command = [sys.executable, "-I", str(work / "player.py"), str(work), str(PROJECT_ROOT)]
    command.append(json.dumps(request))
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_built_files_play_with_the_package_unimportable(built, tmp_path):
    playable = {name: path for name, path in built.items() if name not in without_data()}
    result = run_isolated(tmp_path, playable)
    assert result["project_modules"] == []
    for name in playable:
        assert result["moves"][name] == package_moves(SPECS[name]), name


FAKE_PACKAGE = {
    "__init__.py": '"""A stand-in agent package."""\n',
    "resources.py": """
        from pathlib import Path

        def read(name):
            return (Path(__file__).parent / "data" / name).read_bytes()
    """,
    "helper.py": """
        from __future__ import annotations

        from dataclasses import dataclass

        @dataclass(frozen=True, slots=True)
        class Pick:
            column: int
    """,
    "raiser.py": """
        def make_agent():
            def agent(obs, config):
                raise ValueError("raised inside an inlined module")
            return agent
    """,
    "turbo.py": """
        import numba_is_not_allowed  # a forbidden import: this module cannot be inlined
    """,
    "weighted.py": """
        from __future__ import annotations

        from pathlib import Path

        import fakeagents.helper
        from . import resources
        from .helper import Pick

        try:  # optional: an accelerator the module can do without
            from fakeagents import turbo
        except ImportError:
            turbo = None
        try:
            import ujson
        except ImportError:
            ujson = None

        DEFAULT_OUT = Path(__file__).parent / "out.bin"  # harmless use of __file__
        WEIGHTS = resources.read("weights.bin")

        def make_agent(*, offset: int = 0):
            def agent(obs, config):
                try:
                    resources.read("absent.bin")
                except FileNotFoundError:
                    pass
                else:
                    raise AssertionError("absent.bin should not exist")
                assert turbo is None and ujson is None
                pick = fakeagents.helper.Pick((WEIGHTS[len(WEIGHTS) // 2] + offset) % config["columns"])
                assert isinstance(pick, Pick)
                return pick.column
            return agent
    """,
}


@pytest.fixture()
def fake_package(tmp_path, monkeypatch):
    """A package ``fakeagents`` with a data file read through its resources module."""
    root = tmp_path / "src"
    package = root / "fakeagents"
    (package / "data").mkdir(parents=True)
    for name, source in FAKE_PACKAGE.items():
        (package / name).write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    weights = bytes(range(256)) * 40  # 10 KB, compresses well
    (package / "data" / "weights.bin").write_bytes(weights)
    monkeypatch.syspath_prepend(str(root))
    yield package
    for key in [key for key in sys.modules if key.split(".")[0] == "fakeagents"]:
        del sys.modules[key]


def test_data_files_are_embedded_compressed_and_read_back_without_the_package(fake_package, tmp_path):
    submission = build_module("fakeagents.weighted", {"offset": 2}, spec="weighted:offset=2")
    assert submission.data == (("weights.bin", 10240),)
    modules = ("fakeagents", "fakeagents.helper", "fakeagents.resources", "fakeagents.weighted")
    assert submission.modules == modules
    # What the user can act on (a missing data file) is a warning; notes on the code are for its developer.
    assert len(submission.warnings) == 1 and "'absent.bin' not embedded" in submission.warnings[0]
    notes = "\n".join(submission.notes)
    assert "fakeagents.turbo left out: fakeagents.turbo (line 1) imports 'numba_is_not_allowed'" in notes
    assert "optional import of 'ujson'" in notes
    assert "fakeagents.weighted (line 18) uses __file__" in notes
    text = submission.text
    assert "# Data: weights.bin (10240 bytes)" in text
    modules_part = text.partition("_MODULES = (")[2]  # after the loader, whose methods have docstrings
    data_lines = [line for line in modules_part.splitlines() if line.startswith('        "')]
    assert max(len(line) for line in data_lines) <= 100
    encoded = "".join(line.strip().strip('"') for line in data_lines)
    assert zlib.decompress(base64.b64decode(encoded)) == (fake_package / "data" / "weights.bin").read_bytes()
    assert len(encoded) < 2000  # compressed before encoding
    path = tmp_path / "weighted.py"
    write(submission, path)
    result = run_isolated(tmp_path, {"weighted": path})
    weights = (fake_package / "data" / "weights.bin").read_bytes()
    assert result["moves"]["weighted"] == [(weights[len(weights) // 2] + 2) % 7] * len(POSITIONS)


def test_tracebacks_name_the_package_file_line_and_text(fake_package):
    agent = get_last_callable(build_module("fakeagents.raiser").text)
    with pytest.raises(ValueError, match="raised inside an inlined module") as caught:
        agent({}, {})
    text = "".join(traceback.format_exception(caught.value))
    assert 'File "<submission>/fakeagents/raiser.py", line 3, in agent' in text
    assert 'raise ValueError("raised inside an inlined module")' in text


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def make_agent():\n    import requests\n", "imports 'requests'"),
        ("import numba\ndef make_agent(): pass\n", "imports 'numba'"),  # an accelerator, but not optional
        ("import tournament.game\ndef make_agent(): pass\n", "imports 'tournament.game'"),
        ("from fakeagents import resources\nNAME = 'w'\nresources.read(NAME)\n", "string literal"),
        ("from fakeagents import resources\nresources.DATA_DIR\n", "offers only read"),
    ],
)
def test_what_cannot_be_one_file_is_a_clear_build_error(fake_package, source, message):
    (fake_package / "bad.py").write_text(source, encoding="utf-8")
    with pytest.raises(BuildError, match=message) as caught:
        build_module("fakeagents.bad")
    assert "fakeagents.bad (line" in str(caught.value)


def test_specs_that_are_not_our_agents_do_not_build():
    with pytest.raises(BuildError, match="already is a submission"):
        build_spec(str(BROKEN / "raises.py"))
    with pytest.raises(BuildError, match="kaggle-environments built-in"):
        build_spec("kaggle-random")
    with pytest.raises(SpecError, match="unknown agent"):
        build_spec("nosuchagent")


@pytest.mark.parametrize(
    "argv",
    [
        ["build", "nosuchagent"],
        ["build", "kaggle-negamax"],
        ["build", str(BROKEN / "raises.py")],
        ["build", "minimax:depth=0"],
        ["check", "no/such/file.py"],
        ["check", "."],  # a directory
    ],
)
def test_bad_input_exits_2_with_one_line(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"connectx {argv[0]}: error: ") and err.count("\n") == 1
    assert not (tmp_path / "submission.py").exists()


@pytest.mark.parametrize("passed", [True, False])
def test_check_ends_with_its_verdict_after_the_details(passed, tmp_path, capsys, monkeypatch):
    import connectx.submitting
    from submissions.report import CheckReport

    path = tmp_path / "main.py"
    path.write_text("def agent(obs, config):\n    return 0\n")
    reason = "validation episode (the file against itself): mark 1 ERROR at its move 1: RuntimeError: boom"
    trace = "Traceback (most recent call last):\n" + "  a frame\n" * 30 + "RuntimeError: boom"
    report = CheckReport(
        str(path), 40, 2.0, passed, () if passed else (reason,), forfeit=None if passed else True,
        details=() if passed else (trace,),
    )  # fmt: skip
    monkeypatch.setattr(connectx.submitting, "check_file", lambda *args, **kwargs: report)
    assert main(["check", str(path)]) == (0 if passed else 1)
    lines = capsys.readouterr().out.splitlines()
    verdict = (
        "PASS: Kaggle would not forfeit this agent in these games (the most bank a game used: 0.00 s of 60 s)"
        if passed
        else f"FAIL: Kaggle would forfeit this agent: {reason}"
    )
    assert lines[1] == verdict and lines[-1] == f"{path}: {verdict}"  # first and last, the traceback between


def test_build_prints_only_what_the_user_can_act_on(tmp_path, capsys):
    out = tmp_path / "main.py"
    assert main(["build", "negamax", "-o", str(out), "--no-check"]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"built {out}: negamax") and printed.out.count("\n") == 1
    # no note on how agents/ is written (optional modules, __file__); without bitbully-databases, the
    # one line that says so
    assert [line for line in printed.err.splitlines() if "opening databases" not in line] == []
    assert main(["build", "negamax", "-o", str(out), "--no-check", "--verbose"]) == 0
    notes = {f"note: {note}" for note in build_spec("negamax").notes}
    assert set(capsys.readouterr().out.splitlines()[1:]) == notes


def test_the_packed_databases_are_made_once_then_read_from_the_cache(tmp_path, monkeypatch):
    book = Database(
        np.array([4, 8, 40], dtype=np.int32), np.array([-3, 0, 2], dtype=np.int8), exact=True, absent=None
    )
    monkeypatch.setattr(databases, "load_database", lambda: book)
    packs = []
    monkeypatch.setattr(databases, "pack_wdl", lambda b: packs.append(b) or pack_wdl(b))
    first = databases.packed_database(tmp_path)
    assert first == {PACKED_FILE: pack_wdl(book)} and packs == [book]
    (cached,) = (tmp_path / "connectx" / "packed-databases").iterdir()
    assert cached.read_bytes() == first[PACKED_FILE]
    assert databases.packed_database(tmp_path) == first and len(packs) == 1  # read back, not packed
    cached.write_bytes(first[PACKED_FILE][:-1])  # a truncated pack is made again
    assert databases.packed_database(tmp_path) == first and len(packs) == 2
    assert cached.read_bytes() == first[PACKED_FILE]
    other = Database(book.codes, np.array([-3, 0, -1], dtype=np.int8), exact=True, absent=None)
    monkeypatch.setattr(databases, "load_database", lambda: other)  # another book, another pack
    expected = {PACKED_FILE: pack_wdl(other)}
    assert databases.packed_database(tmp_path) == expected and len(packs) == 3
    assert len(list(cached.parent.iterdir())) == 2
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # a cache folder that cannot be made: packed all the same
    assert databases.packed_database(blocked) == expected and len(packs) == 4


# ---- the verdict and the report, from hand-built probe events (no game is played) ----

ISOLATED = {"event": "isolation", "removed": [], "importable": {"agents": False}, "isolated": True}


def game_event(
    label: str,
    ours: list[int],
    durations: list[list[float]],
    statuses=("DONE", "DONE"),
    rewards=(1, -1),
    number: int = 0,
) -> dict:
    """A ``game`` event as :mod:`submissions.probe` writes it (seconds per call in ``durations``)."""
    agents = ["/tmp/main.py" if i in ours else "negamax" for i in range(2)]
    return {
        "event": "game",
        "game": number,
        "label": label,
        "agents": agents,
        "ours": ours,
        "statuses": list(statuses),
        "rewards": list(rewards),
        "durations": durations,
        "plies": sum(len(d) for d in durations),
        "seconds": 1.0,
        "stderr": {},
        "invalid": {},
    }


KAGGLE = {"event": "kaggle", "seconds": 1.0, "version": "1.33.2"}
DONE = {"event": "done", "leaks": []}


def load_events(load: float = 0.01) -> list[dict]:
    """The events of the probe's load stage, which loaded the file in ``load`` seconds."""
    return [ISOLATED, KAGGLE, {"event": "loading"}, {"event": "load", "name": "agent", "seconds": load}, DONE]


def probe_events(*games: dict, load: float = 0.01) -> list[dict]:
    """The events of a probe that loaded the file, played ``games`` and ended normally."""
    events = [*load_events(load), ISOLATED, KAGGLE]
    for game in games:
        events += [{"event": "start", "game": game["game"], "label": game["label"]}, game]
    return [*events, DONE]


def judge(
    events: list[dict],
    *,
    time_policy: str = "load",
    crash: str = "",
    hung: bool = False,
    hang_forfeits: bool = True,
    timeout: float = 100.0,
    size: int = 1000,
    late_move: bool = False,
):
    base = {"path": "/tmp/main.py", "size": size, "act_timeout": 2.0, "origin": ""}
    return verdict(
        base,
        events,
        time_policy=time_policy,
        crash=crash,
        hung=hung,
        timeout=timeout,
        started=time.perf_counter(),
        hang_forfeits=hang_forfeits,
        late_move=late_move,
    )


def row(printed: str, label: str) -> str:
    """The rest of the first line of ``printed`` that starts with ``label``, blanks squeezed to one."""
    line = next(line.strip() for line in printed.splitlines() if line.strip().startswith(label))
    return " ".join(line[len(label) :].split())


VALIDATION = "validation episode (the file against itself)"
QUICK = [0.1, 0.2, 0.1]


def test_the_bank_follows_kaggles_rule_a_quicker_move_puts_nothing_back():
    assert timing.bank_used([0.5, 2.5, 3.0, 1.0], 2.0) == pytest.approx(1.5)
    result = CheckedGame(
        "g",
        ("/tmp/main.py", "negamax"),
        (0,),
        ("DONE", "DONE"),
        (1, -1),
        ((0.5, 2.5, 3.0, 1.0), (0.1,)),
        5,
        1.0,
    )
    (mine,) = timing.agent_times(result, 2.0)
    assert (mine.mark, mine.moves, mine.slowest, mine.over_limit) == (1, 4, 3.0, 2)
    assert mine.bank_used == pytest.approx(1.5) and mine.bank_left == pytest.approx(58.5)
    assert not mine.overdrawn
    (late,) = timing.agent_times(result, 2.0, bank=1.0)
    assert late.overdrawn and late.bank_left == pytest.approx(-0.5)


def test_the_report_states_each_games_bank_and_sums_them_up():
    events = probe_events(
        game_event(VALIDATION, [0, 1], [[0.3, 5.1, 0.2], [1.0, 2.0, 3.0]]),
        game_event("vs kaggle-random, file first", [0], [[0.1, 0.1], [0.0, 0.0]], number=1),
        game_event("vs kaggle-negamax, file second", [1], [[0.0, 0.0], QUICK], rewards=(-1, 1), number=2),
    )
    report = judge(events)
    assert report.passed and report.forfeit is False
    printed = format_report(report)
    lines = printed.splitlines()
    assert lines[0] == (
        "PASS: Kaggle would not forfeit this agent in these games (the most bank a game used: 3.10 s of 60 s)"
    )
    assert row(printed, "game ") == "result moves slowest over 2 s bank used bank left"
    assert row(printed, VALIDATION) == "mark 1 won"
    assert row(printed, "the file as mark 1") == "3 5.100 s 1 3.10 s 56.90 s"
    assert row(printed, "the file as mark 2") == "3 3.000 s 1 1.00 s 59.00 s"
    assert row(printed, "vs kaggle-random, file first") == "win 2 0.100 s 0 0.00 s 60.00 s"
    assert row(printed, "vs kaggle-negamax, file second") == "win 3 0.200 s 0 0.00 s 60.00 s"
    assert (
        "  summary:      slowest move 5.100 s; 2 of 11 moves (18.2 %) over actTimeout 2 s; most bank a "
        "game used 3.10 s of 60 s (5.2 %)"
    ) in lines
    assert report.times.overage_where == f"{VALIDATION}, mark 1"
    assert not any("more than half" in warning for warning in report.warnings)


def test_a_game_that_used_more_than_half_of_the_bank_is_a_warning_not_a_failure():
    thirty_one = [0.5, 20.0, 15.0]  # 18 + 13 s beyond actTimeout 2 s
    report = judge(probe_events(game_event("vs kaggle-negamax, file first", [0], [thirty_one, QUICK])))
    assert report.passed, report.reasons
    (warning,) = [warning for warning in report.warnings if "more than half" in warning]
    assert warning.startswith(
        "vs kaggle-negamax, file first, mark 1 used 31.00 s of the 60 s overage bank (52 %), more than half"
    )
    assert "a longer game" in warning and "Kaggle would then forfeit the agent" in warning
    printed = format_report(report)
    assert f"  warning:      {warning}" in printed.splitlines()
    assert row(printed, "vs kaggle-negamax, file first").endswith(" 31.00 s 29.00 s")
    under = judge(probe_events(game_event("vs kaggle-negamax, file first", [0], [[0.5, 20.0, 11.0], QUICK])))
    assert not any("more than half" in warning for warning in under.warnings)


def test_an_overdrawn_bank_is_a_forfeit_in_plain_words():
    over = [30.0, 30.0, 7.0]  # 28 + 28 + 5 = 61 s beyond actTimeout 2 s
    event = game_event(
        "vs kaggle-negamax, file first", [0], [over, QUICK], statuses=("TIMEOUT", "DONE"), rewards=(None, 1)
    )
    report = judge(probe_events(event))
    assert not report.passed and report.forfeit is True
    printed = format_report(report)
    assert printed.splitlines()[0] == (
        "FAIL: Kaggle would forfeit this agent: vs kaggle-negamax, file first: mark 1 TIMEOUT at its move 3 "
        "(30.00 s): its moves drew 61.00 s beyond actTimeout 2 s, more than the 60 s overage bank"
    )
    assert row(printed, "vs kaggle-negamax, file first") == "forfeit (TIMEOUT) 3 30.000 s 3 61.00 s overdrawn"


def test_failing_the_time_policy_alone_is_not_a_forfeit():
    slow_load = probe_events(game_event(VALIDATION, [0, 1], [[2.6, 0.1], [0.1, 0.1]]), load=2.5)
    report = judge(slow_load)
    assert not report.passed and report.forfeit is False
    assert format_report(report).splitlines()[0] == (
        "FAIL: Kaggle would not forfeit this agent in these games, but the time policy load fails it: "
        "loading the file (its module level, run by Kaggle's loader) took 2.500 s, over actTimeout 2 s: "
        "Kaggle runs it inside the first move"
    )
    assert judge(slow_load, time_policy="bank").passed
    strict = judge(probe_events(game_event(VALIDATION, [0, 1], [[0.1, 2.2], [0.1]])), time_policy="strict")
    assert strict.forfeit is False
    assert (
        format_report(strict)
        .splitlines()[0]
        .startswith(
            "FAIL: Kaggle would not forfeit this agent in these games, but the time policy strict fails it: "
            f"{VALIDATION}: mark 1 move 2 took 2.200 s"
        )
    )


def test_a_forfeit_is_named_before_a_policy_failure_and_the_rest_follow():
    raised = game_event(VALIDATION, [0, 1], [[2.6], []], statuses=("ERROR", "DONE"), rewards=(None, 1))
    raised["stderr"] = {"0": "Traceback (most recent call last):\nValueError: bad\n"}
    report = judge(probe_events(raised, load=2.5))
    lines = format_report(report).splitlines()
    forfeit = f"{VALIDATION}: mark 1 ERROR at its move 1: ValueError: bad"
    assert lines[0] == f"FAIL: Kaggle would forfeit this agent: {forfeit}"
    assert lines[1].startswith("  also:         loading the file (its module level")
    assert row("\n".join(lines), VALIDATION) == "mark 1 forfeit (ERROR)"


def test_a_check_that_died_or_hung_says_what_it_can_tell():
    started = [*load_events(), ISOLATED, KAGGLE, {"event": "start", "game": 0, "label": VALIDATION}]
    died = judge(started, crash="exit status 3 and nothing on stderr")
    assert died.forfeit is None
    assert format_report(died).splitlines()[0] == (
        "FAIL: the check could not tell whether Kaggle would forfeit this agent: the check's process died "
        f"during the game '{VALIDATION}': exit status 3 and nothing on stderr"
    )
    assert "  games:        none played" in format_report(died).splitlines()
    hung = judge(started, hung=True)
    assert hung.forfeit is True
    assert format_report(hung).startswith("FAIL: Kaggle would forfeit this agent: the check did not finish")
    assert judge(started, hung=True, hang_forfeits=False).forfeit is None


def test_a_move_that_never_returns_fails_once_kaggle_would_give_up_on_it(tmp_path):
    """The probe announces each call of the file; the check kills a move that lasts longer than
    Kaggle waits for it (actTimeout plus the bank left, plus a second: ``check.LOAD_GRACE``), not
    after its own --timeout, and names it (here with an injected clock)."""
    out = tmp_path / "games.jsonl"
    started = [*load_events(), ISOLATED, KAGGLE, {"event": "start", "game": 0, "label": VALIDATION}]
    call = {"event": "call", "mark": 1, "limit": 62.0}
    out.write_text("".join(json.dumps(event) + "\n" for event in [*started, call]))
    moves = check._Moves(out)
    assert moves.late(1000.0) is None  # first seen now
    assert moves.late(1000.0 + 62.0 + check.LOAD_GRACE - 0.1) is None
    assert moves.late(1000.0 + 62.0 + check.LOAD_GRACE + 0.1) == 62.0
    with out.open("a") as file:
        file.write(json.dumps({"event": "returned"}) + "\n")
    assert moves.late(2000.0) is None
    report = judge([*started, call], hung=True, timeout=62.0, late_move=True)
    assert report.forfeit is True
    assert format_report(report).splitlines()[0] == (
        f"FAIL: Kaggle would forfeit this agent: {VALIDATION}: mark 1's move did not return within 62.0 s "
        "(actTimeout 2 s plus the 60.0 s left of its overage bank), all Kaggle waits for a move: Kaggle "
        "would end it with TIMEOUT"
    )


def test_the_probe_announces_each_call_of_the_file_with_its_limit(tmp_path, monkeypatch):
    from kaggle_environments import make
    from kaggle_environments.agent import Agent

    monkeypatch.setattr(Agent, "act", Agent.act)  # the probe replaces it: put back afterwards
    path = tmp_path / "main.py"
    path.write_text("def agent(obs, config):\n    return [c for c in range(7) if obs.board[c] == 0][0]\n")
    events: list[dict] = []
    probe._announce_calls(str(path), lambda **event: events.append(event))
    steps = make("connectx", configuration={"actTimeout": 1.0}).run([str(path), "random"])
    calls = [event for event in events if event["event"] == "call"]
    assert len(calls) == steps[-1][0].observation.board.count(1) > 0  # its stones: one a call
    assert calls[0] == {"event": "call", "mark": 1, "limit": 61.0}  # actTimeout plus the whole bank
    assert [event["event"] for event in events] == ["call", "returned"] * len(calls)


def test_a_module_this_machine_lacks_is_not_called_a_forfeit():
    """Kaggle's image ships torch and much else this machine may lack: the check cannot tell then. A
    package of the project's own, which Kaggle lacks too, is a forfeit."""

    def missing(module: str):
        failed = game_event(VALIDATION, [0, 1], [[0.1], []], statuses=("ERROR", "DONE"), rewards=(None, 1))
        failed["stderr"] = {
            "0": f"Traceback (most recent call last):\nModuleNotFoundError: No module named '{module}'\n"
        }
        return judge(probe_events(failed))

    torch = missing("torch")
    assert torch.forfeit is None
    assert format_report(torch).splitlines()[0] == (
        "FAIL: the check could not tell whether Kaggle would forfeit this agent: "
        f"{VALIDATION}: mark 1 ERROR at its move 1: ModuleNotFoundError: No module named 'torch'; this "
        "machine lacks the module 'torch', which Kaggle's image may have (it ships numpy, scipy, torch "
        "and many more): install it here and check again"
    )
    assert missing("agents.kit").forfeit is True  # ISOLATED: the project's package


def test_a_game_that_overdrew_the_bank_is_not_warned_that_it_could():
    overdrawn = game_event(
        VALIDATION, [0, 1], [[33.0, 33.0], []], statuses=("TIMEOUT", "DONE"), rewards=(None, 1)
    )
    warnings = judge(probe_events(overdrawn)).warnings
    assert any("drew 62.00 s on the 60 s overage bank (103 %): it overdrew it" in line for line in warnings)
    assert not any("could overdraw" in line for line in warnings)
    half = game_event(VALIDATION, [0, 1], [[20.0, 20.0], []])
    assert any("could overdraw" in line for line in judge(probe_events(half)).warnings)


LOADING = [ISOLATED, KAGGLE, {"event": "loading"}]


def test_a_load_that_never_ends_is_a_forfeit_for_taking_too_long_to_load():
    report = judge(LOADING, hung=True, timeout=62.0)
    assert report.forfeit is True and report.games == ()
    assert format_report(report).splitlines()[0] == (
        "FAIL: Kaggle would forfeit this agent: it takes too long to load: loading the file did not finish "
        "within the 62 s that Kaggle lets the first move take (actTimeout 2 s plus the 60 s overage bank; "
        "Kaggle loads the file inside the first move), so Kaggle would end it with TIMEOUT at its first move"
    )
    # killed sooner by the check's own --timeout: nothing Kaggle would do follows from it
    short = judge(LOADING, hung=True, timeout=10.0, hang_forfeits=False)
    assert short.forfeit is None
    assert short.reasons[0] == (
        "the check did not finish within 10 s while loading the file, before the 62 s Kaggle lets it take: "
        "give the check a longer timeout to tell"
    )


def test_a_load_longer_than_kaggle_allows_the_first_move_is_a_forfeit():
    slow = [*LOADING, {"event": "load", "name": "agent", "seconds": 62.5}, DONE]
    report = judge(slow)
    assert report.forfeit is True and report.load == 62.5 and report.last_callable == "agent"
    assert report.reasons == (
        "it takes too long to load: loading the file took 62.5 s, more than the 62 s that Kaggle lets the "
        "first move take (actTimeout 2 s plus the 60 s overage bank; Kaggle loads the file inside the first "
        "move), so Kaggle would end it with TIMEOUT at its first move",
    )
    within = judge([*LOADING, {"event": "load", "name": "agent", "seconds": 61.9}, DONE])
    assert within.forfeit is False and within.reasons[0].startswith("loading the file (its module level")


def test_a_file_that_ends_the_process_while_loading_is_named():
    report = judge(LOADING)  # the load stage ended, status 0, without a result
    assert report.forfeit is None
    assert report.reasons[0].startswith(
        "the check's process ended without a result while loading the file: did the file end the process"
    )
    died = judge(LOADING, crash="Traceback (most recent call last):\nSystemExit: 3")
    assert died.reasons[0] == "the check's process died while loading the file: SystemExit: 3"


def test_a_file_over_5_mb_is_warned_about_not_failed():
    size = 5 * 2**20
    assert not any("MB" in warning for warning in judge(probe_events(), size=size).warnings)
    report = judge(probe_events(), size=size + 1)
    assert report.passed
    (warning,) = [warning for warning in report.warnings if "MB" in warning]
    assert warning.startswith("the file is 5.0 MB, over 5 MB: Kaggle documents no size limit")
    assert "  size:         5242881 bytes (5.0 MB)" in format_report(report).splitlines()


def invalid_game(replay: dict, moves: int) -> dict:
    event = game_event(
        VALIDATION,
        [0, 1],
        [[0.1] * moves, [0.1] * (moves - 1)],
        statuses=("INVALID", "DONE"),
        rewards=(None, 1),
    )
    event["invalid"] = {"0": replay}
    return event


@pytest.mark.parametrize(
    ("moves", "action", "words"),
    [
        ("444444", 3, "mark 1 chose column 4, which is full (it returned 3, counting from 0)"),
        (
            "",
            7,
            "mark 1 returned 7: there is no column 8 on a 7-column board (columns are 0-6 to the agent, "
            "1-7 here)",
        ),
        ("", -1, "mark 1 returned -1: a column is never negative (columns are 0-6 to the agent, 1-7 here)"),
        ("", "3", "mark 1 returned '3' (a str; an agent must return a Python int)"),
        ("", 3.0, "mark 1 returned 3.0 (a float; an agent must return a Python int)"),
        ("111111", None, "mark 1 returned None: Kaggle played its default action, column 1, which is full"),
        ("", [3], "mark 1 returned [3] (a list; an agent must return a Python int)"),
        (
            "",
            3,
            "the replay returned 3, a legal move: the agent is not deterministic, or its state "
            "differs in the replay",
        ),
    ],
)
def test_an_invalid_move_is_told_in_the_tournaments_words(moves, action, words):
    board = Board.from_moves(moves)
    replay = {"action": probe.encode(action), "board": board.to_kaggle(), "mark": board.mark, "rows": 6,
              "columns": 7, "inarow": 4}  # fmt: skip
    move = len(moves) // 2 + 1
    report = judge(probe_events(invalid_game(replay, move)))
    assert report.reasons == (f"{VALIDATION}: mark 1 INVALID at its move {move}; replayed, {words}",)
    if not words.startswith("the replay"):  # one wording: the tournament's
        assert words == invalid_action(1, decode(probe.encode(action)), board)


@pytest.mark.parametrize(
    "action",
    [
        None,
        True,
        3,
        -1,
        2.5,
        float("inf"),
        "3",
        "x" * 2000,
        np.int64(3),
        np.float32(1.5),
        np.bool_(True),
        [3],
        {"column": 3},
        object(),
    ],  # fmt: skip
)
def test_the_probe_tags_an_action_as_the_sandbox_does(action):
    assert json.loads(json.dumps(probe.encode(action))) == replies.encode(action)


# ---- checks: each plays through kaggle-environments in a fresh `python -I` process ----


@pytest.mark.slow
def test_build_then_check_passes_and_reports_size_and_times(tmp_path, capsys):
    out = tmp_path / "leftmost.py"
    status = main(["build", "leftmost", "-o", str(out), "--games", "1", "--act-timeout", "0.5"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert printed.startswith(f"built {out}: leftmost, {out.stat().st_size} bytes")
    assert f"checking {out} as Kaggle loads it" in printed
    assert "PASS: Kaggle would not forfeit this agent in these games (the most bank a game used: " in printed
    assert f"  file:         {out}\n" in printed
    assert "project packages verified unimportable" in printed
    assert "last callable: agent" in printed
    for label in ("validation episode", "vs kaggle-random", "vs kaggle-negamax"):
        assert label in printed
    assert "first move:" in printed and "summary:      slowest move " in printed and "near limit:" in printed
    assert "    game " in printed and " bank used  bank left" in printed


@pytest.mark.slow
def test_negamax_passes_the_validation_episode(built):
    report = check_file(built["negamax"], games=0, act_timeout=0.5)
    assert report.passed, report.reasons
    assert report.isolated and report.last_callable == "agent"
    (game,) = report.games
    assert game.statuses == ("DONE", "DONE") and game.plies >= 7
    assert report.times.first_move is not None and report.times.first_move > 0
    assert report.size == built["negamax"].stat().st_size


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fixture", "reason", "forfeit"),
    [
        ("syntax_error.py", "does not compile: SyntaxError at line 4", True),
        ("raises.py", "mark 1 ERROR at its move 1: RuntimeError: boom from the fixture", True),
        (
            "numpy_int.py",
            "mark 1 INVALID at its move 1; replayed, mark 1 returned numpy.int64 3 (a numpy "
            "integer; an agent must return a Python int, e.g. int(column))",
            True,
        ),
        (
            "full_column.py",
            "mark 1 INVALID at its move 4; replayed, mark 1 chose column 1, which is full (it "
            "returned 0, counting from 0)",
            True,
        ),
        ("slow_module.py", "loading the file (its module level, run by Kaggle's loader) took 1.", False),
        ("exits.py", "exit status 3 and nothing on stderr: did the file end the process", None),
    ],
)
def test_check_fails_clearly_on_a_broken_file(fixture, reason, forfeit):
    report = check_file(BROKEN / fixture, games=0, act_timeout=0.5)
    assert not report.passed
    assert reason in report.reasons[0], report.reasons
    assert report.forfeit is forfeit


@pytest.mark.slow
def test_time_policy_decides_whether_a_slow_later_move_fails():
    relaxed = check_file(BROKEN / "slow_second_move.py", games=0, act_timeout=0.5)
    assert relaxed.passed, relaxed.reasons
    assert 0.2 < relaxed.times.overage < 1.0
    assert any("took longer than actTimeout 0.5 s: allowed" in warning for warning in relaxed.warnings)
    (game,) = relaxed.games
    # the bank computed from the move times is what Kaggle's referee had left (remainingOverageTime)
    for agent in timing.agent_times(game, 0.5):
        assert agent.over_limit == 1 and 0.2 < agent.bank_used < 1.0
        assert game.banks[agent.mark - 1] == pytest.approx(agent.bank_left, abs=1e-5)
    strict = check_file(BROKEN / "slow_second_move.py", games=0, act_timeout=0.5, time_policy="strict")
    assert not strict.passed
    assert "mark 1 move 2 took 0." in strict.reasons[0]


@pytest.mark.slow
def test_check_command_exits_1_on_failure(capsys):
    assert main(["check", str(BROKEN / "raises.py"), "--games", "1", "--act-timeout", "0.5"]) == 1
    printed = capsys.readouterr().out
    assert printed.splitlines()[1].startswith("FAIL")
    assert "vs kaggle-random" not in printed  # the check stops at the first failing game
    assert 'raise RuntimeError("boom from the fixture")' in printed  # Kaggle's logged traceback


@pytest.mark.slow
def test_a_built_file_is_a_tournament_entrant(built):
    task = game_task(first=str(built["leftmost"]), second="leftmost", act_timeout=1.0, hang_limit=5.0, seed=3)
    (record,) = list(run_games([task], workers=1))
    assert record.first == str(built["leftmost"])
    assert record.offender is None and record.termination in (Termination.WIN, Termination.DRAW)
    assert record.moves[:7] == (0, 0, 0, 0, 0, 0, 1)  # leftmost against itself


# ---- loading, timing and stopping a check: real probes ----

HANGS_AT_IMPORT = """
import subprocess, sys, time

subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{marker}"])  # a child of its own
while True:  # never done loading
    {body}


def agent(obs, config):
    return 0
"""


def processes_with(text: str) -> list[int]:
    """Ids of the live (not zombie) processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            if text in command and (entry / "stat").read_text().rpartition(")")[2].split()[0] != "Z":
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return found


def hanging_file(tmp_path: Path, body: str = "time.sleep(1)") -> tuple[Path, str]:
    marker = f"connectx-test-marker-{time.time_ns()}"
    path = tmp_path / "hang.py"
    path.write_text(HANGS_AT_IMPORT.format(marker=marker, body=body))
    return path, marker


def test_kaggle_lets_loading_and_the_first_move_take_act_timeout_plus_the_whole_bank() -> None:
    assert timing.load_limit(2.0) == 62.0
    assert timing.load_limit(0.5, bank=3.0) == 3.5


@pytest.mark.slow
def test_a_file_that_hangs_at_import_fails_within_kaggles_limit_and_leaves_nothing(tmp_path, monkeypatch):
    """Kaggle's limit (actTimeout plus the 60 s bank, 62 s: ``timing.load_limit``, tested on its own)
    injected as a 1 s bank with a 1 s actTimeout, so the check gives up within seconds: not before
    the limit, and about :data:`~submissions.check.LOAD_GRACE` after it."""
    monkeypatch.setattr(check, "load_limit", lambda act_timeout: timing.load_limit(act_timeout, bank=1.0))
    path, marker = hanging_file(tmp_path)
    started = time.monotonic()
    report = check_file(path, games=2, act_timeout=1.0)
    elapsed = time.monotonic() - started
    assert elapsed > 2.0  # not before the limit: actTimeout + bank
    assert elapsed < 2.0 + check.STARTUP  # the load killed at its limit, not at the check's timeout
    assert not report.passed and report.forfeit is True and report.games == ()
    assert report.reasons[0].startswith(
        "it takes too long to load: loading the file did not finish within the 2 s that Kaggle lets the "
        "first move take"
    )
    assert processes_with(marker) == []  # the probe's whole process group was killed


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "status", "how"), [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")]
)
def test_a_check_stopped_by_a_signal_leaves_no_process_and_no_folder(tmp_path, stop, status, how):
    path, marker = hanging_file(tmp_path, body="pass")  # spinning, as a busy import would
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    check = subprocess.Popen(
        [sys.executable, "-m", "connectx", "check", str(path)],
        env={**os.environ, "TMPDIR": str(temporary)}, cwd=PROJECT_ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not processes_with(marker):  # the file is loading
        assert time.monotonic() < deadline and check.poll() is None, check.communicate()
        time.sleep(0.1)
    (folder,) = temporary.iterdir()
    assert processes_with(str(folder))  # the probe
    check.send_signal(getattr(signal, stop))
    out, err = check.communicate(timeout=30)
    assert check.returncode == status, err
    assert err.splitlines()[-1] == f"{how}: the check of {path} stopped; its processes were killed"
    assert processes_with(marker) == [] and processes_with(str(folder)) == []
    assert list(temporary.iterdir()) == []


@pytest.mark.slow
def test_a_thread_the_file_leaves_running_does_not_hold_the_check_up(tmp_path):
    """Kaggle does not wait for what an agent leaves behind; a probe that waited for a thread that
    never ends (the interpreter joins them at exit) would hang until the check's timeout."""
    path = tmp_path / "main.py"
    path.write_text(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(3600,)).start()  # not a daemon: never joined\n"
        "def agent(obs, config):\n"
        "    return next(c for c in range(config.columns) if obs.board[c] == 0)\n"
    )
    report = check_file(path, games=0, act_timeout=0.5, timeout=60.0)
    assert report.passed, report.reasons


@pytest.mark.slow
def test_loading_is_timed_in_a_fresh_process_and_within_the_first_move(tmp_path):
    path = tmp_path / "main.py"
    path.write_text(
        "import builtins, time\n"
        "if not hasattr(builtins, 'connectx_test_loaded'):  # an import paid once a process, then cached\n"
        "    builtins.connectx_test_loaded = True\n"
        "    time.sleep(0.6)\n"
        "def agent(obs, config):\n"
        "    return next(c for c in range(config.columns) if obs.board[c] == 0)\n"
    )
    events: list[dict] = []
    report = check_file(path, games=0, act_timeout=1.0, on_event=events.append)
    assert report.passed, report.reasons
    # each of the probe's events was told as it came, for the progress line: loading, then the games
    kinds = [event["event"] for event in events]
    assert kinds.index("loading") < kinds.index("load") < kinds.index("start") < kinds.index("game")
    assert next(e for e in events if e["event"] == "start")["label"].startswith("validation episode")
    # loading was measured with its imports, as the first move pays them; the first move holds it
    assert 0.6 <= report.load <= report.times.first_move + 0.25
    assert report.times.first_move >= 0.6


def test_loading_does_not_count_reading_the_file(tmp_path):
    """Kaggle reads the file when it builds the agent, before its clock: a file that takes 1 s to
    read (a pipe written late) loads in far less."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(probe.__file__, work / "probe.py")
    fifo = work / "main.py"
    os.mkfifo(fifo)

    def write_late():
        deadline = time.monotonic() + 60
        while True:  # until the probe opens the pipe to read it (ENXIO before)
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
        time.sleep(1.0)
        os.set_blocking(fd, True)
        os.write(fd, b"def agent(obs, config):\n    return 0\n")
        os.close(fd)

    writer = threading.Thread(target=write_late)
    writer.start()
    request = {"stage": "load", "path": str(fifo), "out": str(work / "events.jsonl"),
               "refuse": list(REFEREE_UNNEEDED), "project_root": str(PROJECT_ROOT),
               "packages": ["agents", "submissions"]}  # fmt: skip
    done = subprocess.run([sys.executable, "-I", str(work / "probe.py"), json.dumps(request)], cwd=work,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    writer.join()
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in (work / "events.jsonl").read_text().splitlines()]
    assert [event["event"] for event in events] == ["isolation", "kaggle", "loading", "load", "done"]
    assert events[3]["name"] == "agent" and events[3]["seconds"] < 1.0  # the 1 s of reading not counted


@pytest.mark.slow
def test_a_large_file_passes_with_a_size_warning(tmp_path):
    path = tmp_path / "main.py"
    with path.open("w") as handle:
        handle.write("def agent(obs, config):\n    return next(c for c in range(7) if obs.board[c] == 0)\n")
        handle.write(("# " + "x" * 98 + "\n") * 60_000)  # 6 MB of comments
    report = check_file(path, games=0, act_timeout=1.0)
    assert report.passed, report.reasons
    assert report.size == 6_060_082
    assert any(warning.startswith("the file is 5.8 MB, over 5 MB") for warning in report.warnings)
