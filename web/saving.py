"""A game played on the board page, stored in a run under DIR: :func:`save`.

As ``connectx play`` stores its games: the run's entrants are the two sides (:data:`HUMAN` for a
person, first, then the agent specs), one game pair each (``games`` 1, each game a pair of its own),
and one run holds the games of one pair of sides, board and ``actTimeout``, in either colour; a run of
other settings is refused. The position the game started from (the page's ``pos``, or a replay's
"continue from here") is the game's opening. The agents' moves and a forfeit are the table's
(:mod:`web.tables`): a move the table's agent did not make refuses the save. A person's moves carry
the seconds the page measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agents.engine.board import Board
from reports.provenance import toolkit_version
from tournament import sandbox
from tournament.record import Forfeit, GameRecord
from tournament.schedule import HUMAN, GameTask, single_game_settings
from tournament.store import DB_NAME, Store, StoreError
from web.tables import Table

__all__ = ["Game", "SaveError", "default_name", "save"]


class SaveError(ValueError):
    """A game that cannot be stored; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Game:
    """A game as the page sends it: the sides (``first`` plays mark 1; :data:`HUMAN` or a checked
    spec), the board, ``act_timeout``, ``moves`` (0-based columns, the opening first), ``opening``
    (how many of them), and ``seconds``, one entry per move after the opening (a person's think time;
    an agent's entry is ignored, the table's is taken)."""

    first: str
    second: str
    rows: int
    columns: int
    inarow: int
    act_timeout: float
    moves: tuple[int, ...]
    opening: int
    seconds: tuple[float, ...]

    @property
    def sides(self) -> tuple[str, str]:
        return self.first, self.second


def default_name(game: Game) -> str:
    """``played-human-negamax-2s`` (``-5x6x4`` added off the standard board; a file agent by its file's
    name): a run name for games of these sides, board and time, safe in a path."""
    first, second = (Path(side).stem if side.endswith(".py") else side for side in _entrants(game))
    board = (
        ""
        if (game.rows, game.columns, game.inarow) == (6, 7, 4)
        else f"-{game.rows}x{game.columns}x{game.inarow}"
    )
    words = f"played-{first}-{second}-{game.act_timeout:g}s{board}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in words)[:120]


def save(game: Game, directory: Path, table: Table) -> int:
    """Store ``game``, played at ``table``, in the run in ``directory`` (made when absent); return its
    game id. Raises :class:`SaveError` when the game is not over, was not played here, or the run
    holds other settings or cannot be written."""
    entrants = _entrants(game)
    board = Board(game.rows, game.columns, game.inarow)
    times: list[float] = []
    if not 0 <= game.opening <= len(game.moves) or len(game.seconds) != len(game.moves) - game.opening:
        raise SaveError("the game's opening and times do not match its moves")
    for ply, column in enumerate(game.moves):
        side = game.sides[ply % 2]
        if ply >= game.opening:
            times.append(_seconds(game, table, board, side, game.seconds[ply - game.opening], column))
        board.push(column)
    forfeit = _forfeit(game, table, board)
    if forfeit is not None:
        times.append(_seconds(game, table, board, game.sides[board.ply % 2], 0.0, None))
    elif board.outcome() is None:
        raise SaveError("the game is not over: finish it before saving it")
    settings = single_game_settings(
        entrants,
        rows=game.rows,
        columns=game.columns,
        inarow=game.inarow,
        act_timeout=game.act_timeout,
        toolkit=toolkit_version(),
    )
    if directory.is_dir() and not (directory / DB_NAME).is_file() and any(directory.iterdir()):
        raise SaveError(f"{directory.name} is a folder of other files, not a run: choose another name")
    try:
        if (directory / DB_NAME).is_file():
            with Store.open(directory, read_only=True) as existing:
                if existing.settings() != settings:
                    raise SaveError(
                        f"{directory.name} holds games of other sides, another board or time a move: "
                        "choose another name"
                    )
        with Store.create(directory, settings) as store:
            sandbox.protect_directory(directory)  # no agent may read or write the store
            game_id = max(store.game_ids(), default=-1) + 1
            task = GameTask(
                game_id=game_id, pair_id=game_id, first=game.first, second=game.second, rows=game.rows,
                columns=game.columns, inarow=game.inarow, act_timeout=game.act_timeout, hang_limit=None,
                seed=table.seed, opening=game.moves[: game.opening],
            )  # fmt: skip
            duration = sum(times)
            started = (datetime.now(UTC) - timedelta(seconds=duration)).isoformat(timespec="seconds")
            record = GameRecord.ended(task, game.moves, times, forfeit, duration=duration, started_at=started)
            store.add(record)
    except StoreError as error:
        raise SaveError(str(error)) from None
    return game_id


def _entrants(game: Game) -> tuple[str, ...]:
    """The run's entrants: the person first (as ``connectx play`` has them), then the specs in order."""
    if game.first == game.second:
        raise SaveError(
            f"both sides are {game.first}: a game of one entrant against itself counts in no standings"
        )
    return tuple(sorted(game.sides, key=lambda side: (side != HUMAN, side)))


def _seconds(game: Game, table: Table, board: Board, side: str, given: float, column: int | None) -> float:
    """The seconds of the move ``column`` (None: the forfeit) by ``side`` on ``board``: a person's as
    given (checked), an agent's as the table timed it, if the table's agent made that move there."""
    ply = board.ply + 1
    if side == HUMAN:
        if not (math.isfinite(given) and 0 <= given <= 86_400):
            raise SaveError(f"move {ply}: {given!r} is not a number of seconds")
        return given
    made = table.played(side, board, game.act_timeout)
    if made is None or made[0] != column:
        raise SaveError(
            f"move {ply} was not played by {side} on this board: only the agents' own moves can be saved"
        )
    return made[1]


def _forfeit(game: Game, table: Table, board: Board) -> Forfeit | None:
    """The forfeit that ended the game at ``board``, made at the table by the agent to move; None."""
    side = game.sides[board.ply % 2]
    if side == HUMAN or board.outcome() is not None:
        return None
    return table.forfeited(side, board, game.act_timeout)
