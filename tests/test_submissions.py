"""Single-file submissions: built from the package, loaded as Kaggle loads them, checked honestly.

Fast tests build with no check and load the files in this process or in one isolated interpreter;
the few that play through kaggle-environments (a fresh ``python -I`` process each) use small
act timeouts and at most one game per opponent.
"""

from __future__ import annotations

import ast
import base64
import json
import shutil
import subprocess
import sys
import textwrap
import tokenize
import traceback
import zlib
from pathlib import Path

import pytest
from kaggle_environments.agent import get_last_callable

import agents.engine.board
from agents.engine.board import Board
from agents.registry import BUILTIN, SpecError, load_agent, parse_spec
from connectx.cli import main
from submissions import probe
from submissions.build import BuildError, body_of, build_module, build_spec, header_fields, provenance, write
from submissions.check import PROJECT_ROOT, check_file
from tournament.record import Termination
from tournament.runner import run_games
from tournament.schedule import GameTask

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


def package_moves(spec_text: str) -> list[int]:
    agent = load_agent(parse_spec(spec_text))
    return [agent(obs, dict(CONFIG)) for obs in observations()]


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
        node.value for node in tree.body
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
from kaggle_environments.agent import get_last_callable
request = json.loads(sys.argv[3])
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
    assert max(len(line) for line in text.splitlines() if line.startswith('        "')) <= 100
    encoded = "".join(
        line.strip().strip('"') for line in text.splitlines() if line.startswith('        "')
    )
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


def test_build_prints_only_what_the_user_can_act_on(tmp_path, capsys):
    out = tmp_path / "main.py"
    assert main(["build", "negamax", "-o", str(out), "--no-check"]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"built {out}: negamax") and printed.out.count("\n") == 1
    assert printed.err == ""  # no note on how agents/ is written (optional modules, __file__)
    assert main(["build", "negamax", "-o", str(out), "--no-check", "--verbose"]) == 0
    notes = {f"note: {note}" for note in build_spec("negamax").notes}
    assert set(capsys.readouterr().out.splitlines()[1:]) == notes


# ---- checks: each plays through kaggle-environments in a fresh `python -I` process ----


@pytest.mark.slow
def test_build_then_check_passes_and_reports_size_and_times(tmp_path, capsys):
    out = tmp_path / "leftmost.py"
    status = main(["build", "leftmost", "-o", str(out), "--games", "1", "--act-timeout", "0.5"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert printed.startswith(f"built {out}: leftmost, {out.stat().st_size} bytes")
    assert f"checking {out} as Kaggle loads it" in printed
    assert f"PASS  {out}" in printed
    assert "project packages verified unimportable" in printed
    assert "last callable: agent" in printed
    for label in ("validation episode", "vs kaggle-random", "vs kaggle-negamax"):
        assert label in printed
    assert "first move:" in printed and "slowest move:" in printed and "near limit:" in printed


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
    ("fixture", "reason"),
    [
        ("syntax_error.py", "does not compile: SyntaxError at line 4"),
        ("raises.py", "mark 1 ERROR at its move 1: RuntimeError: boom from the fixture"),
        ("numpy_int.py", "mark 1 INVALID at its move 1: returned np.int64(3) (numpy.int64): not a Python"),
        ("slow_module.py", "loading the file (its module level, run by Kaggle's loader) took 1."),
        ("exits.py", "exit status 3 and nothing on stderr: did the file end the process"),
    ],
)
def test_check_fails_clearly_on_a_broken_file(fixture, reason):
    report = check_file(BROKEN / fixture, games=0, act_timeout=0.5)
    assert not report.passed
    assert any(reason in text for text in report.reasons), report.reasons


@pytest.mark.slow
def test_time_policy_decides_whether_a_slow_later_move_fails():
    relaxed = check_file(BROKEN / "slow_second_move.py", games=0, act_timeout=0.5)
    assert relaxed.passed, relaxed.reasons
    assert 0.2 < relaxed.times.overage < 1.0
    assert any("drawing up to" in warning for warning in relaxed.warnings)
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
    task = GameTask(0, 0, str(built["leftmost"]), "leftmost", 6, 7, 4, 1.0, 5.0, seed=3)
    (record,) = list(run_games([task], workers=1))
    assert record.first == str(built["leftmost"])
    assert record.offender is None and record.termination in (Termination.WIN, Termination.DRAW)
    assert record.moves[:7] == (0, 0, 0, 0, 0, 0, 1)  # leftmost against itself
