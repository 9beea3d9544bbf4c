"""The board to play on in a notebook (connectx.playing.BoardWidget), its kernel side without a
browser: the front end's messages simulated, the agent's replies from its sandboxed host, undo,
forfeits in the tournament's words, and no process, thread or folder left after it closes or its
kernel is killed. (tests/test_notebooks_browser.py clicks it in JupyterLab.)"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from connectx.boards import Board, solve
from tournament.scratch import Scratch


def _send(widget, **content):
    widget._message(widget, content, [])


def _cmdline(pid: int) -> bytes:
    """The command line of the process ``pid``, once its exec has set it (an exec under way shows
    none for a moment)."""
    deadline = time.monotonic() + 10
    while True:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            line = file.read()
        if line or time.monotonic() > deadline:
            return line
        time.sleep(0.01)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended: one that ended and waits to be reaped (a
    zombie) has ended. A pytest worker that played games is a child subreaper
    (:func:`tournament.sandbox.become_subreaper`), so the processes of a killed kernel end as its
    zombies: those it reaps here."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            state = file.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    if state != "Z":
        return True
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    return False


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` that have not ended (:func:`_running`)."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in os.listdir(f"/proc/{parent}/task") if os.path.isdir(f"/proc/{parent}/task") else ():
            try:
                with open(f"/proc/{parent}/task/{task}/children") as file:
                    children = {int(child) for child in file.read().split()}
            except OSError:
                continue
            todo.extend(children - found)
            found |= children
    return {child for child in found if _running(child)}


def _left(before: set[int]) -> dict[int, str]:
    """The descendants of this process running now that were not in ``before``, with their command
    lines (what an assertion that none is left shows when one is)."""
    left = {}
    for pid in _descendants(os.getpid()) - before:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                left[pid] = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # ended meanwhile
    return left


SCRIPTED = """\
import os, time

def agent(obs, config):  # what it does hangs on the column Red played (the board's bottom row)
    column = obs.board[-config.columns:].index(1)
    if column == 0:
        return 0 if os.getpid() != {kernel} else 6  # column 1 from a process of its own, 7 from the kernel's
    if column == 1:
        time.sleep(60)
        return 0
    if column == 2:
        return "3"
    raise RuntimeError("boom")
