"""The web server's edges: a fuzzed corpus of bad input gets 4xx with a sentence and never 500, an
oversized body is refused while it is read, relative paths are read from DIR, and, on a server
started as a user starts it (``connectx serve``), the agents' hosts hold nothing of the server, no
ended process stays a zombie, and Ctrl-C stops it within 5 s while agents are thinking, leaving no
process and no temporary folder."""

from __future__ import annotations

import json
import random
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from agents.engine.board import Board
from tests.test_web_browser import processes, start, until
from web.app import create_app
from web.tables import Table

PROBE = """
import gc, sys

SERVER = ("web", "starlette", "uvicorn", "jinja2", "anyio", "tournament.store")


def ours(module):
    return any(module == name or module.startswith(name + ".") for name in SERVER)


def agent(obs, config):
    gc.unfreeze()  # what a process froze is counted too
    kinds = {type(o) for o in gc.get_objects()}
    found = sorted(f"{k.__module__}.{k.__qualname__}" for k in kinds if ours(str(k.__module__)))
    modules = (m for m in sys.modules if ours(m) and not m.startswith("tournament."))  # the CLI's own
    found += sorted(m for m in modules if m not in ("web", "web.forkserver"))
    if found:
        raise RuntimeError("the server's objects: " + ", ".join(found)[:3000])
    return 0
"""
"""An agent that finds, in its own process, any object or module of the web server."""


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A client of an app (its lifespan run: a fork server, the warm-up) serving an empty DIR."""
    root = tmp_path_factory.mktemp("runs")
    (root / "bots").mkdir()
    (root / "bots" / "first.py").write_text("def agent(obs, config):\n    return 0\n")
    with TestClient(create_app(root, hosts=("testserver",)), raise_server_exceptions=False) as client:
        client.root = root
        yield client


VALUES = [
    None, True, False, 0, -1, 7, 2**64, 10**400, 1e308, -1e308, 0.5, "", " ", "x", "-1", "1e999", "nan",
    "inf", "9" * 5000, "4" * 100, "12x", "\u00e9", "\x00", "../..", "/etc/passwd", "a" * 5000, [], {},
    [[[[]]]], {"a": {"b": []}}, [1, 2, 3], "human", "leftmost", "negamx", "minimax:depth=1e9",
    "minimax:depth=-1", "minimax:depth=" + "9" * 5000, "network:weights=x", "lms:weights=x.npz",
    "td:weights=/dev/zero", "bots/first.py", "bots/missing.py", "kaggle-random:x", ",,,:=",
]  # fmt: skip
"""Values of every type and size, each put in every field."""

QUERY_VALUES = [v for v in VALUES if isinstance(v, str)] + ["[" * 2000, "%00", "%ff%fe", "1" * 30]

GETS = {
    "/board": ("pos", "first", "second", "time", "rows", "columns", "inarow", "scores"),
    "/api/scores": ("pos", "rows", "columns", "inarow"),
    "/api/side": ("side",),
    "/api/progress": ("run",),
}

POSTS = {
    "move": ("side", "pos", "time", "rows", "columns", "inarow"),
    "save": ("first", "second", "pos", "opening", "seconds", "time", "name", "rows", "columns", "inarow"),
}

RAW = [
    b"[" * 64_000,  # 64,000 bytes of nested JSON array
    b"[" * 32_000 + b"]" * 32_000,
    b'{"side": ' + b"[" * 60_000 + b"]" * 60_000 + b"}",
    b"{" * 64_000,
    b"null", b"[]", b'"x"', b"1e999", b"\xff\xfe{}", b"{", b'{"side": "leftmost",}', b"\x00",
    b'{"side": "leftmost", "pos": 4}', b'{"seconds": [1e999]}', b"9" * 60_000,
]  # fmt: skip
"""Bodies that are not the JSON object asked for."""


def _refusal(response, path: str) -> str:
    """The sentence of a refusal (4xx), checked: one line; for ``/api/`` a JSON ``error``."""
    assert 400 <= response.status_code < 500, (path, response.status_code, response.text[:300])
    if path.startswith("/api/"):
        sentence = response.json()["error"]
    else:
        sentence = re.sub(r"<[^>]+>", " ", response.text)
    assert isinstance(sentence, str) and sentence.strip(), (path, response.text[:300])
    return sentence


def test_a_fuzzed_corpus_of_bad_input_gets_4xx_with_a_sentence_and_never_500(client):
    rng = random.Random(53)
    asked = 0
    for path, names in GETS.items():
        for name in names:
            for value in QUERY_VALUES:
                response = client.get(path, params={name: value})
                asked += 1
                assert response.status_code < 500, (path, name, value[:60], response.text[:300])
    for value in QUERY_VALUES:
        for path in (f"/runs/{quote(value)}", f"/files/{quote(value)}"):
            response = client.get(path)
            asked += 1
            assert response.status_code < 500, (path[:80], response.text[:300])
    table = client.post("/api/tables", json={}).json()["table"]
    for endpoint, names in POSTS.items():
        url = f"/api/tables/{table}/{endpoint}"
        for name in names:
            for value in VALUES:
                body = {"side": "leftmost", "first": "human", "second": "leftmost", "pos": "4", name: value}
                response = client.post(url, json=body)
                asked += 1
                assert response.status_code < 500, (endpoint, name, str(value)[:60], response.text[:300])
        for _ in range(150):  # several fields wrong at once
            body = {name: rng.choice(VALUES) for name in rng.sample(names, rng.randint(1, len(names)))}
            response = client.post(url, json=body)
            asked += 1
            assert response.status_code < 500, (endpoint, str(body)[:200], response.text[:300])
        for raw in RAW:
            response = client.post(url, content=raw, headers={"Content-Type": "application/json"})
            asked += 1
            _refusal(response, url)
    assert asked > 1500


def test_deep_json_an_oversized_body_and_a_missing_weights_file_are_400s_with_a_sentence(client):
    table = client.post("/api/tables", json={}).json()["table"]
    url = f"/api/tables/{table}/move"
    nested = client.post(url, content=b"[" * 64_000, headers={"Content-Type": "application/json"})
    assert nested.status_code == 400 and _refusal(nested, url) == "the request's JSON is nested too deep"
    body = json.dumps({"side": "leftmost", "name": "x" * 70_000}).encode()
    long = client.post(url, content=body, headers={"Content-Type": "application/json"})
    assert long.status_code == 413 and "longer than 65536 bytes" in _refusal(long, url)
    for side, said in (
        ("network:weights=x", "network:weights=x: the agent cannot be made: [Errno 2] No such file"),
        ("lms:weights=x.npz", "lms:weights=x.npz: the agent cannot be made: weights file not found"),
    ):
        answer = client.get("/api/side", params={"side": side})
        assert answer.status_code == 400 and _refusal(answer, "/api/side").startswith(said)


def test_relative_paths_are_read_from_dir_not_from_the_working_folder(client, tmp_path, monkeypatch):
    root = client.root
    monkeypatch.chdir(tmp_path)  # the server's working folder
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "first.py").write_text("def agent(obs, config):\n    return 6\n")
    (tmp_path / "only_here.py").write_text("def agent(obs, config):\n    return 6\n")
    (tmp_path / "w.npz").write_bytes(b"")
    assert client.get("/api/side", params={"side": "bots/first.py"}).json() == {
        "side": str(root / "bots" / "first.py")
    }
    table = client.post("/api/tables", json={}).json()["table"]
    move = client.post(f"/api/tables/{table}/move", json={"side": "bots/first.py", "pos": ""})
    assert move.json()["column"] == 0  # DIR's agent played, not the working folder's
    for side, said in (
        ("only_here.py", f"agent file not found: {root / 'only_here.py'}"),
        ("lms:weights=w.npz", f"w.npz is not a file in the served folder {root}"),
    ):
        answer = client.get("/api/side", params={"side": side})
        assert answer.status_code == 400 and _refusal(answer, "/api/side") == said
    choices = client.get("/board").text
    assert 'value="bots/first.py"' in choices or "bots/first.py" in choices


def test_the_probe_finds_the_objects_of_a_process_a_host_is_forked_from(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    table = Table("t", seed=1)  # its zygote forked from this process, which holds a Table
    try:
        reply = table.move(str(tmp_path / "probe.py"), Board(), 30.0)
    finally:
        table.close()
    assert reply.forfeit is not None and "web.tables.Table" in reply.forfeit.detail


def _post(url: str, body: dict, timeout: float = 60) -> tuple[int, dict]:
    ask = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(ask, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _kib(pid: int, field: str) -> int:
    """A figure of ``/proc/PID/status`` (``VmHWM``, ``VmRSS``), in KiB."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE).group(1))


