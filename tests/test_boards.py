"""connectx.Board, connectx.solve and the board widget (connectx.boards, connectx.board_html,
connectx.playing): the drawing, the scores against ``connectx solve`` on Pons' positions, bad
positions, and the widget's kernel side without a browser (its messages simulated)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from agents.engine.board import ColumnFullError, GameOverError, NotAColumnError
from connectx.boards import Board, solve
from connectx.cli import main
from tournament.scratch import Scratch

PONS = Path(__file__).parent / "data" / "pons"
MISBEHAVING = Path(__file__).parent / "misbehaving"


class _Cells(HTMLParser):
    """The SVG's cells: ``(row, column) -> class`` (p1, p2 or empty), and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[int, int], str] = {}
        self.rings: dict[tuple[int, int], str] = {}
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        if tag == "circle":
            cell = (int(found["data-row"] or ""), int(found["data-column"] or ""))
            self.cells[cell] = found["class"] or ""
            self.rings[cell] = found.get("stroke") or ""


def _cells(board: Board) -> _Cells:
    parser = _Cells()
    parser.feed(board._repr_html_())
    return parser


def _pons(name: str, count: int) -> list[tuple[str, int]]:
    lines = (PONS / name).read_text().splitlines()[:count]
    return [(moves, int(score)) for moves, score in (line.split() for line in lines)]


# --- drawing --------------------------------------------------------------------------------


def test_the_stones_are_drawn_in_their_cells_row_0_on_top_as_kaggle_counts_them():
    board = Board("4453")
    cells = _cells(board).cells
    assert len(cells) == 42
    stones = {cell: kind for cell, kind in cells.items() if kind != "empty"}
    # Red's 4 and 5 on the bottom row (row 5), Yellow's 4 above Red's, Yellow's 3 on the bottom row.
    assert stones == {(5, 3): "p1", (4, 3): "p2", (5, 4): "p1", (5, 2): "p2"}
    kaggle = board.kaggle
    assert all(cells[r, c] == (f"p{kaggle[r * 7 + c]}" if kaggle[r * 7 + c] else "empty") for r, c in cells)


def test_another_board_is_drawn_in_its_own_shape():
    board = Board("1223", rows=3, columns=5, inarow=3)
    cells = _cells(board).cells
    assert len(cells) == 15 and max(cells) == (2, 4)
    assert {cell for cell, kind in cells.items() if kind == "p1"} == {(2, 0), (1, 1)}
    assert {cell for cell, kind in cells.items() if kind == "p2"} == {(2, 1), (2, 2)}


def test_the_last_stone_and_a_winning_line_are_marked():
    drawn = _cells(Board("4455667"))
    assert {cell for cell, ring in drawn.rings.items() if ring == "#000"} == {(5, 3), (5, 4), (5, 5), (5, 6)}
    last = _cells(Board("4453"))
    assert {cell for cell, ring in last.rings.items() if ring} == {(5, 2)}


def test_the_html_is_self_contained_plain_html():
    html = Board("4453", scores=True)._repr_html_()
    drawn = _cells(Board("4453", scores=True))
    assert not drawn.tags & {"script", "style", "link", "img", "iframe"}
    assert re.findall(r"https?://[^\"']*", html) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only
    assert "4453 · Red to move" in html


def test_the_scores_are_drawn_under_the_columns_with_their_words():
    html = Board("4453", scores=True)._repr_html_()
    assert re.findall(r'class="score"[^>]*data-score="(-?\d+)"', html) == [
        "-5",
        "-5",
        "-2",
        "-3",
        "-4",
        "-2",
        "-2",
    ]
    assert "loses in 18" in html and "Yellow wins with its 20th stone" in html
    assert "Perfect play: Red loses whatever it plays; columns 3, 6 or 7 hold out longest" in html
    assert "data-score" not in Board("4453")._repr_html_()
    assert Board("4453").scored() == Board("4453", scores=True)
    assert Board("4453").scored().show_scores


def test_a_full_column_has_no_score_chip():
    html = Board("444444", scores=True)._repr_html_()
    assert html.count('class="score full"') == 1
    assert re.findall(r'data-score="(-?\d+)"', html) == ["-1", "0", "1", "1", "0", "-1"]


def test_the_repr_is_a_text_board_for_a_terminal():
    assert repr(Board("4453")).splitlines() == [
        "Board('4453')",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . O . . .",
        ". . O X X . .",
        "1 2 3 4 5 6 7",
    ]
    scored = repr(Board("4453", scores=True)).splitlines()
    assert scored[0] == "Board('4453', scores=True)"
    assert scored[-2:] == [
        "scores: -5 -5 -2 -3 -4 -2 -2",
        "Red loses whatever it plays; columns 3, 6 or 7 hold out longest (Yellow wins with its 20th stone).",
    ]
    assert (
        repr(Board("12", rows=3, columns=4, inarow=3)).splitlines()[0]
        == "Board('12', rows=3, columns=4, inarow=3)"
    )