"""
"""An agent whose answer depends on the column Red (the person) plays first: a move (from its own
process), a long think, an invalid move, an error."""


@pytest.fixture(scope="module")
def widget(tmp_path_factory):
    """One board against :data:`SCRIPTED` for the widget's tests (its fork server warms up once),
    each of which restarts it; closing it at the end leaves no process and no thread."""
    agent = tmp_path_factory.mktemp("agents") / "scripted.py"
    agent.write_text(SCRIPTED.format(kernel=os.getpid()))
    before = _descendants(os.getpid())
    made = Board().play(str(agent), first=True, time=100.0, scores=False)
    server = made._forks.pid
    assert b"from web.forkserver import serve" in _cmdline(server)  # spawned afresh: no fork of this process
    assert os.getsid(server) == server  # a session of its own: a kernel's interrupt does not reach it
    processes: set[int] = set()
    made.processes = processes  # what the tests saw running, checked after close
    yield made
    processes |= {server, *_descendants(server)}
    made.close()
    assert not any(_running(pid) for pid in processes)  # ended
    assert _left(before) == {}
    for thread in threading.enumerate():  # a solve under way ends on its own (seconds), then its thread
        if thread.name.startswith("connectx-"):
            thread.join(60)
            assert not thread.is_alive()


def _restarted(widget):
    _send(widget, type="restart")
    assert widget.wait(120) and widget.moves == [] and not widget.over
    return widget


def test_the_agent_replies_from_its_sandboxed_host_and_undo_takes_both_moves_back(widget):
    widget = _restarted(widget)
    agent = widget.agent
    assert widget.status == "Red (you) to move: click a column"
    _send(widget, type="play", column=9)  # not a column: ignored
    _send(widget, type="play", column=0)
    assert widget.moves == [0] and widget.thinking
    assert widget.status == f"Yellow ({agent}) is thinking…"
    _send(widget, type="play", column=2)  # not the person's turn: ignored
    assert widget.wait(120)
    assert widget.moves == [0, 0] and not widget.thinking  # column 1: not played in this process
    assert widget.status == "Red (you) to move: click a column"
    assert re.fullmatch(rf"{re.escape(agent)}'s move: \d+\.\d\d s · bank 60\.0 s", widget.clock)
    assert widget.scores == {}  # not asked for
    _send(widget, type="scores", on=True)
    assert widget.wait(120) and widget.scores_on and widget.scores["pos"] == "11"
    assert widget.scores["words"]["summary"] == solve("11").summary
    processes = _descendants(widget._forks.pid)  # the zygote and the agent's host
    assert widget._table.zygote in processes and len(processes) >= 2
    widget.processes |= processes
    _send(widget, type="undo")
    assert widget.moves == [] and not widget.thinking
    _send(widget, type="scores", on=False)
    assert not widget.scores_on
    _send(widget, type="nonsense")
    _send(widget, type="play", column="3")
    assert widget.moves == []


def test_undo_while_the_agent_thinks_cancels_its_move(widget):
    widget = _restarted(widget)
    _send(widget, type="play", column=1)
    deadline = time.monotonic() + 60
    while len(_descendants(widget._forks.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the zygote, then the agent's host, thinking
    assert widget.thinking
    began = time.monotonic()
    _send(widget, type="undo")
    assert widget.moves == [] and not widget.thinking
    assert widget.status == "Red (you) to move: click a column"
    assert widget.wait(30) and time.monotonic() - began < 30  # the host killed, not waited for
    assert widget.moves == []


def test_an_invalid_move_is_a_forfeit_said_in_the_tournaments_words(widget):
    widget = _restarted(widget)
    _send(widget, type="play", column=2)
    assert widget.wait(120)
    assert widget.over and widget.moves == [2]
    assert widget.status == (
        f"1-0 · {widget.agent} (Yellow) forfeited (invalid): mark 2 returned '3' "
        "(a str; an agent must return a Python int); Red (you) wins"
    )
    assert widget.detail == "mark 2 returned '3' (a str; an agent must return a Python int)"
    _send(widget, type="play", column=4)  # the game is over: ignored
    assert widget.moves == [2]
    _send(widget, type="undo")  # the forfeit and the move before it taken back
    assert not widget.over and widget.moves == [] and widget.detail == ""


def test_an_agent_that_raises_forfeits_with_its_error(widget):
    widget = _restarted(widget)
    _send(widget, type="play", column=3)
    assert widget.wait(120)
    assert widget.over and widget.status == (
        f"1-0 · {widget.agent} (Yellow) forfeited (error): mark 2 raised RuntimeError: boom; Red (you) wins"
    )


def test_a_bad_agent_or_a_finished_game_is_refused_before_any_process_starts():
    before = _descendants(os.getpid())
    with pytest.raises(ValueError, match="did you mean 'negamax'"):
        Board().play("negamx")
    with pytest.raises(ValueError, match="agent file not found"):
        Board().play("missing.py")
    with pytest.raises(ValueError, match="42 is not an agent"):
        Board().play(42)
    with pytest.raises(ValueError, match="cannot be sent to its sandbox"):
        lock = threading.Lock()
        Board().play(lambda obs, config: lock.locked())
    with pytest.raises(ValueError, match="the game '4455667' is over"):
        Board("4455667").play("negamax")
    with pytest.raises(ValueError, match="time must be more than 0"):
        Board().play("negamax", time=0)
    assert _left(before) == {}


def test_the_front_end_is_one_module_holding_the_board_pages_rules(tmp_path):
    from connectx.playing import BoardWidget

    module = BoardWidget._esm
    assert "export function outcome(" in module and "export function showScores(" in module
    assert "export default { render }" in module and not re.search(
        r"^import ", module, re.M
    )  # nothing fetched
    for selector in (
        "connectx-status",
        "connectx-grid",
        "dataset.column",
        "connectx-undo",
        "connectx-scores-toggle",
    ):
        assert selector in module
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the module's syntax is not checked")
    path = tmp_path / "board_widget.mjs"
    path.write_text(module)
    checked = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_an_agent_moving_first_is_asked_at_once_and_a_kernel_killed_meanwhile_leaves_no_process(
    tmp_path, monkeypatch
):
    # The kernel's scratch folders go to a temporary directory of this test's, where no other test's
    # scratch sweeps the killed kernel's folder before this one does.
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    agent = tmp_path / "slow.py"
    agent.write_text("import time\ndef agent(obs, config):\n    time.sleep(60)\n    return 0\n")
    script = (
        "import sys, time\n"
        "from connectx.boards import Board\n"
        f"widget = Board().play({str(agent)!r}, first=False, time=100.0, scores=False)\n"
        "print(widget.status, flush=True)\n"
        "while not widget._table.zygote:\n"
        "    time.sleep(0.05)\n"
        "print(widget._forks.pid, widget._folder.path, flush=True)\n"
        "time.sleep(600)\n"
    )
    kernel = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert kernel.stdout.readline() == f"Red ({agent}) is thinking…\n"  # type: ignore[union-attr]
        pid, folder = kernel.stdout.readline().split()  # type: ignore[union-attr]
        server = int(pid)
        deadline = time.monotonic() + 60
        while len(processes := _descendants(server)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # the zygote, then the agent's host
        assert len(processes) >= 2
    finally:
        kernel.kill()
        kernel.wait()
    deadline = time.monotonic() + 30
    while any(_running(pid) for pid in {server, *processes}) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in {server, *processes} if _running(pid)]
    assert os.path.isdir(folder) and Path(folder).parent == private
    Scratch("test").close()  # the next scratch folder made on the machine sweeps the killed kernel's
    assert not os.path.exists(folder)


def test_a_function_from_a_cell_plays_from_its_host_and_its_pickle_goes_with_the_board():
    kernel, columns = os.getpid(), np.array([6, 0])

    def my_agent(obs, config):  # a closure over a numpy array, as a notebook cell writes it
        import os

        return int(columns[0] if os.getpid() == kernel else columns[1])

    widget = Board("4").play(my_agent, first=True, scores=False)
    folder = Path(widget._folder.path)
    try:
        assert widget._spec == str(folder / "agents" / "my_agent.pkl")
        assert widget.agent == "my_agent" and widget.status == "Yellow (my_agent) is thinking…"
        assert widget.wait(120) and widget.moves == [3, 0]  # column 1: played in its host, not here
    finally:
        widget.close()
    assert not folder.exists()
