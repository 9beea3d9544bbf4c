"""``connectx play``: the board drawing and the person's input as units, then the command through a
pseudo-terminal (pexpect): a move, bad input, undo, quit, Ctrl-C, a stored game that ``connectx
report`` replays, and a directory of other settings refused."""

from __future__ import annotations

import io
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from agents.engine.board import Board
from agents.kit.clock import Clock
from connectx.cli import main
from connectx.drawing import draw, stone, wants_colour, winning_stones
from connectx.human import HumanPlayer, Quit, Undo, column_of
from connectx.play import default_out
from tests.records import game_task
from tournament.schedule import HUMAN
from tournament.store import Store

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--rows", "4", "--columns", "4", "--inarow", "3"]
PROMPT = r"your move \(\S+\): column 1-4, u undo, q quit: "


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


# --- drawing ---------------------------------------------------------------------------------


def test_draw_plain_rows_top_first_over_column_numbers() -> None:
    board = Board.from_moves([0, 1, 0], rows=3, columns=4, inarow=3)
    assert draw(board, colour=False) == ". . . .\nX . . .\nX O . .\n1 2 3 4"


def test_draw_pads_cells_to_two_digit_column_numbers() -> None:
    lines = draw(Board.from_moves([9], rows=2, columns=10, inarow=2), colour=False).splitlines()
    assert lines[-1] == " 1  2  3  4  5  6  7  8  9 10"
    assert lines[1] == " .  .  .  .  .  .  .  .  .  X"
    assert len({len(line) for line in lines}) == 1


def test_draw_in_colour_colours_stones_only() -> None:
    text = draw(Board.from_moves([0, 1], rows=2, columns=2, inarow=2), colour=True)
    assert text.splitlines()[1] == f"{stone(1, colour=True)} {stone(2, colour=True)}"
    assert stone(1, colour=True) != stone(2, colour=True)
    assert "\x1b[" in stone(1, colour=True) and stone(1, colour=True).endswith("\x1b[0m")
    assert text.splitlines()[0] == ". ." and "\x1b" not in draw(Board(2, 2, 2), colour=False)


def test_winning_stones_are_the_line_or_lines_and_nothing_else() -> None:
    def line(moves: str) -> list[tuple[int, int]]:
        """(row from the top, column), 0-based, of the marked stones (board.py's bit layout)."""
        board = Board.from_moves(moves)
        marked, geo = winning_stones(board), board.geo
        cells = [(r, c) for r in range(geo.rows) for c in range(geo.columns)]
        return [(r, c) for r, c in cells if marked >> (c * geo.height + geo.rows - 1 - r) & 1]

    assert line("4455667") == [(5, 3), (5, 4), (5, 5), (5, 6)]  # along the bottom
    assert line("1213141") == [(2, 0), (3, 0), (4, 0), (5, 0)]  # up a column
    assert line("12233434544") == [(2, 3), (3, 2), (4, 1), (5, 0)]  # a diagonal
    assert line("1122667733554") == [(5, c) for c in range(7)]  # the last stone joins two threes: seven
    assert winning_stones(Board.from_moves("445566")) == 0 == winning_stones(Board())  # nobody has won
    full = Board.from_moves("1122", rows=2, columns=2, inarow=3)
    assert full.is_full() and winning_stones(full) == 0  # a draw


def test_a_won_board_marks_its_line_in_reverse_video_or_capitals_among_lowercase() -> None:
    board = Board.from_moves("1213121", rows=4, columns=3, inarow=4)  # X up column 1
    assert draw(board, colour=False) == "X . .\nX . .\nX o .\nX o o\n1 2 3"
    coloured = draw(board, colour=True).splitlines()
    won, other = "\x1b[1;7;31mX\x1b[0m", stone(2, colour=True)  # reverse video, and O as always
    assert coloured[0] == f"{won} . ." and coloured[3] == f"{won} {other} {other}"
    assert won != stone(1, colour=True)
    playing = Board.from_moves("121312", rows=4, columns=3, inarow=4)  # not won: nothing marked
    assert draw(playing, colour=False) == ". . .\nX . .\nX O .\nX O O\n1 2 3"


def test_colour_only_on_a_terminal_without_no_color() -> None:
    assert wants_colour(Stream(True), {"TERM": "xterm"})
    assert not wants_colour(Stream(False), {"TERM": "xterm"})
    assert not wants_colour(Stream(True), {"TERM": "xterm", "NO_COLOR": "1"})
    assert wants_colour(Stream(True), {"TERM": "xterm", "NO_COLOR": ""})  # empty: unset (no-color.org)
    assert not wants_colour(Stream(True), {"TERM": "dumb"})


