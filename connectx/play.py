"""``connectx play AGENT``: a person plays one game against an agent at the terminal; it is stored.

The game is :func:`agents.kit.player.play_game`, the project's in-process game loop, between a
:class:`~connectx.human.HumanPlayer` and the agent. The agent is called as Kaggle calls it: its
``agent(obs, config)`` (:func:`agents.kit.adapter.as_player`) with ``actTimeout`` and a 60 s overage
bank, run in a process of its own behind the tournament's proxy
(:class:`tournament.sandbox.AgentProcess`), so that an untrusted file agent can read neither the store
nor this terminal, its prints do not garble the board, and a move that overruns Kaggle's limit is cut
off and forfeits instead of hanging the session. It is called and its answer judged by Kaggle's
rules as in a tournament (:func:`tournament.call.ask`): a Python ``int`` naming a column that is
not full, in time (``actTimeout`` plus the bank), else the game is its forfeit (INVALID, TIMEOUT, or
ERROR when it raised); ``None`` is Kaggle's default action, column 0. The forfeit says why, counting
columns from 1 as the board does.

Each board is drawn once (:mod:`connectx.drawing`): the person's move shows with the agent's reply,
and the last board, with the winning line marked, when the game ends.

Undo: :class:`~connectx.human.Undo` leaves ``play_game``; the session drops the person's last move
and the agent's reply (and their times) and calls ``play_game`` again with the moves that stand as the
opening and the agent's bank as those moves left it. Quitting (``q``, Ctrl-D) ends with status 0 and
Ctrl-C with 130, storing nothing.

A finished game is added to the store in ``--out`` (:mod:`tournament.store`) as a tournament game of
the entrants :data:`~tournament.schedule.HUMAN` and the agent's spec, so ``connectx report DIR``
replays it. One directory holds the games of one agent, board and ``actTimeout``: by default each
has its own, ``games/SPEC`` (:func:`default_out`), so that playing another agent, on another board
or at another pace needs no ``--out``. The session holds the directory's lock from start to end, and
a directory of other settings (an ``--out`` given) is refused (one line, exit 2) before the game
starts.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from agents.engine.board import Board, Outcome
from agents.kit.adapter import Agent
from agents.kit.clock import DEFAULT_ACT_TIMEOUT, Clock
from agents.kit.player import Player, play_game
from agents.kit.record import MoveRecord
from agents.registry import SpecError, parse_spec
from connectx.drawing import draw, stone, wants_colour
from connectx.human import HumanPlayer, Quit, Undo
from connectx.options import act_timeout_option, board_geometry, board_options, check_ranges, out_option
from connectx.runs import LIMITS
from reports.provenance import toolkit_version
from tournament.call import Timer, ask, bank_left
from tournament.record import Forfeit, GameRecord, Termination
from tournament.schedule import HUMAN, GameTask, Settings, pair_seed, single_game_settings
from tournament.store import DB_NAME, Store, StoreError

GAMES = Path("games")
"""The folder that holds, by default, a folder of games for each agent, board and pace played."""

Say = Callable[[str], None]


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``play`` to the subcommands ``commands``."""
    play = commands.add_parser(
        "play",
        help="play a game against an agent at the terminal, and store it",
        description="Play one game against AGENT at the terminal: type a column number to move, u to "
        "take back your last move and the agent's reply, q (or Ctrl-D) to quit. The agent is called "
        "as on Kaggle, with actTimeout and a 60 s bank (you are not timed), in a process of its own "
        "confined as in a tournament; it forfeits a move that is late, illegal or raises. A finished "
        "game is added to --out, which `connectx report` replays; one directory holds the games of one "
        "agent, board and actTimeout.",
    )
    play.add_argument(
        "agent",
        metavar="AGENT",
        help="the opponent: NAME, NAME:key=value[,key=value], a .py file or a saved callable's .pkl",
    )
    side = play.add_mutually_exclusive_group()
    side.add_argument(
        "--first", dest="human_mark", action="store_const", const=1, help="you move first (default)"
    )
    side.add_argument(
        "--second", dest="human_mark", action="store_const", const=2, help="the agent moves first"
    )
    board_options(play)
    act_timeout_option(play)
    out_option(
        play,
        f"where finished games are stored (default: {GAMES}/AGENT, one folder for each agent, board "
        f"and actTimeout, e.g. {GAMES}/one_step, {GAMES}/minimax_depth=4-5x6-inarow4-1s)",
    )
    play.set_defaults(handler=_play, human_mark=1)


