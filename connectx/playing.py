"""A board to play on in a notebook: :class:`BoardWidget`, which :meth:`connectx.boards.Board.play`
returns (``connectx.Board().play("negamax")``).

A Jupyter widget (anywidget: JupyterLab, VS Code, Colab). Click a column to play; the agent replies;
every column's perfect-play score is shown under it (a toggle); undo takes back your move and the
agent's reply; restart goes back to the position the board started from. The status line says who
is to move and how the game ended, an agent's forfeit in the tournament's words.

The agent -- a spec, a file, or a callable from a notebook cell, pickled by value into the widget's
temporary folder (:func:`connectx.entrants.entrant_spec`) -- plays as on ``connectx serve``'s board and
in a tournament, never in the kernel: each move in its sandboxed host
(:class:`web.tables.Table`: a zygote forks the host, which loads the agent, confines itself and
answers through the referee's proxy), called and ruled on as Kaggle calls it
(:func:`tournament.call.ask`: ``actTimeout``, the 60 s overage bank drawn on by the moves on the
board, a forfeit -- INVALID, TIMEOUT, ERROR -- in the tournament's words). A Jupyter kernel has
threads, so no process may be forked from it (see :mod:`web.forkserver`): each widget starts its own
fork server as a fresh interpreter (:meth:`web.forkserver.ForkServer.spawn`), which forks the zygotes.
It warms up (compiles the solver, imports the agents: seconds on a first run) while you look at
the board; the first move waits for it.

The kernel owns the game: a message from the front end (``{"type": "play", "column": c}``, ``undo``,
``restart``, ``{"type": "scores", "on": bool}``) is handled on the kernel's comm thread at once, and
the agent's move and the scores are worked out on threads of the widget's own, which push the
result to the front end. :meth:`BoardWidget.close` (or the kernel's exit) ends the agent's hosts,
their zygote and the fork server: no process is left.

The front end (``connectx/static/board_widget.js``) is one ES module: the board page's ``rules.js``
and ``scores.js`` (``web/static``) followed by the widget's own code; no build step, nothing fetched.
Its stable selectors, for tests that drive it in a browser:

* ``.connectx-board``: the widget; ``data-position``, the moves in Pons' notation; ``data-thinking``,
  ``"1"`` while the agent thinks;
* ``.connectx-status``: the status line;
* ``.connectx-grid .cell[data-column="3"]``: the cells of column 4 (``data-row``, ``data-column``
  0-based, row 0 on top as Kaggle's board); a click on any cell plays its column; a stone's cell has
  the class ``p1`` or ``p2``;
* ``.connectx-scores .score`` (``data-score``), ``.connectx-scores-line``, ``.connectx-clock``,
  ``.connectx-detail`` (a forfeit's full message);
* ``button.connectx-undo``, ``button.connectx-restart``, ``input.connectx-scores-toggle``.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import threading
import time
import weakref
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from agents.engine.board import Board as EngineBoard
from agents.registry import files_of, with_paths
from connectx.entrants import Agent, entrant_spec
from reports.entrants import shown
from reports.exact import NAMES, unavailable, words
from tournament.record import Forfeit
from tournament.scratch import Scratch
from web.forkserver import ForkServer
from web.tables import Cancelled, Closed, OpenTables, Reply

if TYPE_CHECKING:
    from connectx.boards import Board

__all__ = ["BoardWidget"]

STATIC = resources.files("connectx") / "static"


def _module() -> str:
    """The front end's ES module: the board page's rules and scores, then the widget's code."""
    web = resources.files("web") / "static"
    parts = [web / "rules.js", web / "scores.js", STATIC / "board_widget.js"]
    return "\n".join(part.read_text(encoding="utf-8") for part in parts)


def _spec(agent: Agent, folder: Path) -> str:
    """The spec ``agent`` is played by (:func:`connectx.entrants.entrant_spec`: a spec, a file, or a
    callable pickled by value into ``folder``), every file it names written absolute (the host reads
    them from another working directory). Raises :class:`connectx.entrants.AgentError` (a
    ValueError, one sentence) for an agent that cannot be played or sent."""
    spec = entrant_spec(agent, folder)
    return with_paths(spec, files_of(spec))


_open: weakref.WeakSet[BoardWidget] = weakref.WeakSet()
"""The widgets not yet closed, closed when the kernel exits."""


@atexit.register
def _close_all() -> None:
    for widget in list(_open):
        widget.close()