# --- the person's input ----------------------------------------------------------------------


def test_column_of_reads_one_based_columns_and_refuses_the_rest() -> None:
    board = Board.from_moves([0, 0, 0, 0], rows=4, columns=4, inarow=3)
    assert column_of(" 2 ", board) == 1
    for answer, reason in (("x", "is not a column"), ("0", "no column 0"), ("5", "no column 5"),
                           ("1", "column 1 is full"), ("-1", "is not a column")):  # fmt: skip
        with pytest.raises(ValueError, match=reason):
            column_of(answer, board)
    with pytest.raises(Undo):
        column_of("u", board)
    with pytest.raises(Quit):
        column_of("Q", board)
    with pytest.raises(ValueError, match="nothing to undo"):
        column_of("undo", Board.from_moves([0], rows=4, columns=4, inarow=3))


def test_human_player_asks_again_until_a_legal_move() -> None:
    answers, said = iter(["nine", "9", "3"]), []
    player = HumanPlayer("X", ask=lambda prompt: next(answers), say=said.append)
    assert player.play(Board(), Clock()).column == 2
    assert len(said) == 2 and "not a column" in said[0] and "no column 9" in said[1]


def test_human_player_quits_at_end_of_input() -> None:
    def ask(prompt: str) -> str:
        raise EOFError

    with pytest.raises(Quit):
        HumanPlayer("X", ask=ask, say=lambda line: None).play(Board(), Clock())


# --- the command through a pseudo-terminal ---------------------------------------------------


def spawn(tmp_path: Path, *args: str, env: dict[str, str] | None = None, out: bool = True) -> pexpect.spawn:
    """``connectx play ARGS`` in ``tmp_path``, storing into ``tmp_path/games`` (``out``), else where
    it stores by default."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm"}
    environ.pop("NO_COLOR", None)
    environ.update(env or {})
    command = [sys.executable, "-m", "connectx", "play", *args, *(["--out", "games"] if out else [])]
    return pexpect.spawn(
        command[0],
        command[1:],
        cwd=tmp_path,
        env=environ,
        encoding="utf-8",
        timeout=60,
        preexec_fn=_default_ctrl_c,
    )


def _default_ctrl_c() -> None:
    """Ctrl-C as at a person's terminal: a suite started in the background by a non-interactive shell
    (a CI job, ``nohup ... &``) ignores SIGINT, every child inherits that, and Python then installs no
    ``KeyboardInterrupt`` handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus if child.exitstatus is not None else 128 + child.signalstatus


def test_play_shows_the_board_and_takes_a_move(tmp_path: Path) -> None:
    child = spawn(tmp_path, "one_step", "--first", env={"NO_COLOR": "1"})
    child.expect(r"\. \. \. \. \. \. \.\r\n1 2 3 4 5 6 7")  # the empty 6x7 board
    child.expect(PROMPT.replace("1-4", "1-7"))
    child.sendline("4")
    child.expect(r"4\r\nyou played 4\r\none_step \(O\) is thinking\.\.\.\r\n")  # no board in between
    bottom = r"[.O] [.O] [.O] X [.O] [.O] [.O]\r\n"  # the person's stone, drawn with the reply
    child.expect(bottom + r"1 2 3 4 5 6 7\r\none_step played \d in \d+\.\d\d s")
    child.expect(PROMPT.replace("1-4", "1-7"))
    child.sendline("q")
    child.expect("quit: this game is not stored")
    assert finish(child) == 0
    with Store.open(tmp_path / "games") as store:
        assert store.records() == []


def test_play_colours_stones_on_a_terminal(tmp_path: Path) -> None:
    child = spawn(tmp_path, "leftmost", *TINY)
    child.expect(PROMPT)
    child.sendline("2")
    child.expect("\x1b\\[1;31mX\x1b\\[0m")  # the person's stone, in colour
    child.sendeof()
    assert finish(child) == 0


def test_bad_input_asks_again_with_a_reason(tmp_path: Path) -> None:
    child = spawn(tmp_path, "leftmost", *TINY, env={"NO_COLOR": "1"})
    for answer, reason in (("abc", "'abc' is not a column: type 1-4"), ("7", "there is no column 7"),
                           ("u", "nothing to undo yet")):  # fmt: skip
        child.expect(PROMPT)
        child.sendline(answer)
        child.expect(reason)
    for _ in range(2):  # leftmost answers in column 1 too: it is full after two moves each
        child.expect(PROMPT)
        child.sendline("1")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("column 1 is full: choose another")
    child.expect(PROMPT)
    child.sendintr()
    assert finish(child) == 130