def test_a_finished_game_draws_its_end_and_has_no_scores():
    board = Board("4455667", scores=True)
    assert board.winner == 1 and board.is_game_over() and board.legal_moves() == []
    assert "4455667 · Red wins with 4 in a row" in board._repr_html_()
    with pytest.raises(GameOverError, match="invalid position '4455667': the position is already won"):
        board.scores()


# --- perfect play ---------------------------------------------------------------------------


def test_the_scores_are_those_of_connectx_solve_on_pons_positions(capsys):
    for moves, score in _pons("Test_L2_R1.head", 4) + _pons("Test_L1_R1.head", 2):
        solved = Board(moves).scores()
        assert solved.score == score, moves
        assert main(["solve", "-a", moves]) == 0
        printed = capsys.readouterr().out.split("  ")[0].split()[1:]
        assert printed == ["-" if s is None else str(s) for s in solved.scores or ()], moves
        assert solved.best == tuple(c + 1 for c, s in enumerate(solved.scores or ()) if s == score)


def test_solve_gives_the_value_the_best_columns_and_the_words():
    solved = solve("4453")
    assert (solved.position, solved.ply, solved.cells, solved.score) == ("4453", 4, 42, -2)
    assert solved.scores == (-5, -5, -2, -3, -4, -2, -2) and solved.best == (3, 6, 7)
    assert solved.words == "Red (mark 1) to move loses: Yellow wins with its 20th stone"
    assert solved.summary == (
        "Red loses whatever it plays; columns 3, 6 or 7 hold out longest (Yellow wins with its 20th stone)."
    )
    assert solved.columns[2] == (
        "loses in 18",
        "Red loses: Yellow wins with its 20th stone, its 18th move from now",
    )
    assert solved.nodes > 0 and solved.seconds >= 0
    alone = solve("4453", analyse=False)
    assert alone.score == -2 and alone.scores is None and alone.best == () and alone.summary is None
    weak = solve("4453", weak=True)
    assert weak.score == -1 and weak.words == "Red (mark 1) to move loses" and weak.columns == ()


def test_solve_works_on_another_board():
    solved = solve("", rows=3, columns=4, inarow=3)
    assert solved.cells == 12 and len(solved.scores or ()) == 4


@pytest.mark.parametrize(
    "position,error,message",
    [
        ("449", NotAColumnError, "invalid position '449': move 3 '9' is not a column digit 1-7"),
        ("44x", NotAColumnError, "invalid position '44x': move 3 'x' is not a column digit 1-7"),
        ("44444444", ColumnFullError, "invalid position '44444444': move 7: column 4 is full"),
        ("445566778", GameOverError, "invalid position '445566778': move 8 '7' comes after the game was won"),
    ],
)
def test_a_bad_position_is_one_sentence_naming_the_move(position, error, message):
    for make in (Board, solve):
        with pytest.raises(error) as raised:
            make(position)
        assert str(raised.value) == message and isinstance(raised.value, ValueError)


def test_solve_refuses_a_position_already_over():
    with pytest.raises(ValueError, match="invalid position '4455667': the position is already won"):
        solve("4455667")


def test_other_bad_input():
    with pytest.raises(TypeError, match="a position is a str of column digits"):
        Board(4453)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="perfect-play scores are not available on this board"):
        Board("12", rows=4, columns=5, scores=True)
    assert Board("10 3", rows=4, columns=12).position == "10 3"


# --- the widget's kernel side ----------------------------------------------------------------


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


def _descendants(pid: int) -> set[int]:
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
    return found


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
    processes: set[int] = set()
    made.processes = processes  # what the tests saw running, checked after close
    yield made
    processes |= {server, *_descendants(server)}
    made.close()
    assert not any(os.path.exists(f"/proc/{pid}") for pid in processes)  # ended and reaped
    assert _descendants(os.getpid()) == before
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
    assert _descendants(os.getpid()) == before


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


def test_an_agent_moving_first_is_asked_at_once_and_a_kernel_killed_meanwhile_leaves_no_process(tmp_path):
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
    while any(os.path.exists(f"/proc/{pid}") for pid in {server, *processes}) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in {server, *processes} if os.path.exists(f"/proc/{pid}")]
    assert os.path.isdir(folder)
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