def default_out(spec: str, rows: int, columns: int, inarow: int, act_timeout: float) -> Path:
    """The folder of the games against ``spec`` on a board of ``rows`` x ``columns`` with ``inarow``
    in a row at ``act_timeout`` s a move, when no ``--out`` is given: ``games/one_step`` on Kaggle's
    board and pace (6x7, 4 in a row, 2 s), else with them: ``games/one_step-5x6-inarow4-1s``. The
    spec's characters other than letters, digits and ``._=,-`` become ``_`` (``minimax:depth=4``:
    ``minimax_depth=4``; a file ``agents/mine.py``: ``agents_mine.py``)."""
    name = re.sub(r"[^\w.=,-]+", "_", spec, flags=re.ASCII).strip("._") or "agent"
    if (rows, columns, inarow, act_timeout) != (6, 7, 4, DEFAULT_ACT_TIMEOUT):
        name += f"-{rows}x{columns}-inarow{inarow}-{act_timeout:g}s"
    return GAMES / name


def _describe(settings: Settings) -> str:
    """``one_step on 6x7, 4 in a row, actTimeout 2 s`` (or ``a tournament of N agents``)."""
    if HUMAN not in settings.entrants:
        return f"a tournament of {len(settings.entrants)} agents"
    return (
        f"{settings.entrants[-1]} on {settings.rows}x{settings.columns}, {settings.inarow} in a row, "
        f"actTimeout {settings.act_timeout:g} s"
    )


def open_store(out: Path, settings: Settings) -> Store:
    """The store of ``out`` for games of ``settings``, created when absent, with its lock held.

    A store of other settings that holds no game (a session quit before its first game ended) is
    replaced. Raises :class:`~tournament.store.StoreError` (one line, nothing touched) when ``out``
    holds games of other settings, another session or run holds it, or it cannot be used.
    """
    overwrite = False
    if (out / DB_NAME).is_file():
        with Store.open(out) as existing:
            stored, played = existing.settings(), existing.game_ids()
        if stored != settings:
            if played:
                raise StoreError(
                    f"{out} holds games of {_describe(stored)}, not {_describe(settings)}; "
                    "choose another --out"
                )
            overwrite = True
    return Store.create(out, settings, overwrite=overwrite)


class Forfeited(Exception):  # noqa: N818 - an event of the game, like Kaggle's statuses
    """The agent's call broke Kaggle's rules: ``forfeit`` says how (:func:`tournament.call.ask`),
    ``seconds`` is how long the call took."""

    def __init__(self, forfeit: Forfeit, seconds: float) -> None:
        super().__init__(forfeit.detail)
        self.forfeit, self.seconds = forfeit, seconds


class AgentSide:
    """The agent as a :class:`~agents.kit.player.Player`: asks ``proxy`` (an
    :class:`~tournament.sandbox.AgentProcess`) as Kaggle calls an agent (:func:`tournament.call.ask`,
    timed by ``timer``), raising :class:`Forfeited` instead of returning a bad answer."""

    def __init__(self, proxy: Agent, label: str, say: Say, *, timer: Timer = time.perf_counter) -> None:
        self.proxy, self.label, self.say, self.timer = proxy, label, say, timer

    def play(self, board: Board, clock: Clock) -> MoveRecord:
        self.say(f"{self.label} is thinking...")
        made = ask(self.proxy, board, clock, timer=self.timer)
        if isinstance(made.ruling, Forfeit):
            raise Forfeited(made.ruling, made.seconds)
        return MoveRecord("agent", board.ply, made.ruling, made.seconds)


def _bank(times: list[float], mark: int, clock: Clock) -> float:
    """Seconds left in the overage bank of ``mark`` after the moves timed ``times`` (from ply 0)."""
    return bank_left(clock, times[mark - 1 :: 2])


def verdict(record: GameRecord) -> str:
    """How the game ended, said to the person: ``you win``, ``one_step wins``, ``draw: ...``, or the
    agent's forfeit and what happened."""
    agent = record.second if record.first == HUMAN else record.first
    if record.offender is not None:
        return f"{agent} forfeits ({record.termination}): {record.detail.splitlines()[0]}; you win"
    if record.termination == Termination.DRAW:
        return "draw: the board is full"
    return "you win" if record.score_of(HUMAN) == 1.0 else f"{agent} wins"


def session(
    task: GameTask, *, colour: bool, say: Say = print, ask: Callable[[str], str] = input
) -> GameRecord:
    """Play ``task`` (one of its entrants is :data:`~tournament.schedule.HUMAN`, the other an agent
    spec) at the terminal through ``ask`` and ``say`` and return its record. Raises
    :class:`~connectx.human.Quit` or ``KeyboardInterrupt`` when the person stops; the agent's process
    and whatever it started are gone either way."""
    from tournament import sandbox

    game = _Game(task, colour=colour, say=say)
    sandbox.protect_runner()  # the agent's process may not read this one's memory
    sandbox.become_subreaper()  # so that what the agent starts and leaves behind is killed at the end
    others = set(sandbox.children())  # this process's own children from before: not the agent's
    started_at, began = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
    # A slot no runner on the machine holds, as a runner's games have: the agent's user is its own.
    with sandbox.claim_slots(1) as (slot,):
        proxy = sandbox.AgentProcess(
            game.spec,
            game.agent_mark,
            seed=task.seed + game.agent_mark,
            global_seed=task.seed,
            slot=slot,
        )
        try:
            end = game.play(HumanPlayer(game.you, ask, say), AgentSide(proxy, game.label, say))
        finally:
            proxy.close()
            sandbox.kill_descendants(spare=others)
    forfeit = end.forfeit if isinstance(end, Forfeited) else None
    duration = time.perf_counter() - began
    return GameRecord.ended(task, game.moves, game.times, forfeit, duration=duration, started_at=started_at)


