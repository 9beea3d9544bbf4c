"""The web server's parts without a browser: which paths and agents it takes, its tables (agents in
sandboxed hosts), saving a game, the runs it lists and their progress, and the app's refusals
(Starlette's test client: 4xx with one sentence, and the server serves on). The browser's side is
``tests/test_web_browser.py``."""

from __future__ import annotations

import os
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agents.engine.board import Board
from agents.registry import SpecError
from tests.records import game_record, settings_for, synthetic_records
from tournament.record import Termination
from tournament.store import Store
from web import inputs
from web.app import create_app
from web.paths import Refused, inside
from web.runs import Runs, find
from web.saving import Game, SaveError, default_name, save
from web.specs import Specs
from web.tables import Cancelled, OpenTables, Table

MISBEHAVING = Path(__file__).parent / "misbehaving"


def test_inside_takes_names_under_the_root_and_refuses_every_way_out(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "run").mkdir(parents=True)
    outside.mkdir()
    (root / "out").symlink_to(outside, target_is_directory=True)
    (root / "in").symlink_to(root / "run", target_is_directory=True)
    root = root.resolve()
    assert inside(root, "run/report.md") == root / "run" / "report.md"
    assert inside(root, "in") == root / "run"  # a link that stays inside is followed
    for name in ("..", "../outside", "run/../..", "/etc/passwd", "", "a\\..\\b", "run\0"):
        with pytest.raises(Refused, match="is not a path inside the served folder"):
            inside(root, name)
    with pytest.raises(Refused, match="leads outside the served folder"):
        inside(root, "out/anything")


def test_inputs_read_boards_positions_and_times_and_say_what_is_wrong():
    assert inputs.board_of({}).size == 42
    assert inputs.board_of({"rows": "5", "columns": 6, "inarow": "4"}).columns == 6
    assert inputs.moves("4453", inputs.board_of({})) == (3, 3, 4, 2)
    assert inputs.position({"pos": "1212121"}).is_game_over()  # a finished game is a position
    assert inputs.act_timeout({"time": "0.25"}) == 0.25 and inputs.act_timeout({}) == 2.0
    refused = {
        "rows must be from 2 to 12, got 40": lambda: inputs.board_of({"rows": 40}),
        "columns must be a whole number, got '7.5'": lambda: inputs.board_of({"columns": "7.5"}),
        "inarow must be a whole number, got 'True'": lambda: inputs.board_of({"inarow": True}),
        "pos '12121212' is not a position on this board: move 8 '2' comes after the game was won": lambda: (
            inputs.position({"pos": "12121212"})
        ),
        "pos '8' is not a position on this board: move 1 '8' is not a column digit 1-7": lambda: (
            inputs.position({"pos": "8"})
        ),
        "pos must be at most 42 column digits": lambda: inputs.position({"pos": "1" * 43}),
        "time must be a finite number, got 'inf'": lambda: inputs.act_timeout({"time": "inf"}),
        "time must be more than 0 and at most 600 seconds, got 0": lambda: inputs.act_timeout({"time": 0}),
    }
    for message, read in refused.items():
        with pytest.raises(inputs.BadInput) as error:
            read()
        assert str(error.value).startswith(message)