class BoardWidget(anywidget.AnyWidget):
    """A board to play on against an agent (module docstring).

    ``BoardWidget(board, agent, *, person=1, act_timeout=2.0, scores=True)``: start from ``board``
    (a :class:`connectx.boards.Board`, game on); ``agent``, a spec, a file or a callable
    (:func:`connectx.entrants.entrant_spec`: a callable plays from its pickle), plays the mark
    other than ``person`` (1 Red, moving first, or 2 Yellow) with ``act_timeout`` seconds a move and
    Kaggle's 60 s bank; ``scores``: perfect-play scores shown (6x7 only; elsewhere the line says
    why). Raises ValueError for an agent that is not one, a bad ``person`` or ``act_timeout``, or a
    game already over.

    Its synced state (traits) is what the front end draws; the game itself is kept here. ``agent``
    (its name as a report shows it: a callable's own), ``moves`` (0-based columns), ``status``,
    ``thinking``, ``over``, ``clock`` (the agent's last move: seconds and bank), ``detail`` (a
    forfeit's full message, or why the agent could not play),
    ``scores`` (the position's scores as the board page's server sends them, with ``pos``, the
    position they are of), ``scores_on``.
    """

    _esm = _module()
    _css = (STATIC / "board_widget.css").read_text(encoding="utf-8")

    rows = traitlets.Int(6).tag(sync=True)
    columns = traitlets.Int(7).tag(sync=True)
    inarow = traitlets.Int(4).tag(sync=True)
    person = traitlets.Int(1).tag(sync=True)
    agent = traitlets.Unicode("").tag(sync=True)
    moves = traitlets.List(traitlets.Int()).tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    thinking = traitlets.Bool(False).tag(sync=True)
    over = traitlets.Bool(False).tag(sync=True)
    clock = traitlets.Unicode("").tag(sync=True)
    detail = traitlets.Unicode("").tag(sync=True)
    scores = traitlets.Dict().tag(sync=True)
    scores_on = traitlets.Bool(True).tag(sync=True)

    def __init__(
        self, board: Board, agent: Agent, *, person: int = 1, act_timeout: float = 2.0, scores: bool = True
    ) -> None:
        if person not in (1, 2):
            raise ValueError(f"person must be 1 (Red, first) or 2 (Yellow, second), got {person!r}")
        if not 0 < act_timeout <= 600:
            raise ValueError(f"time must be more than 0 and at most 600 seconds a move, got {act_timeout!r}")
        if board.is_game_over():
            raise ValueError(f"the game {board.position!r} is over: there is no move to play")
        # a callable's pickle: a scratch folder, which the next one made sweeps if the kernel is killed
        self._folder = Scratch("board")
        try:
            spec = _spec(agent, Path(self._folder.path))
        except BaseException:
            self._folder.close()
            raise
        super().__init__(
            rows=board.rows,
            columns=board.columns,
            inarow=board.inarow,
            person=person,
            agent=shown(spec),
            scores_on=scores,
        )
        self._start = board.engine()
        self._board = self._start.copy()
        self._spec, self._act_timeout = spec, act_timeout  # the traits are for the front end to draw
        self._forfeit: Forfeit | None = None
        self._failed = ""  # why the agent could not be asked, until the position changes
        self._generation = 0  # changed by every undo, restart and close: a reply for an older one is dropped
        self._lock = threading.RLock()
        self._moving = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="connectx-agent")
        self._solving = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="connectx-scores")
        self._pending: list[concurrent.futures.Future[None]] = []
        self._solved: dict[str, dict[str, Any]] = {}
        self._forks = ForkServer.spawn()  # here, on the kernel's main thread: it dies with that thread
        self._tables = OpenTables(forks=self._forks, limit=1, expiry=float("inf"))
        try:
            self._table = self._tables.open()
        except RuntimeError as error:  # no game slot free on this machine
            self._forks.close()
            self._folder.close()
            raise ValueError(str(error)) from None
        self._closed = False
        _open.add(self)
        self.on_msg(self._message)
        self._changed()

    # --- what the front end sends -----------------------------------------------------------

    def _message(self, _widget: object, content: object, _buffers: object) -> None:
        """A message of the front end, handled at once (the module docstring): bad ones are ignored."""
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        with self._lock:
            if self._closed:
                return
            if kind == "play" and isinstance(content.get("column"), int):
                self._play(content["column"])
            elif kind == "undo":
                self._undo()
            elif kind == "restart":
                self._restart()
            elif kind == "scores":
                self.scores_on = bool(content.get("on"))
                self._show_scores()

    def _play(self, column: int) -> None:
        """The person plays ``column`` (0-based), when it is their turn and the column is playable."""
        if self.over or self.thinking or self._board.mark != self.person or not self._board.can_play(column):
            return
        self._board.push(column)
        self._changed()

    def _undo(self) -> None:
        """Take back the forfeit or the last move, then the agent's moves, back to the person's turn
        (as the board page's undo); a move being thought is cancelled."""
        self._cancel()
        if self._forfeit is not None:
            self._forfeit = None
        elif self._board.moves:
            self._board.pop()
        while self._board.moves and self._board.mark != self.person:
            self._board.pop()
        self._changed()

    def _restart(self) -> None:
        self._cancel()
        self._forfeit = None
        self._board = self._start.copy()
        self._changed()

    def _cancel(self) -> None:
        self._generation += 1
        self._failed = ""
        self._table.cancel()

    # --- the agent's move and the scores ----------------------------------------------------

    def _changed(self) -> None:
        """The position changed: draw it, and ask the agent when it is its turn."""
        self.over = self._forfeit is not None or self._board.is_game_over()
        self.thinking = not self.over and self._board.mark != self.person and not self._failed
        if self.thinking:
            future = self._moving.submit(self._think, self._generation, self._board.copy())
            self._pending.append(future)
        if self._forfeit is None and not self._failed:
            self.detail = ""
        self.moves = list(self._board.moves)
        self.status = self._status()
        self._show_scores()

    def _think(self, generation: int, board: EngineBoard) -> None:
        """Ask the agent to move on ``board`` (on the widget's agent thread) and play its reply,
        unless the game has moved on since (``generation``)."""
        if generation != self._generation:  # undone before it began
            return
        try:
            reply = self._table.move(self._spec, board, self._act_timeout)
        except (Cancelled, Closed):
            return
        except OSError as error:
            with self._lock:
                if generation == self._generation and not self._closed:
                    self._failed = self.detail = f"could not start the agent's process: {error}"
                    self.thinking = False
                    self.status = self._status()
            return
        with self._lock:
            if generation == self._generation and not self._closed:
                self._answer(reply)

    def _answer(self, reply: Reply) -> None:
        """Show the agent's reply: its move played, or its forfeit ending the game."""
        self.clock = f"{self.agent}'s move: {reply.seconds:.2f} s · bank {reply.bank:.1f} s"
        if reply.forfeit is not None:
            self._forfeit = reply.forfeit
            self.detail = reply.forfeit.detail
        else:
            assert reply.column is not None
            self._board.push(reply.column)
        self._changed()

    def _show_scores(self) -> None:
        """Show the position's scores when asked: at once when solved before, else once solved (on
        the widget's scores thread)."""
        if not self.scores_on or self.over:
            return
        geo, key = self._board.geo, self._board.notation()
        reason = unavailable(geo.rows, geo.columns, geo.inarow)
        if reason is not None:
            self.scores = {"pos": key, "scores": None, "reason": reason}
        elif key in self._solved:
            self.scores = self._solved[key]
        else:
            self._pending.append(self._solving.submit(self._solve, key))

    def _solve(self, key: str) -> None:
        from connectx.boards import solve

        if key in self._solved:
            return
        geo = self._board.geo
        solved = solve(key, rows=geo.rows, columns=geo.columns, inarow=geo.inarow)
        assert solved.scores is not None
        answer = {
            "pos": key,
            "scores": list(solved.scores),
            "words": words(solved.scores, solved.ply, solved.cells),
        }
        with self._lock:
            self._solved[key] = answer
            if not self._closed and self.scores_on and self._board.notation() == key:
                self.scores = answer

    # --- words ------------------------------------------------------------------------------

    def _who(self, mark: int) -> str:
        return f"{NAMES[mark]} ({'you' if mark == self.person else self.agent})"

    def _status(self) -> str:
        """The status line: who is to move, or how the game ended (the board page's words)."""
        forfeit, board = self._forfeit, self._board
        if forfeit is not None:
            winner = 3 - forfeit.offender
            first_line = forfeit.detail.split("\n")[0]
            return (
                f"{'1-0' if winner == 1 else '0-1'} · {self.agent} ({NAMES[forfeit.offender]}) forfeited "
                f"({forfeit.termination}): {first_line}; {self._who(winner)} wins"
            )
        won = board.winner()
        if won is not None:
            return f"{'1-0' if won == 1 else '0-1'} · {self._who(won)} wins with {board.geo.inarow} in a row"
        if board.is_full():
            return "½-½ · a draw: the board is full"
        if self._failed:
            return f"{self._who(board.mark)} cannot move: undo or restart to try again"
        if board.mark != self.person:
            return f"{self._who(board.mark)} is thinking…"
        return f"{self._who(board.mark)} to move: click a column"

    # --- the end ----------------------------------------------------------------------------

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the agent's move and the scores asked so far are shown (for a script or a
        test; the front end needs no waiting). False when ``timeout`` seconds passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                self._pending = [future for future in self._pending if not future.done()]
                pending = list(self._pending)
            if not pending:
                return True
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if concurrent.futures.wait(pending, left).not_done:
                return False

    def close(self) -> None:
        """End the game: the agent's move being thought is cancelled, its hosts, their zygote and
        the fork server end (no process is left), and the widget is closed in the front end. A
        position's scores being solved (seconds at most) are dropped when done, and their thread
        ends then."""
        if getattr(self, "_closed", True):  # closed, or never made (ipywidgets' __del__ calls this)
            return
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._generation += 1
        self._tables.close(self._table.id)
        self._forks.close()
        self._folder.close()
        self._moving.shutdown(wait=True, cancel_futures=True)
        self._solving.shutdown(wait=False, cancel_futures=True)
        _open.discard(self)
        with contextlib.suppress(Exception):  # the kernel may be going
            super().close()