def test_each_board_is_drawn_once_and_the_last_marks_the_winning_line(tmp_path: Path) -> None:
    child = spawn(tmp_path, "leftmost", *TINY, env={"NO_COLOR": "1"})
    child.logfile_read = io.StringIO()
    for column in ("2", "3", "4"):  # three in a row along the bottom; leftmost stacks column 1
        child.expect(PROMPT)
        child.sendline(column)
    child.expect("you win")
    assert finish(child) == 0
    output = child.logfile_read.getvalue()
    # the empty board, then the board after each reply (the person's move with it), then the final one
    boards = re.findall(r"((?:[.XOxo](?: [.XOxo]){3}\r\n){4})1 2 3 4", output)
    assert boards[-1] == ". . . .\r\n. . . .\r\no . . .\r\no X X X\r\n"  # the line in capitals
    assert len(boards) == 4 == len(set(boards))
    assert output.count("you played") == 3 and output.count("leftmost played") == 2


def test_undo_takes_back_the_move_and_the_reply(tmp_path: Path) -> None:
    child = spawn(tmp_path, "leftmost", *TINY, env={"NO_COLOR": "1"})
    child.expect(PROMPT)
    child.sendline("4")
    child.expect("leftmost played 1")
    child.expect(PROMPT)
    child.sendline("u")
    child.expect(r"took back your last move and the reply\r\n(\. \. \. \.\r\n){4}1 2 3 4")
    for column in ("2", "3", "4"):  # three in a row along the bottom; leftmost stacks column 1
        child.expect(PROMPT)
        child.sendline(column)
    child.expect("you win")
    child.expect("stored as game 0")
    assert finish(child) == 0
    with Store.open(tmp_path / "games") as store:
        (record,) = store.records()
    assert record.moves == (1, 0, 2, 0, 3)  # the move taken back is not in the game
    assert (record.first, record.second, record.result) == (HUMAN, "leftmost", 1.0)
    assert len(record.move_times) == 5


def test_stored_games_are_appended_and_reported(tmp_path: Path) -> None:
    child = spawn(tmp_path, "leftmost", "--second", *TINY, env={"NO_COLOR": "1"})
    for column in ("2", "2"):  # leftmost (X) stacks column 1: three in a column on its third move
        child.expect(PROMPT)
        child.sendline(column)
    child.expect("leftmost wins")
    assert finish(child) == 0
    child = spawn(tmp_path, "leftmost", *TINY, env={"NO_COLOR": "1"})
    for column in ("2", "3", "4"):
        child.expect(PROMPT)
        child.sendline(column)
    child.expect("stored as game 1")
    assert finish(child) == 0
    with Store.open(tmp_path / "games") as store:
        records = store.records()
        assert store.settings().entrants == (HUMAN, "leftmost")
    assert [(r.first, r.result) for r in records] == [("leftmost", 1.0), (HUMAN, 1.0)]
    assert [r.pair_id for r in records] == [0, 1]  # each game a pair of its own
    assert [r.task.seed for r in records] == [3118038342, 3076692213]  # as before pair_seed (main at 430ffb7)
    assert main(["report", str(tmp_path / "games")]) == 0  # in this process: no terminal to test here
    html = (tmp_path / "games" / "report.html").read_text()
    assert "terminal play: a person against leftmost" in html and "2 played" in html
    assert "a person playing at the terminal" in html


def play_out(child: pexpect.spawn) -> str:
    """Play ``child``'s game to its end on 6x7, filling the columns from the left; the folder it was
    stored in."""
    column = 1
    while True:
        found = child.expect(
            [PROMPT.replace("1-4", "1-7"), "is full: choose another", r"stored as game \d+ in (\S+);"]
        )
        if found == 2:
            return str(child.match.group(1))
        if found == 1:
            column += 1
        else:
            child.sendline(str(column))


def test_a_newcomer_plays_again_and_another_agent_without_out(tmp_path: Path) -> None:
    # As the README's examples one after the other: each agent (board, pace) gets a folder of its own.
    # Its second agent, negamax, is minimax here: negamax's solver warms up in the game (2 s of CPU).
    sequence = [(["one_step"], "games/one_step", 0),
                (["minimax:depth=2", "--second"], "games/minimax_depth=2", 0),
                (["one_step"], "games/one_step", 1)]  # fmt: skip
    for args, folder, game in sequence:
        child = spawn(tmp_path, *args, env={"NO_COLOR": "1"}, out=False)
        assert play_out(child) == folder
        assert finish(child) == 0
        with Store.open(tmp_path / folder) as store:
            assert max(store.game_ids()) == game