def test_a_page_may_name_only_files_under_the_root_or_given_on_the_command_line(tmp_path):
    root, outside = tmp_path / "runs", tmp_path / "elsewhere"
    (root / "mine").mkdir(parents=True)
    outside.mkdir()
    (root / "mine" / "agent.py").write_text("def agent(obs, config):\n    return 0\n")
    (outside / "agent.py").write_text("def agent(obs, config):\n    return 0\n")
    (outside / "given.py").write_text("def agent(obs, config):\n    return 0\n")
    (outside / "weights.npz").write_bytes(b"not read")
    (root / "link.py").symlink_to(outside / "agent.py")
    specs = Specs(root.resolve(), (outside / "given.py",))
    assert specs.check("human") == "human"
    assert specs.check(" minimax:depth=2 ") == "minimax:depth=2"
    assert specs.check(str(root / "mine" / "agent.py")) == str(root / "mine" / "agent.py")
    assert specs.check(str(outside / "given.py")) == str(outside / "given.py")
    for spec in (str(outside / "agent.py"), str(root / "link.py"), f"lms:weights={outside / 'weights.npz'}"):
        with pytest.raises(
            SpecError, match="is not under the served folder .* and was not given with --agent"
        ):
            specs.check(spec)  # the weights are refused before lms could read them
    with pytest.raises(SpecError, match="did you mean 'negamax'"):
        specs.check("negamx")
    offered = [choice.spec for choice in specs.choices()]
    assert offered[:2] == ["random", "leftmost"] and "kaggle-negamax" in offered
    files = [spec for spec in offered if spec.endswith(".py")]
    assert files == [str(outside / "given.py"), "mine/agent.py"]  # not the link out; under DIR, from DIR
    assert specs.check("mine/agent.py") == str(root / "mine" / "agent.py")  # read from DIR, written whole


