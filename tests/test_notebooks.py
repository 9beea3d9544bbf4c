"""The notebooks of ``examples/``, executed as CI executes them: nbclient on an ipykernel kernel of this
interpreter (:mod:`tests.notebooks`), asserting on what their cells return; and a tournament cell
interrupted in a real kernel.

The module has one kernel, as in a hosted notebook's container (:mod:`tests.hosted`: root, but
namespaces, mounts and cgroup writes refused) where this machine lets the test make one. The
quickstart runs once in it; there its isolation line names what fell back. Code run after its cells
in the same kernel (:data:`PROBES`) reads what they made. The interrupted cell runs in it after them.
A notebook added to ``examples/`` fails here until it is executed here too.
"""

from __future__ import annotations

import ast
import json
import sqlite3
import time
from pathlib import Path

import pytest

import connectx
from tests import hosted
from tests.notebooks import EXAMPLES, descendants, execute, kernel_manager, load, outputs, text

NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
QUICKSTART = EXAMPLES / "quickstart.ipynb"


def test_the_examples_are_stored_without_outputs_and_each_is_executed_here():
    assert NOTEBOOKS == [QUICKSTART], "a notebook in examples/ that this module does not execute"
    for path in NOTEBOOKS:
        book = load(path)  # nbformat 4, validated
        for cell in book.cells:
            if cell.cell_type == "code":
                assert (cell.outputs, cell.execution_count) == ([], None), (path.name, cell.id)
        assert "widgets" not in book.metadata, path.name  # no widget state saved either


PROBES = {
    "probe-frames": """
import json
json.dumps({
    "agents": sorted(result.standings.agent), "games": len(result.games),
    "losing": [[agent, int(before), int(after)]
               for agent, before, after in zip(losing.agent, losing.value_before, losing.value_after)],
})""",
    "probe-board": """
import json, time
board._message(board, {"type": "play", "column": 3}, None)  # what a click on column 4 sends
deadline = time.monotonic() + 120
while len(board.moves) < 2 and not board.detail and time.monotonic() < deadline:
    time.sleep(0.05)
json.dumps({"moves": board.moves, "status": board.status, "detail": board.detail, "over": board.over})""",
    "probe-secret": """
import json, os, pathlib
secret = pathlib.Path("secret.txt").resolve()
secret.write_text("the kernel's")
os.chmod(secret, 0o600)

def spy(obs, config):  # the leftmost column if it reads the kernel's file, else the rightmost
    try:
        secret.read_text()
        return 0
    except OSError:
        return config.columns - 1

spied = connectx.tournament([spy, "leftmost"], games=1, openings="none", progress=False).games
json.dumps([moves[0 if "spy" in first else 1] for first, moves in zip(spied["first"], spied["moves"])])""",
}
"""Code run in the quickstart's kernel after its cells: what its cells made, as JSON."""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """The module's one kernel, as in a hosted notebook's container where this machine can make one
    (:func:`tests.hosted.supported`), else here: its manager and its working directory. A kernel's
    start and the API's first imports in it are paid once, not by each test."""
    folder = tmp_path_factory.mktemp("kernel")
    manager = kernel_manager(tmp_path_factory.mktemp("specs"), hosted=hosted.supported())
    manager.start_kernel(cwd=str(folder))
    try:
        yield manager, folder
    finally:
        manager.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def quickstart(kernel):
    """The quickstart executed once in the module's :func:`kernel`, with :data:`PROBES` after it: its
    outputs by cell id (a probe's as its JSON, decoded), and its working directory as ``"folder"``.
    Its board is closed after the probes, so that the kernel is left with no process of its own."""
    manager, folder = kernel
    book = execute(QUICKSTART, manager, folder, probes={**PROBES, "close": "board.close()"})
    cells = outputs(book)
    for name in PROBES:
        cells[name] = json.loads(ast.literal_eval(text(cells[name])))
    cells["folder"] = folder
    return cells


def test_the_quickstart_plays_its_cell_agent_against_the_built_ins(quickstart):
    shown = quickstart["tournament"]
    assert "isolation: " in text(shown)
    assert any("application/vnd.jupyter.widget-view+json" in output.get("data", {}) for output in shown)
    html = text(shown, "text/html")
    assert 'class="cx-inline"' in html and "<svg" in html  # the standings and the figures, inline
    for agent in ("my_agent", "negamax", "one_step", "random"):
        assert agent in html
    frames = quickstart["probe-frames"]
    assert frames["agents"] == ["my_agent", "negamax", "one_step", "random"]
    assert frames["games"] == 12  # a gauntlet: 3 opponents, 2 game pairs each
    assert "<table" in text(quickstart["standings"], "text/html")