def _tree(pid: int) -> dict[int, tuple[int, str]]:
    """Every process below ``pid``: its parent and state (``proc(5)``)."""
    found: dict[int, tuple[int, str]] = {}
    table = processes()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, state) in table.items():
            if ppid == parent:
                found[child] = (ppid, state)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _asleep(pid: int) -> list[int]:
    """The processes below ``pid`` inside a ``sleep`` (``time.sleep``: the kernel's
    ``hrtimer_nanosleep``, their ``/proc/PID/wchan``, ``proc(5)``): the agents of :data:`_serving`'s
    ``never.py`` thinking."""
    found = []
    for child in _tree(pid):
        try:
            if Path(f"/proc/{child}/wchan").read_text() == "hrtimer_nanosleep":
                found.append(child)
        except OSError:
            continue
    return found


def _serving(root: Path, tmp: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A ``connectx serve`` of ``root``, made to hold :data:`PROBE` and an agent that never returns."""
    (root / "probe.py").write_text(PROBE)
    (root / "never.py").write_text("import time\n\ndef agent(obs, config):\n    time.sleep(3600)\n")
    server, url = start(root, tmp)
    yield server, url
    if server.poll() is None:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The server the module's tests share (:func:`_serving`)."""
    yield from _serving(tmp_path_factory.mktemp("served"), tmp_path_factory.mktemp("tmp"))


@pytest.fixture
def served_alone(tmp_path):
    """A server of the test's own (:func:`_serving`), for a test that stops it."""
    (tmp_path / "served").mkdir()
    (tmp_path / "tmp").mkdir()
    yield from _serving(tmp_path / "served", tmp_path / "tmp")


def test_a_host_of_the_board_holds_nothing_of_the_server_and_leaves_no_zombie(served):
    server, url = served
    status, answer = _post(url + "api/tables", {})
    assert status == 200
    table = answer["table"]
    status, answer = _post(f"{url}api/tables/{table}/move", {"side": "probe.py", "pos": "", "time": 30})
    assert (status, answer["forfeit"], answer["column"]) == (200, None, 0), answer
    tree = _tree(server.pid)
    forkservers = [pid for pid, (ppid, _) in tree.items() if ppid == server.pid]
    assert len(forkservers) == 1 and any(ppid == forkservers[0] for ppid, _ in tree.values())
    assert _post(f"{url}api/tables/{table}/close", {})[0] == 200
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and len(_tree(server.pid)) > 1:
        time.sleep(0.02)
    assert _tree(server.pid) == {forkservers[0]: (server.pid, "S")}  # no <defunct> left, within 2 s


def test_eight_boards_play_at_once(served):
    server, url = served
    tables = [_post(url + "api/tables", {})[1]["table"] for _ in range(8)]
    answers: list[tuple[int, dict]] = []

    def play(table: str) -> None:
        for pos in ("", "44"):
            answers.append(
                _post(f"{url}api/tables/{table}/move", {"side": "negamax", "pos": pos, "time": 0.5})
            )
        _post(f"{url}api/tables/{table}/close", {})

    players = [threading.Thread(target=play, args=(table,)) for table in tables]
    for player in players:
        player.start()
    for player in players:
        player.join(timeout=120)
    assert len(answers) == 16 and all(status == 200 and a["forfeit"] is None for status, a in answers), (
        answers
    )


BODY_MIB = 128
"""The body sent, in MiB: twice what the server's peak memory may grow by, so that a server that held
it would fail."""


def test_a_128_mib_body_is_refused_while_it_is_read(served):
    server, url = served
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    assert _post(url + "api/tables", {})[0] == 200  # the warm-up is done
    urllib.request.urlopen(url + "api/scores?pos=", timeout=60).read()  # and the empty board solved
    before = _kib(server.pid, "VmHWM")
    for declared in (True, False):  # with its length said, or sent in chunks of unsaid length
        with socket.create_connection((host, int(port)), timeout=60) as connection:
            length = f"Content-Length: {BODY_MIB << 20}" if declared else "Transfer-Encoding: chunked"
            head = f"POST /api/tables HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            connection.sendall(f"{head}{length}\r\n\r\n".encode())
            chunk = b"[" * (1 << 20)
            try:
                for _ in range(BODY_MIB):
                    connection.sendall(chunk if declared else b"100000\r\n" + chunk + b"\r\n")
            except OSError:  # the server closed the connection once it had answered
                pass
            answer = connection.recv(4096).decode(errors="replace")
        assert answer.startswith("HTTP/1.1 413") and "longer than 65536 bytes" in answer, answer[:300]
    assert _kib(server.pid, "VmHWM") - before < 64 * 1024  # the server's peak memory grew by < 64 MiB


def test_ctrl_c_stops_the_server_within_5_s_while_agents_think_and_leaves_nothing(served_alone, tmp_path):
    """Ctrl-C while three agents think: the server exits with 0 within 5 s, saying ``stopped``, and
    leaves no process and nothing in its temporary folder (it had the hosts' scratch folders)."""
    server, url = served_alone
    tables = [_post(url + "api/tables", {})[1]["table"] for _ in range(3)]
    moves = [
        threading.Thread(
            target=_post, args=(f"{url}api/tables/{t}/move", {"side": "never.py", "pos": "", "time": 60}, 60)
        )
        for t in tables
    ]
    for move in moves:
        move.start()
    until(lambda: len(_asleep(server.pid)) == 3, timeout=60)  # each host is in never.py's sleep
    assert sum(state != "Z" for _, state in _tree(server.pid).values()) >= 1 + 3 * 2
    left, tmp = set(_tree(server.pid)), tmp_path / "tmp"
    assert any(path.name.startswith("connectx-scratch-") for path in tmp.iterdir())
    began = time.monotonic()
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pytest.fail("connectx serve did not stop within 5 s of Ctrl-C")
    assert server.returncode == 0 and time.monotonic() - began < 5
    for move in moves:
        move.join(timeout=10)
    until(lambda: not any(alive(pid) for pid in left))
    assert list(tmp.iterdir()) == []
    assert server.stdout.read().strip() == "stopped"