def test_a_table_plays_its_agents_in_hosts_judges_them_and_charges_their_bank(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef agent(obs, config):\n    time.sleep(0.3)\n    return 3\n")
    table = Table("t", seed=5)
    try:
        reply = table.move(str(slow), Board(), 0.1)  # 0.2 s over its actTimeout: from the bank
        assert reply.column == 3 and reply.forfeit is None and 0.3 <= reply.seconds < 5
        assert reply.bank == pytest.approx(60 - (reply.seconds - 0.1))
        second = table.move(str(slow), Board.from_moves([3, 0]), 0.1)
        assert second.bank == pytest.approx(reply.bank - (second.seconds - 0.1))
        key = (6, 7, 4, 0.1, 1, str(slow))
        assert table.bank(key, (3, 0)) == pytest.approx(reply.bank)  # before its second move
        assert table.bank(key, ()) == 60.0  # the line without its first move: nothing drawn
        assert table.played(str(slow), Board(), 0.1) == (3, reply.seconds)
        wrong = table.move(str(MISBEHAVING / "returns_str.py"), Board.from_moves([3]), 0.1)
        assert wrong.column is None and wrong.forfeit.termination == Termination.INVALID
        assert wrong.forfeit.detail == "mark 2 returned '3' (a str; an agent must return a Python int)"
        assert (
            table.forfeited(str(MISBEHAVING / "returns_str.py"), Board.from_moves([3]), 0.1) == wrong.forfeit
        )
        assert table.zygote == 0  # a forfeit ends the table's hosts
    finally:
        table.close()


def test_cancelling_a_move_ends_its_host_at_once_and_closing_the_table_ends_every_process():
    table = Table("t", seed=1)
    outcome: list[object] = []

    def think() -> None:
        try:
            outcome.append(table.move(str(MISBEHAVING / "never_returns.py"), Board(), 30.0))
        except Cancelled as cancelled:
            outcome.append(cancelled)

    thinking = threading.Thread(target=think)
    thinking.start()
    deadline = time.monotonic() + 20
    while table._thinking is None and time.monotonic() < deadline:
        time.sleep(0.01)
    zygote = table.zygote
    began = time.monotonic()
    table.cancel()
    thinking.join(timeout=10)
    assert isinstance(outcome[0], Cancelled) and time.monotonic() - began < 5
    assert not os.path.exists(f"/proc/{zygote}")  # the hosts went with their zygote
    assert table.move("leftmost", Board(), 1.0).column == 0  # the next move forks a fresh one
    table._thinking = table._seats[1][1]  # a cancel that came as the move answered: it kills that host
    table.cancel()
    table._thinking = None
    assert table.move("leftmost", Board(), 1.0).column == 0  # not its forfeit: fresh hosts again
    zygote = table.zygote
    table.close()
    assert table.zygote == 0 and not os.path.exists(f"/proc/{zygote}")


def test_tables_expire_when_their_tab_has_been_silent():
    tables = OpenTables(expiry=60.0, limit=2)
    first, second = tables.open(), tables.open()
    with pytest.raises(RuntimeError, match="2 boards are open already"):
        tables.open()
    second.touched = time.monotonic() - 61
    assert tables.expire() == [second.id]
    assert tables.ids() == [first.id] and second.closed
    with pytest.raises(KeyError):
        tables.get(second.id)
    assert tables.close(first.id) and not tables.close(first.id)


def _played(
    table: Table, first: str, second: str, humans: list[int], act_timeout: float = 1.0
) -> tuple[int, ...]:
    """A game on 4x5, 3 in a row: the person plays ``humans`` in turn, the agent at ``table``."""
    board = Board(4, 5, 3)
    sides = (first, second)
    while not board.is_game_over():
        side = sides[board.ply % 2]
        column = humans.pop(0) if side == "human" else table.move(side, board, act_timeout).column
        board.push(column)
    return board.moves


def test_a_game_played_at_a_table_is_saved_as_connectx_play_stores_one(tmp_path):
    table = Table("t", seed=3)
    try:
        moves = _played(table, "human", "leftmost", [4, 4, 4])  # the person wins on column 5
        game = Game("human", "leftmost", 4, 5, 3, 1.0, moves, 0, (0.5, 0.0, 1.5, 0.0, 2.5))
        assert default_name(game) == "played-human-leftmost-1s-4x5x3"
        run = tmp_path / default_name(game)
        assert save(game, run, table) == 0
        swapped = _played(table, "leftmost", "human", [4, 4, 4])
        opening = Game("leftmost", "human", 4, 5, 3, 1.0, swapped, 1, tuple(0.25 for _ in swapped[1:]))
        assert save(opening, run, table) == 1  # the other colour, from an opening of one move: same run
        with Store.open(run) as store:
            settings, records = store.settings(), store.records()
        assert settings.entrants == ("human", "leftmost") and settings.games == 1 and settings.gauntlet
        assert [r.moves for r in records] == [moves, swapped] and records[1].opening == swapped[:1]
        assert records[0].result == 1.0 and records[0].termination == Termination.WIN
        assert records[0].move_times[0::2] == (0.5, 1.5, 2.5)  # the person's, as the page measured
        made = table.played("leftmost", Board.from_moves([4], rows=4, columns=5, inarow=3), 1.0)
        assert made == (
            moves[1],
            records[0].move_times[1],
        )  # the agent's move and time, as the table had them
        refusals = {
            "the game is not over": Game("human", "leftmost", 4, 5, 3, 1.0, moves[:2], 0, (0.5, 0.0)),
            "move 2 was not played by leftmost on this board": Game(
                "human", "leftmost", 4, 5, 3, 1.0, (4, 1, 4, 1, 4), 0, (0.0,) * 5
            ),
            "holds games of other sides, another board or time a move": Game(
                "human",
                "leftmost",
                4,
                5,
                3,
                2.0,
                _played(table, "human", "leftmost", [4, 4, 4], 2.0),
                0,
                (0.0,) * 5,
            ),
            "both sides are leftmost": Game("leftmost", "leftmost", 4, 5, 3, 1.0, moves, 0, (0.0,) * 5),
            "is not a number of seconds": Game(
                "human", "leftmost", 4, 5, 3, 1.0, moves, 0, (float("nan"),) * 5
            ),
        }
        for message, bad in refusals.items():
            with pytest.raises(SaveError, match=message):
                save(bad, run, table)
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "notes.txt").write_text("mine")
        with pytest.raises(SaveError, match="other is a folder of other files, not a run"):
            save(game, tmp_path / "other", table)
        with Store.open(run) as store:
            assert len(store.records()) == 2  # the refusals stored nothing
    finally:
        table.close()


