"""``connectx serve`` in a real browser: Playwright drives Debian's Chromium (pytest-playwright's
``browser``, launched as ``tests/conftest.py`` says) against one server started as a user starts it,
``connectx serve DIR --port 0``, shared by the module's tests.

DIR holds a run made by hand with the store API (three agents, a made-up move analysis) for the
replays, and one of five agents with long names that a phone shows: at 390 CSS pixels wide (an
iPhone's), the index, a run's page and a replay fit the screen, with no horizontal scroll of the page
(a table wider than the screen scrolls inside its own box), and the replay's move list shows each
move's time. The agents play at 0.5 s a move. The tests skip, saying why, where no Chromium is on PATH.
"""

from __future__ import annotations

import os
import random
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.engine.solver import analyse
from agents.kit.clock import Clock
from benchmarks.browser import find_chromium, watch
from reports.exact import summary
from reports.render.documents import write_documents
from reports.report import load
from reports.stats.analysis import Analysis
from tests.records import judged_moves, settings_for, synthetic_records
from tournament.call import bank_left
from tournament.store import Store

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium on PATH (apt-get install -y chromium; .ci/run does)"
)

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ("leftmost", "negamax", "random")
DISCS = "document.querySelectorAll('#board .cell.p1, #board .cell.p2').length"
STATUS = "document.getElementById('status').textContent"
MY_TURN_OR_OVER = f"/click a column$|^(1-0|0-1|½-½)/.test({STATUS})"
PHONE = {"width": 390, "height": 844}
LONG_NAMES = ("kaggle-negamax", "minimax:depth=3", "network:search=none", "one_step", "random")
"""The agents of the run a phone shows: long names, as the default round robin's, and a crosstable of five."""
WIDTH = "document.documentElement.scrollWidth"
RUN = "runs/a-run-with-a-long-name"