def test_the_default_folder_names_the_agent_and_a_board_or_pace_other_than_kaggles() -> None:
    assert default_out("one_step", 6, 7, 4, 2.0) == Path("games/one_step")
    assert default_out("minimax:depth=4", 5, 6, 4, 1.0) == Path("games/minimax_depth=4-5x6-inarow4-1s")
    assert default_out("../my agents/mine.py", 6, 7, 4, 0.5) == Path(
        "games/my_agents_mine.py-6x7-inarow4-0.5s"
    )


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The one line ``connectx play ARGS`` exits 2 with, run in this process: the refusal comes before
    any game, so there is no terminal to test."""
    with pytest.raises(SystemExit) as exit_info:
        main(["play", *args])
    assert exit_info.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]  # argparse's usage, then the error


def test_other_settings_in_the_same_directory_are_refused(tmp_path: Path, capsys) -> None:
    child = spawn(tmp_path, "leftmost", *TINY, env={"NO_COLOR": "1"})
    for column in ("2", "3", "4"):
        child.expect(PROMPT)
        child.sendline(column)
    assert finish(child) == 0
    before = (tmp_path / "games" / "tournament.db").read_bytes()
    assert re.fullmatch(
        "connectx play: error: .* holds games of leftmost on 4x4, 3 in a row, actTimeout 2 s, "
        "not one_step on 4x4, 3 in a row, actTimeout 2 s; choose another --out",
        refused(capsys, "one_step", *TINY, "--out", str(tmp_path / "games")),
    )
    assert (tmp_path / "games" / "tournament.db").read_bytes() == before


def test_bad_agent_and_board_are_one_line_errors(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # where it would store by default
    for args, message in ((["nobody"], "unknown agent 'nobody'"),
                          (["leftmost", "--inarow", "9"], "--inarow 9 does not fit"),
                          (["leftmost", "--first", "--second"], "not allowed with argument")):  # fmt: skip
        assert re.fullmatch(f"connectx play: error: .*{message}.*", refused(capsys, *args))
    assert not (tmp_path / "games").exists()


def test_an_invalid_move_forfeits_saying_why_in_columns_from_1(tmp_path: Path) -> None:
    agent = str(ROOT / "tests" / "misbehaving" / "out_of_range.py")  # returns config.columns
    child = spawn(tmp_path, agent, "--second", *TINY, env={"NO_COLOR": "1"})
    child.expect(
        r"out_of_range\.py forfeits \(invalid\): mark 1 returned 4: there is no column 5 on a 4-column "
        r"board \(columns are 0-3 to the agent, 1-4 here\); you win"
    )
    assert finish(child) == 0


def test_none_is_kaggles_default_move_column_1_not_a_forfeit(tmp_path: Path) -> None:
    agent = str(ROOT / "tests" / "misbehaving" / "returns_none.py")
    child = spawn(tmp_path, agent, "--second", *TINY, env={"NO_COLOR": "1"})
    child.expect(r"returns_none\.py played 1 in")
    for _ in range(2):  # column 1 fills, taking turns (no line): its third None is then INVALID
        child.expect(PROMPT)
        child.sendline("1")
    child.expect(r"forfeits \(invalid\): mark 1 returned None: Kaggle played its default action, column 1, "
                 r"which is full; you win")  # fmt: skip
    assert finish(child) == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="agents have users of their own only when the runner is root")
def test_the_agent_at_the_terminal_has_a_user_that_no_runner_on_the_machine_holds(tmp_path):
    """``connectx play`` claims a game slot as a runner does, so its agent never shares a user with the
    agents of a run playing on the machine (here the run's slot is held while the game is played)."""
    from connectx.play import session
    from tournament import sandbox

    spy = tmp_path / "whoami.py"
    spy.write_text("import os\ndef agent(obs, config):\n    raise RuntimeError(f'uid {os.getuid()}')\n")
    task = game_task(first=HUMAN, second=str(spy))
    with sandbox.claim_slots(1) as (held,):
        record = session(task, colour=False, say=lambda text: None, ask=lambda prompt: "4")
    uid = int(record.detail.split("uid ")[1].split()[0].strip("'\""))
    assert uid not in (sandbox.agent_uid(held, 1), sandbox.agent_uid(held, 2)), record.detail