def test_the_runs_are_found_summed_up_and_followed_while_they_are_played(tmp_path):
    root = tmp_path / "runs"
    agents = ("alpha", "beta")
    records = synthetic_records(agents, 2)
    for name, count in (("a", 4), ("deep/b", 2), (".hidden/c", 2), ("x/y/z/too-deep", 2)):
        with Store.create(root / name, settings_for(agents, 2)) as store:
            for record in records[:count]:
                store.add(record)
    (root / "deep" / "out").symlink_to(tmp_path / "runs" / "a", target_is_directory=True)
    root = root.resolve()
    assert [path.relative_to(root).as_posix() for path in find(root)] == ["a", "deep/b"]
    now = datetime(2026, 1, 2, 3, 0, 10, tzinfo=UTC)
    runs = Runs(root, now=lambda: now)
    summaries = runs.summaries()
    assert [(s.name, s.games, s.scheduled, s.running) for s in summaries] == [
        ("a", 4, 4, False),
        ("deep/b", 2, 4, False),
    ]
    progress = runs.progress(root / "deep" / "b")
    assert progress.games == 2 and progress.scheduled == 4 and not progress.running and progress.eta is None
    assert [row["agent"] for row in progress.standings] == [
        s.agent for s in runs.report(root / "deep" / "b").standings
    ]
    assert [game["game"] for game in progress.latest] == [1, 0]
    with Store.create(root / "deep" / "b", settings_for(agents, 2)) as store:  # a run playing it
        more = records[2]
        started = now - timedelta(seconds=4)
        store.add(game_record(**{**_fields(more), "started_at": started.isoformat(), "duration": 1.0}))
        playing = runs.progress(root / "deep" / "b")
        assert playing.running and playing.games == 3 and playing.version != progress.version
        # 2 games ended since the first one did: 1 game to come takes half that time
        first = datetime.fromisoformat(records[0].started_at) + timedelta(seconds=records[0].duration)
        assert playing.eta == pytest.approx((now - first).total_seconds() / 2)
    assert not runs.progress(root / "deep" / "b").running


def _fields(record) -> dict:
    task = record.task
    return {
        "game_id": task.game_id, "pair_id": task.pair_id, "first": task.first, "second": task.second,
        "seed": task.seed, "opening": task.opening, "moves": record.moves, "move_times": record.move_times,
        "result": record.result, "termination": record.termination, "offender": record.offender,
        "detail": record.detail,
    }  # fmt: skip


@pytest.fixture
def client(tmp_path):
    root = tmp_path / "runs"
    agents = ("random", "leftmost")
    with Store.create(root / "made", settings_for(agents, 1)) as store:
        for record in synthetic_records(agents, 1):
            store.add(record)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not for the browser")
    (root / "link-out").symlink_to(outside, target_is_directory=True)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    app = create_app(root, hosts=("testserver",))
    app.state.server.ready.set()  # no warm-up here (no lifespan): nothing forks in these tests
    client = TestClient(app)
    client.outside = outside
    yield client
    app.state.server.tables.close_all()