def test_the_quickstart_finds_the_moves_that_lost_and_replays_one(quickstart):
    losing = quickstart["probe-frames"]["losing"]
    assert losing  # negamax plays perfectly: my_agent loses, and one of its moves lost
    assert all(agent == "my_agent" and before >= 0 > after for agent, before, after in losing)
    html = text(quickstart["replay"], "text/html")
    assert "cx-player" in html and "<script" in html


def test_the_quickstart_board_plays_the_cell_agent(quickstart):
    (shown,) = quickstart["board"]
    assert "application/vnd.jupyter.widget-view+json" in shown["data"]
    board = quickstart["probe-board"]
    assert board["detail"] == "" and not board["over"]
    assert board["moves"][0] == 3 and len(board["moves"]) == 2  # the agent answered from its sandbox
    assert 0 <= board["moves"][1] < 7


def test_the_quickstart_builds_a_submission_that_passes_the_check(quickstart):
    said = text(quickstart["build"])
    assert "main.py: PASS" in said, said
    source = (quickstart["folder"] / "main.py").read_text(encoding="utf-8")
    assert "def my_agent(obs, config)" in source and "import connectx" not in source


def test_a_cell_agent_cannot_read_a_file_of_the_kernels(quickstart):
    assert quickstart["probe-secret"] == ["7", "7"]  # its first move in either colour: refused


@pytest.mark.skipif(not hosted.supported(), reason="the hosted container needs root on x86-64")
def test_where_namespaces_are_refused_the_isolation_line_names_the_fallbacks(quickstart):
    (line,) = [line for line in text(quickstart["tournament"]).splitlines() if line.startswith("isolation: ")]
    assert "own users" in line  # root still gives each host a user of its own
    for fallback in (
        "no network namespace",
        "no IPC namespace",
        "no pid namespace",
        "no mounts of their own",
        "no memory cgroup",
        "no cgroup v2 of theirs",
    ):
        assert fallback in line, fallback
    for refused in ("own network", "own IPC", "own pids", "own mounts", "frozen between moves (cgroup v2)"):
        assert refused not in line.split(" (")[0], refused


# A tournament kept in `out`, as a user writes it: 2 agents, 5 game pairs, 10 games.
TOURNAMENT = "import connectx\nresult = connectx.tournament(['leftmost', 'random'], games=5, out='out')"
GAMES = 10


def stored(database: Path) -> dict[int, str]:
    """The games stored in ``database`` so far: each game's id and when it started."""
    if not database.exists():
        return {}
    with sqlite3.connect(database) as connection:
        return dict(connection.execute("SELECT game_id, started_at FROM games").fetchall())


def run_cell(client, code: str, timeout: float = 300) -> tuple[dict, list[dict]]:
    """Execute ``code`` in the kernel of ``client``; wait until the kernel is idle again: its reply's
    content and the messages it published meanwhile (streams, results, errors)."""
    message = client.execute(code)
    while (reply := client.get_shell_msg(timeout=timeout))["parent_header"].get("msg_id") != message:
        pass
    published = []
    while True:
        output = client.get_iopub_msg(timeout=timeout)
        if output["parent_header"].get("msg_id") != message:
            continue
        if output["msg_type"] == "status" and output["content"]["execution_state"] == "idle":
            return reply["content"], published
        published.append(output)


def test_an_interrupted_tournament_cell_keeps_its_games_and_resumes(kernel, quickstart):
    manager, folder = kernel  # after the quickstart, whose board is closed: no process of the kernel's
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        pid = manager.provisioner.process.pid
        assert descendants(pid) == []
        database = folder / "out" / "tournament.db"
        message = client.execute(TOURNAMENT)
        deadline = time.monotonic() + 300
        while len(stored(database)) < 3:
            assert time.monotonic() < deadline, "no 3 games stored within 300 s"
            time.sleep(0.05)
        assert descendants(pid)  # the games are being played, in processes of the kernel's
        manager.interrupt_kernel()
        interrupted = time.monotonic()
        while (reply := client.get_shell_msg(timeout=120))["parent_header"].get("msg_id") != message:
            pass
        first = stored(database)
        assert 3 <= len(first) < GAMES
        assert descendants(pid) == []  # the cell's reply came after every game process ended
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == connectx.RunInterrupted.__name__  # a KeyboardInterrupt
        assert time.monotonic() - interrupted < 30

        # ipykernel aborts the execute requests that reach it before it has handled its own "stop
        # aborting" message, which it posts after the error reply; a user's second click comes later.
        for _ in range(50):
            content, _published = run_cell(client, TOURNAMENT)
            if content["status"] != "aborted":
                break
            time.sleep(0.1)
        assert content["status"] == "ok", content
        every = stored(database)
        assert len(every) == GAMES
        assert {game: every[game] for game in first} == first  # the games kept were not played again
        again = set(every) - set(first)
        assert len(again) == GAMES - len(first)
        assert min(every[game] for game in again) >= max(first.values())  # started_at: whole seconds
        assert descendants(pid) == []
    finally:
        client.stop_channels()