def start(root: Path, tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """``connectx serve root --port 0`` with its temporary folder ``tmp``: the process and its URL."""
    env = {**os.environ, "TMPDIR": str(tmp)}
    command = [sys.executable, "-m", "connectx", "serve", str(root), "--port", "0", *extra]
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(server.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=60):
            server.kill()
            pytest.fail("connectx serve printed no address within 60 s")
    line = server.stdout.readline()
    match = re.search(r"at (http://\S+/) ", line)
    assert match, (line, server.stderr.read() if server.poll() is not None else "")
    return server, match.group(1)


def stop(server: subprocess.Popen[str]) -> int:
    """Ctrl-C the server and wait for it (20 s at most); its exit status."""
    server.send_signal(signal.SIGINT)
    try:
        return server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        pytest.fail("connectx serve did not stop within 20 s of Ctrl-C")


def processes() -> dict[int, tuple[int, str]]:
    """Every process of the machine: its parent and state (``proc(5)``: ``Z`` a zombie)."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            table[int(entry)] = (int(fields[1]), fields[0])
    return table


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (from /proc)."""
    parents: dict[int, list[int]] = {}
    for child, (ppid, state) in processes().items():
        if state != "Z":
            parents.setdefault(ppid, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def parent(pid: int) -> int:
    """The parent of process ``pid`` (``proc(5)``), 0 once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except OSError:
        return 0


def zombies(pid: int) -> set[int]:
    """The children of ``pid`` and of its descendants that have ended and are not reaped."""
    below = {pid, *descendants(pid)}
    return {child for child, (ppid, state) in processes().items() if state == "Z" and ppid in below}


def until(condition, timeout: float = 20.0, every: float = 0.05):
    """Wait for ``condition()`` to be true (its value), failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(every)
    pytest.fail(f"still not true after {timeout} s: {condition}")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A server of a folder holding the run ``made`` (18 games of leftmost, negamax and random, judged
    by a made-up analysis) and the run :data:`RUN` (2 game pairs a pairing of :data:`LONG_NAMES`):
    ``(url, root, records, process)``."""
    root = tmp_path_factory.mktemp("served")
    records = synthetic_records(AGENTS, 3)
    with Store.create(root / "made", settings_for(AGENTS, 3)) as store:
        for record in records:
            store.add(record)
    Analysis(judged_moves(records)).write(root / "made" / "moves.csv")
    with Store.create(root / RUN.split("/")[1], settings_for(LONG_NAMES, 2)) as store:
        for record in synthetic_records(LONG_NAMES, 2):
            store.add(record)
    server, url = start(root, tmp_path_factory.mktemp("tmp"))
    yield url, root, records, server
    if server.poll() is None:
        stop(server)


@pytest.fixture
def errors(page):
    """The console errors and uncaught exceptions of pytest-playwright's ``page``; none at the end."""
    found = watch(page)
    yield found
    assert found == []


def click(page, column: int) -> None:
    page.click(f'#board .cell[data-column="{column}"] >> nth=0')


def test_a_game_against_negamax_is_lost_by_clicking(page, errors, served):
    """The person loses; negamax's bank is Kaggle's 60 s less what each of its moves took beyond the
    0.5 s (``tournament.call.bank_left``), whatever the machine's load made them take, and the page
    shows the last move's time and bank as the server answered them."""
    url, answers = served[0], []
    page.on("response", lambda r: answers.append(r) if re.search(r"/api/tables/[^/]+/move$", r.url) else None)
    page.goto(f"{url}board?first=human&second=negamax&time=0.5")
    for _ in range(21):  # the person plays the leftmost column that is not full: negamax wins
        page.wait_for_function(MY_TURN_OR_OVER)
        if page.evaluate(STATUS)[:3] in ("1-0", "0-1", "½-½"):
            break
        heights = page.evaluate("Array.from(document.querySelectorAll('#board .cell')).map(c => c.className)")
        click(page, next(c for c in range(7) if "p" not in heights[c].replace("cell", "")))
    assert page.evaluate(STATUS) == "0-1 · Yellow (negamax) wins with 4 in a row"
    moves = [answer.json() for answer in answers]
    assert len(moves) == page.evaluate(DISCS) // 2 and all(m["forfeit"] is None for m in moves)
    for made, move in enumerate(moves, 1):  # the answers' rounding: seconds to 4 decimals, the bank to 3
        bank = bank_left(Clock(0.5, 60.0), [m["seconds"] for m in moves[:made]])
        assert abs(move["bank"] - bank) <= 0.0005 + 0.00005 * made + 1e-9, (made, moves)
    shown = re.fullmatch(r"its move: (\d+\.\d\d) s · bank (\d+\.\d) s", page.text_content("#clock2"))
    assert shown and abs(float(shown[1]) - moves[-1]["seconds"]) <= 0.005 + 1e-9
    assert abs(float(shown[2]) - moves[-1]["bank"]) <= 0.05 + 1e-9
    assert "first=human&second=negamax&time=0.5" in page.url


def test_a_game_against_random_is_won_by_playing_the_best_column(page, errors, served):
    url = served[0]
    page.goto(f"{url}board?first=human&second=random&time=0.5")
    for _ in range(22):  # perfect play by the scores shown: the first player wins
        page.wait_for_function(MY_TURN_OR_OVER)
        if page.evaluate(STATUS)[:3] in ("1-0", "0-1", "½-½"):
            break
        moves = re.search(r"pos=(\d*)", page.url).group(1)
        page.wait_for_selector(f'#scores[data-pos="{moves}"]')
        chips = "Array.from(document.querySelectorAll('#scores .score'))"
        best = page.evaluate(f"{chips}.findIndex(c => c.classList.contains('best'))")
        click(page, best)
    assert page.evaluate(STATUS) == "1-0 · Red wins with 4 in a row"
    assert page.evaluate(DISCS) % 2 == 1


PLIES = ([38, 34, 30, 26, 22, 18, 14, 12, 8, 5, 3], [36, 32, 28, 20, 16, 13, 6, 4, 2])
"""The plies shown of each of two random lines, 20 positions in all: 6 early (2-8 stones), 7 mid
(12-22), 7 late (26-38)."""


def lines(seed: int = 7) -> list[str]:
    """Two lines of random moves, one for each list of :data:`PLIES`, the game on at each of its plies
    (no move wins at once, none fills the board)."""
    rng, found = random.Random(seed), []
    from agents.engine.board import Board

    for plies in PLIES:
        while True:
            board = Board()
            for _ in range(plies[0]):
                safe = [c for c in board.legal_moves() if not board.is_winning_move(c)]
                if not safe:
                    break
                board.push(rng.choice(safe))
            if board.ply == plies[0] and not board.is_game_over():
                found.append("".join(str(c + 1) for c in board.moves))
                break
    return found


def test_the_scores_shown_are_the_solvers(page, errors, served):
    """Each line is opened once, at its last ply, and taken back a move at a time (Undo): the scores
    shown at each ply of :data:`PLIES` are the solver's."""
    url, checked = served[0], []
    for line, plies in zip(lines(), PLIES, strict=True):
        page.goto(f"{url}board?pos={line}&first=human&second=human")
        for ply in range(len(line), plies[-1] - 1, -1):
            moves = line[:ply]
            if ply < len(line):
                page.click("#undo")
            page.wait_for_selector(f'#scores[data-pos="{moves}"]')
            if ply not in plies:
                continue
            shown = page.evaluate(
                "Array.from(document.querySelectorAll('#scores .score'))"
                ".map(c => c.dataset.score === undefined ? null : Number(c.dataset.score))"
            )
            assert shown == analyse(moves), moves
            best = page.evaluate(
                "Array.from(document.querySelectorAll('#scores .score.best'))"
                ".map(c => Number(c.dataset.score))"
            )
            assert best and set(best) == {max(s for s in shown if s is not None)}
            said = summary(shown, len(moves), 42)  # the server's words, as connectx solve -a says them
            assert page.text_content("#scores-line") == f"Perfect play: {said}"
            checked.append(ply)
    assert sorted(checked) == sorted(sum(PLIES, []))
    page.goto(f"{url}board?rows=5&columns=6&first=human&second=human")
    assert page.text_content("#scores-line").startswith("perfect-play scores are not available on this board")


def test_a_replay_link_lands_on_its_ply_and_continue_from_here_reproduces_it(page, errors, served):
    url, records = served[0], served[2]
    record = next(r for r in records if len(r.moves) >= 12 and r.opening and "negamax" in (r.first, r.second))
    ply = len(record.opening) + 5
    page.goto(f"{url}runs/made#game-{record.game_id}-ply-{ply}")
    assert page.text_content("#ply-label") == f"ply {ply} of {len(record.moves)}"
    assert page.evaluate(DISCS) == ply
    assert (
        page.evaluate("document.getElementById('values').hasAttribute('hidden')") is False
    )  # evaluation graph
    assert page.text_content("#judgement").startswith(f"Ply {ply}, ")  # the move's verdict
    page.click("#continue")
    page.wait_for_url(re.compile(r"/board\?"))
    expected = "".join(str(c + 1) for c in record.moves[:ply])
    assert re.search(r"pos=(\d*)", page.url).group(1) == expected
    page.wait_for_function(f"{DISCS} === {ply}")
    to_move, other = ("first", "second") if ply % 2 == 0 else ("second", "first")
    assert page.input_value(f"#{to_move}") == "human"
    assert page.input_value(f"#{other}") == (record.first if other == "first" else record.second)
    assert page.text_content("#notation") == expected


@pytest.mark.parametrize("path", ["", RUN, f"{RUN}#game-3-ply-5"])
def test_a_page_fits_a_phone_without_scrolling_sideways(page, served, path):
    page.set_viewport_size(PHONE)
    page.goto(served[0] + path)
    page.wait_for_load_state("load")
    assert page.evaluate(WIDTH) <= PHONE["width"], path


def test_the_replay_shows_every_moves_time_on_a_phone(page, served):
    page.set_viewport_size(PHONE)
    page.goto(f"{served[0]}{RUN}#game-3-ply-5")
    page.wait_for_selector("#moves li")
    fits = page.evaluate(
        "(() => { const box = document.getElementById('moves').getBoundingClientRect();"
        " return [...document.querySelectorAll('#moves li .t')]"
        ".map(t => t.getBoundingClientRect().right <= box.right); })()"
    )
    assert fits and all(fits)
    assert page.evaluate(WIDTH) <= PHONE["width"]


WRITER = """
import sys, time
from pathlib import Path
from tests.records import settings_for, synthetic_records
from tournament.store import Store

agents, signals = ("leftmost", "random"), Path(sys.argv[2])


def wait(name):
    while not (signals / name).exists():
        time.sleep(0.02)


records = synthetic_records(agents, 4)
with Store.create(Path(sys.argv[1]), settings_for(agents, 4)) as store:  # the run's lock, as a run holds it
    wait("go")  # the page is open
    for done, shown in ((0, 3), (3, 6), (6, 8)):
        for record in records[done:shown]:
            store.add(record)
        wait(f"seen-{shown}")  # the page showed that many games played while the run went on
"""
"""Another process playing a run of 8 games (``WRITER RUN SIGNALS``): once the file SIGNALS/go exists,
it stores them in three batches, as a run does when games end, 3, 6 and 8 in all, each once the page
has shown the one before (the file SIGNALS/seen-N), and ends the run once it has shown all 8."""

ROWS = (
    "Array.from(document.querySelectorAll('#{} tr')).slice(1).map(r => Array.from(r.cells, c => c.innerText))"
)


CHANGED = """(last) => {
  const text = document.getElementById("live-games").textContent, shown = text.split(" ")[0];
  return document.getElementById("live").checkVisibility() && text !== "" && shown !== last && text;
}"""
"""The games the live section shows (``"3 of 8"``), once it is visible and they are not ``last``; else
false."""


def test_a_run_in_progress_is_watched_to_its_final_standings(page, errors, served, tmp_path):
    url, root = served[0], served[1]
    out = root / "live"
    command = [sys.executable, "-c", WRITER, str(out), str(tmp_path)]
    run = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        until(lambda: (out / "tournament.db").is_file())
        page.goto(f"{url}runs/live")
        (tmp_path / "go").write_text("")
        seen: list[int] = []
        while not (seen and seen[-1] == 8):  # each change of the games shown, looked for in the page
            last = str(seen[-1]) if seen else ""
            text = page.wait_for_function(CHANGED, arg=last, polling=50, timeout=30_000).json_value()
            seen.append(int(text.split()[0]))
            if seen[-1] == 8:  # the last games and standings shown while it played, before it ends
                last_shown, live = text, page.evaluate(ROWS.format("live-standings"))
            (tmp_path / f"seen-{seen[-1]}").write_text("")
        assert run.wait(timeout=30) == 0, run.stderr.read()
    finally:
        if run.poll() is None:
            run.kill()
    assert len(set(seen)) >= 3 and seen == sorted(seen) and seen[-1] == 8  # the games shown grew
    assert "8 of 8" in last_shown  # read before the run ended: the page then reloads as its report
    page.wait_for_selector("#standings-table")  # the run has ended: the page is its report
    assert not page.locator("#live").is_visible()
    write_documents(load(out), out)  # what `connectx report` writes
    report = page.context.new_page()
    report.goto(f"{url}files/live/report.html")
    final = report.evaluate(ROWS.format("standings-table"))
    assert page.evaluate(ROWS.format("standings-table")) == final == live
    assert "8 played of 8 scheduled" in page.text_content("header.top")


def test_two_tabs_play_at_once_and_closing_a_tab_ends_its_agents(browser, served):
    url, server = served[0], served[3]
    context = browser.new_context()
    tabs = [context.new_page() for _ in range(2)]
    found = [watch(tab) for tab in tabs]
    for tab in tabs:
        tab.goto(f"{url}board?first=human&second=negamax&time=0.5")
    before = descendants(server.pid)
    for tab in tabs:
        click(tab, 3)  # both tabs' agents think at once
    for tab in tabs:
        tab.wait_for_function(f"{DISCS} === 2 && {MY_TURN_OR_OVER}")
    playing = descendants(server.pid) - before  # the two tables' zygotes and hosts
    forkserver = {pid for pid in before if parent(pid) == server.pid}  # started first: web.forkserver
    zygotes = {pid for pid in playing if parent(pid) in forkserver}
    assert len(forkserver) == 1 and len(zygotes) == 2
    tabs[0].close(run_before_unload=True)
    until(lambda: len(zygotes & descendants(server.pid)) == 1)  # that tab's zygote and its hosts are gone
    until(lambda: not zombies(server.pid), timeout=2)  # and reaped at once: no <defunct> stays
    left = descendants(server.pid) & playing
    click(tabs[1], 3)  # the other tab plays on
    tabs[1].wait_for_function(f"{DISCS} === 4 && {MY_TURN_OR_OVER}")
    tabs[1].close(run_before_unload=True)
    until(lambda: not (left & descendants(server.pid)))
    assert found == [[], []]
    context.close()