def test_path_traversal_and_bad_input_get_4xx_with_a_sentence_and_the_server_serves_on(client):
    outside = client.outside
    refused = {
        "/files/..%2f..%2fetc/passwd": "is not a path inside the served folder",
        "/files/%2e%2e/%2e%2e/etc/passwd": "is not a path inside the served folder",
        "/files/%252e%252e/etc/passwd": "the served folder",
        "/files/link-out/secret.txt": "leads outside the served folder",
        "/files/secret-link.txt": "leads outside the served folder",
        "/files/made": "there is no file",
        "/runs/%2e%2e": "is not a path inside the served folder",
        "/runs/link-out": "leads outside the served folder",
        "/runs/nothing": "there is no run named 'nothing'",
        "/api/progress?run=..": "is not a path inside the served folder",
        "/static/..%2f..%2fapp.py": "Not Found",
        "/board?pos=4444444": "is not a position on this board",
        "/board?pos=12x": "is not a position on this board",
        "/board?second=negamx": "did you mean 'negamax'?",
        "/board?first=minimax:depht=2": "did you mean 'depth'?",
        f"/board?first={outside / 'secret.txt'}": "is not under the served folder",
        f"/board?first=lms:weights={outside / 'secret.txt'}": "is not under the served folder",
        "/board?time=-1": "time must be more than 0",
        "/board?time=nan": "time must be a finite number",
        "/board?rows=40": "rows must be from 2 to 12",
        "/api/scores?pos=0": "is not a position on this board",
        "/api/side?side=minimax:depth=x": "depth must be an integer",
    }
    for path, words in refused.items():
        answer = client.get(path)
        assert 400 <= answer.status_code < 500, (path, answer.status_code)
        text = answer.json()["error"] if path.startswith("/api/") else answer.text
        assert words.replace("'", "&#39;") in text or words in text, (path, text[-600:])
        assert "not for the browser" not in text
    answer = client.post("/api/tables", content="{}", headers={"Content-Type": "text/plain"})
    assert (
        answer.status_code == 415
        and answer.json()["error"] == "send JSON, with Content-Type: application/json"
    )
    assert client.post("/api/tables/nonsense/move", json={"side": "random"}).status_code == 410
    table = client.post("/api/tables", json={}).json()["table"]
    for body, status, message in (
        ({"side": "human", "pos": ""}, 400, "side must be an agent: a person moves by clicking"),
        ({"side": "random", "pos": "1212121"}, 400, "the game is over: no one moves"),
        ({"side": "random", "pos": "", "rows": 99}, 400, "rows must be from 2 to 12, got 99"),
    ):
        answer = client.post(f"/api/tables/{table}/move", json=body)
        assert (answer.status_code, answer.json()["error"]) == (status, message)
    assert (
        client.post(
            f"/api/tables/{table}/move", content="[1]", headers={"Content-Type": "application/json"}
        ).status_code
        == 400
    )
    answer = client.post(
        f"/api/tables/{table}/save", json={"first": "human", "second": "random", "pos": "", "name": "../x"}
    )
    assert answer.status_code == 400 and "is not a path inside the served folder" in answer.json()["error"]
    assert client.get("/", headers={"Host": "attacker.example"}).status_code == 400  # DNS rebinding
    page = client.get("/")
    assert page.status_code == 200 and 'href="/runs/made"' in page.text  # still serving
    assert (
        client.get("/api/scores?pos=44&rows=5&columns=6")
        .json()["reason"]
        .startswith("perfect-play scores are not available on this board")
    )


def test_the_board_page_and_solve_say_a_position_in_the_same_words(client, capsys):
    """/api/scores sends the words the page shows: the sentence ``connectx solve -a`` prints."""
    pytest.importorskip("bitbully_databases")
    from connectx.cli import main

    for moves in ("", "4453", "444444", "4444443"):
        answer = client.get(f"/api/scores?pos={moves}").json()
        assert main(["solve", "-a", moves]) == 0
        scores = " ".join("-" if score is None else str(score) for score in answer["scores"])
        assert capsys.readouterr().out == f"{moves} {scores}  {answer['words']['summary']}\n"
        if moves == "4453":
            assert answer["words"]["summary"] == (
                "Red loses whatever it plays; columns 3, 6 or 7 hold out longest "
                "(Yellow wins with its 20th stone)."
            )
            assert answer["words"]["columns"][2] == {
                "short": "loses in 18",
                "long": "Red loses: Yellow wins with its 20th stone, its 18th move from now",
            }
    assert answer["words"]["columns"][3] is None  # 4444443: column 4 is full


def test_serve_refuses_bad_input_in_one_line_before_it_starts(tmp_path, capsys):
    import socket

    from connectx.cli import main

    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    (tmp_path / "notes.txt").write_text("")
    with taken:
        for argv, message in (
            (
                [str(tmp_path / "missing")],
                f"{tmp_path / 'missing'} is not a folder: name the folder of runs to serve",
            ),
            ([str(tmp_path), "--port", "70000"], "--port must be >= 0 and <= 65,535, got 70000"),
            (
                [str(tmp_path), "--agent", str(tmp_path / "notes.txt")],
                f"--agent {tmp_path / 'notes.txt'}: not a .py file",
            ),
            (
                [str(tmp_path), "--port", str(port)],
                f"cannot listen on 127.0.0.1:{port}: Address already in use",
            ),
        ):
            with pytest.raises(SystemExit) as exit_:
                main(["serve", *argv])
            assert exit_.value.code == 2
            assert capsys.readouterr().err == f"connectx serve: error: {message}\n"