class _Game:
    """A game at the terminal: its moves and their times so far, each board drawn once."""

    def __init__(self, task: GameTask, *, colour: bool, say: Say) -> None:
        self.task, self.colour, self.say = task, colour, say
        self.human_mark = 1 if task.first == HUMAN else 2
        self.agent_mark, self.spec = 3 - self.human_mark, task.second if self.human_mark == 1 else task.first
        self.label = f"{self.spec} ({stone(self.agent_mark, colour=colour)})"
        self.you = stone(self.human_mark, colour=colour)
        self.clock = Clock(task.act_timeout)
        self.moves: list[int] = []
        self.times: list[float] = []
        self.shown: list[tuple[int, ...]] = []  # the moves of the last board drawn

    def board(self) -> Board:
        return Board.from_moves(self.moves, rows=self.task.rows, columns=self.task.columns,
                                inarow=self.task.inarow)  # fmt: skip

    def show(self, board: Board) -> None:
        self.say(draw(board, colour=self.colour))
        self.shown[:] = [board.moves]

    def on_move(self, board: Board, seconds: float) -> None:
        # Each board is drawn once: the person's own move shows with the agent's reply to it (or
        # at once when it ends the game, the winning line marked).
        self.moves.append(board.moves[-1])
        self.times.append(seconds)
        if board.ply % 2 == self.human_mark % 2:
            if board.is_game_over():
                self.show(board)
            self.say(f"you played {self.moves[-1] + 1}")
            return
        self.show(board)
        bank = _bank(self.times, self.agent_mark, self.clock)
        left = f", {bank:.1f} s left in its bank" if bank < self.clock.overage else ""
        self.say(f"{self.spec} played {self.moves[-1] + 1} in {seconds:.2f} s{left}")

    def play(self, human: HumanPlayer, agent: AgentSide) -> Outcome | Forfeited:
        """Play to the end, taking back the person's move and the reply at each undo: the outcome,
        or the agent's forfeit."""
        first = "you move first" if self.human_mark == 1 else f"{self.spec} moves first"
        self.say(f"you: {self.you} (mark {self.human_mark}), {self.label} (mark {self.agent_mark}); {first}")
        if self.human_mark == 1:
            self.show(self.board())
        players: list[Player] = [human, agent] if self.human_mark == 1 else [agent, human]
        while True:
            try:
                bank = Clock(self.task.act_timeout, _bank(self.times, self.agent_mark, self.clock))
                return play_game(players, self.board(), clock=bank, on_move=self.on_move).outcome
            except Undo:
                del self.moves[-2:], self.times[-2:]
                self.say("took back your last move and the reply")
                self.show(self.board())
            except Forfeited as forfeited:
                self.times.append(forfeited.seconds)
                if self.shown != [tuple(self.moves)]:  # the board the agent forfeited on, if not yet drawn
                    self.show(self.board())
                return forfeited


def _play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx play``: 0 a game stored or the person quit, 2 bad input, 130 interrupted (Ctrl-C)."""
    from tournament import sandbox

    check_ranges(args, parser, LIMITS)
    try:
        spec = parse_spec(args.agent).text
    except SpecError as error:
        parser.error(str(error))
    board_geometry(args, parser)
    if args.out is None:
        args.out = default_out(spec, args.rows, args.columns, args.inarow, args.act_timeout)
    settings = single_game_settings(
        (HUMAN, spec),
        rows=args.rows,
        columns=args.columns,
        inarow=args.inarow,
        act_timeout=args.act_timeout,
        toolkit=toolkit_version(),
    )
    try:
        store = open_store(args.out, settings)
    except StoreError as error:
        parser.error(str(error))
    with store:
        sandbox.protect_directory(args.out)  # no agent may read or write the store
        game_id = max(store.game_ids(), default=-1) + 1
        first, second = (HUMAN, spec) if args.human_mark == 1 else (spec, HUMAN)
        task = GameTask(
            game_id=game_id,
            pair_id=game_id,
            first=first,
            second=second,
            rows=settings.rows,
            columns=settings.columns,
            inarow=settings.inarow,
            act_timeout=settings.act_timeout,
            hang_limit=None,
            seed=pair_seed(settings.seed, game_id),
        )
        try:
            record = session(task, colour=wants_colour(sys.stdout))
        except Quit:
            print("quit: this game is not stored")
            return 0
        except KeyboardInterrupt:
            print("\ninterrupted: this game is not stored", file=sys.stderr)
            return 130
        store.add(record)
    print(verdict(record))
    print(f"stored as game {game_id} in {args.out}; `connectx report {args.out}` writes its replay")
    return 0
