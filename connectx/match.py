"""``connectx run`` and ``connectx sprt``: play games through kaggle-environments and store them.

``run`` plays a round-robin (or gauntlet), storing every game in ``OUT/tournament.db`` as it ends
and writing the reports at the end; run again with the same options it resumes. ``sprt`` plays game
pairs of A against B until an SPRT decides. Bad input -- an unknown agent, a missing file, a file
agent that does not load as Kaggle loads it (:mod:`connectx.preflight`; ``--allow-broken`` plays it),
an impossible option, a board on which no line fits, a directory holding another tournament -- is
one line and exit status 2, with nothing written.

This module parses the options, shows the progress and writes the reports; the settings, the checks
and the play are :mod:`connectx.runs`' (as for the Python API, :mod:`connectx.tournaments`), the
tournament itself, resumed, stored game by game and stopped by the SPRT, is
:class:`tournament.driver.Tournament`'s, with the SPRT's stop rule from :mod:`reports.stats.stopping`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agents.registry import DEFAULT_ENTRANTS
from connectx.options import (
    AGENT_LIMITS,
    act_timeout_option,
    agent_limit_options,
    agent_limits,
    analyze_option,
    board_options,
    games_option,
    out_option,
    seed_option,
    workers_option,
)
from connectx.progress import Ticking, bar
from connectx.results import write_report
from connectx.runs import TournamentError, match_settings, opened, play
from reports.stats.stopping import SprtStop
from reports.words import plural
from tournament.driver import Backend, Event, Started, Tournament
from tournament.record import GameRecord
from tournament.schedule import Settings
from tournament.signals import TERMINATED, Terminated

DEFAULT_OUT = Path("runs/latest")
"""Where ``run`` stores its tournament by default."""
DEFAULT_SPRT_OUT = Path("runs/sprt")
"""Where ``sprt`` stores its games by default: a folder of its own, so that an SPRT does not
replace the last tournament in :data:`DEFAULT_OUT` (nor resume one that a tournament left there)."""
DEFAULT_GAMES = 2
DEFAULT_SPRT_GAMES = 20000


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``run`` and ``sprt`` to the subcommands ``commands``."""
    run = commands.add_parser("run", help="play a tournament and write its reports (the default command)")
    run.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        default=list(DEFAULT_ENTRANTS),
        help="entrants: NAME, NAME:key=value[,key=value], a .py file, or a .pkl file the Python API saved a "
        "callable to (OUT/agents/NAME.pkl) (default: every built-in agent; `connectx agents` lists them "
        "and their parameters)",
    )
    games_option(run, "games per colour for every pairing, i.e. game pairs", DEFAULT_GAMES)
    run.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first entrant plays every other one; the others do not meet",
    )
    _match_options(run, DEFAULT_OUT)
    sprt = commands.add_parser(
        "sprt",
        help="play game pairs of A against B until an SPRT decides",
        description="Play game pairs of A against B until the generalized SPRT on the pentanomial "
        "counts accepts H0 (A is at most elo0 stronger than B) or H1 (at least elo1), as fastchess "
        "does; Elo here is logistic Elo, the scale of the ratings.",
    )
    sprt.add_argument("agents", nargs=2, metavar="SPEC", help="the two agents, A then B")
    sprt.add_argument("--elo0", type=float, default=0.0, help="Elo difference of H0 (default 0)")
    sprt.add_argument("--elo1", type=float, default=10.0, help="Elo difference of H1 (default 10)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    sprt.add_argument(
        "--max-games",
        type=int,
        default=DEFAULT_SPRT_GAMES,
        help=f"stop undecided after this many games (default {DEFAULT_SPRT_GAMES})",
    )
    _match_options(sprt, DEFAULT_SPRT_OUT)


def _match_options(command: argparse.ArgumentParser, out: Path) -> None:
    """Options shared by ``run`` and ``sprt``: where (``--out``, by default ``out``), on what board,
    how fast, from which openings."""
    _where_options(command, out)
    board_options(command)
    act_timeout_option(command)
    command.add_argument(
        "--hang-limit",
        type=float,
        default=None,
        help="score a move still running after this many seconds as TIMEOUT at once "
        "(default: Kaggle's limit, actTimeout plus the remaining bank)",
    )
    seed_option(command, 1, "the tournament")
    command.add_argument(
        "--openings",
        default="auto",
        metavar="FILE|auto|drawn|none",
        help="the openings game pairs start from: a file of move strings (one a line, 1-based column "
        "digits), 'auto' (default: on 6x7 four in a row the built-in suite of 350 balanced "
        "openings, elsewhere seeded random openings of 4 plies, no immediate win), 'drawn' (the "
        "suite's 91 openings that are draws with perfect play) or 'none' (the empty board)",
    )
    command.add_argument(
        "--opening-plies",
        type=int,
        default=None,
        metavar="N",
        help="play seeded random openings of N plies instead (no immediate win after them)",
    )
    agent_limit_options(command)
    command.add_argument(
        "--overwrite",
        action="store_true",
        help="discard a different tournament stored in --out instead of refusing",
    )
    command.add_argument(
        "--allow-broken",
        action="store_true",
        help="play a file agent that does not load as Kaggle loads it (a syntax error, a failing import, "
        "no callable), every game of it an ERROR; without it, such a file is refused before the first game",
    )
    analyze_option(command)
    command.set_defaults(handler=_run)


def _where_options(command: argparse.ArgumentParser, out: Path) -> None:
    """Where the games are played (workers, backend) and stored."""
    workers_option(
        command,
        "games played",
        "; with --backend ray, games submitted to the cluster at once, default twice its CPUs",
    )
    command.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="play the games on this machine (default) or on a Ray cluster (needs the [ray] extra; "
        "docs/cluster.md)",
    )
    command.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the cluster to join, 'auto' for the one `ray start` runs here or "
        "HOST:PORT (default: start a cluster on this machine's cores for this run)",
    )
    out_option(command, "directory of the games and reports", out)


def _settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    """The settings of the options ``args`` (:func:`connectx.runs.match_settings`), or exit with one line."""
    sprt = (args.elo0, args.elo1, args.alpha, args.beta) if args.command == "sprt" else None
    numbers = {dest: getattr(args, dest) for dest in ("workers", *AGENT_LIMITS)}
    try:
        return match_settings(
            args.agents, games=args.games if sprt is None else 1, gauntlet=getattr(args, "gauntlet", False),
            rows=args.rows, columns=args.columns, inarow=args.inarow, act_timeout=args.act_timeout,
            hang_limit=args.hang_limit, seed=args.seed, openings=args.openings,
            opening_plies=args.opening_plies, sprt=sprt, max_games=getattr(args, "max_games", None),
            analyze=args.analyze, numbers=numbers,
        )  # fmt: skip
    except TournamentError as error:
        parser.error(str(error))


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx run`` / ``connectx sprt``: 0 done, 1 games failed in the referee, 2 bad input (Ray
    missing or unreachable included), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM while the
    games are played); either way the games stored stay, and it says how to resume."""
    if args.address is not None and args.backend != "ray":
        parser.error("--address needs --backend ray")
    settings = _settings(args, parser)
    backend = Backend(args.backend, args.workers, args.address, agent_limits(args))
    try:
        with opened(args.out, settings, backend, overwrite=args.overwrite,
                    allow_broken=args.allow_broken) as tournament:  # fmt: skip
            from tournament.sandbox import describe_isolation  # here: it imports the referee

            print(describe_isolation())
            return _play(args, tournament)
    except TournamentError as error:
        parser.error(str(error))


class _Progress:
    """The terminal's view of a tournament as it is played, called with each
    :data:`tournament.driver.Event`: how many games were stored before, a progress bar (tqdm, its
    clock redrawn every second while no game ends: :class:`connectx.progress.Ticking`), and a
    warning for each game the referee failed on.

    A tournament's bar runs to its scheduled games, with tqdm's estimate of the time left. An SPRT's
    stops when the test decides, which no count of games foretells: its bar counts the games played,
    with no total and no estimate, then shows the SPRT's log-likelihood ratio on a gauge between its
    bounds (:func:`gauge`) and its live line (:attr:`reports.stats.stopping.SprtStop.line`)."""

    def __init__(self, out: Path, sprt: SprtStop | None) -> None:
        self.out, self.sprt = out, sprt
        self.bar: Any = None  # a tqdm bar from the tournament's start on (tqdm has no type information)
        self.ticking: Ticking | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            if event.stored:
                print(f"resuming {self.out}: {event.stored} of {event.scheduled} games already played")
            if self.sprt is None:
                self.bar = bar(total=event.scheduled, initial=event.stored, unit="game", desc="games",
                               disable=False)  # fmt: skip
            else:
                self.bar = bar(initial=event.stored, unit="game", desc="games", disable=False,
                               bar_format="{desc}: {n_fmt} [{elapsed}, {rate_fmt}]{postfix}")  # fmt: skip
                self.bar.set_postfix_str(self._sprt_line(), refresh=False)
            self.ticking = Ticking(self.bar)
        elif isinstance(event, GameRecord):
            if self.sprt is not None:
                self.bar.set_postfix_str(self._sprt_line(), refresh=False)
            self.bar.update()
        else:
            self.bar.write(f"warning: {event}")

    def _sprt_line(self) -> str:
        """The LLR's gauge (:func:`gauge`), then the SPRT's line: ``H0 [-----|----#-] H1  pairs 120
        [...]  Elo ...  LLR 1.67 [-2.94, 2.94]``."""
        assert self.sprt is not None
        status = self.sprt.status
        return f"{gauge(status.llr, status.lower, status.upper)}  {self.sprt.line}"

    def close(self) -> None:
        """Stop the ticking and close the bar (again: nothing)."""
        if self.ticking is not None:
            self.ticking.stop()
            self.ticking = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def gauge(llr: float, lower: float, upper: float, width: int = 21) -> str:
    """Where ``llr`` lies between an SPRT's bounds ``lower`` (H0 accepted) and ``upper`` (H1): ``H0
    [----------|--#-------] H1``, ``|`` at 0, ``#`` at the LLR (at an end once past it).

    >>> gauge(0.0, -2.94, 2.94, 11), gauge(1.5, -2.94, 2.94, 11), gauge(-9.0, -2.94, 2.94, 11)
    ('H0 [-----#-----] H1', 'H0 [-----|--#--] H1', 'H0 [#----|-----] H1')
    """
    cells = ["-"] * width

    def cell(value: float) -> int:
        return min(width - 1, max(0, round((value - lower) / (upper - lower) * (width - 1))))

    cells[cell(0.0)] = "|"
    cells[cell(llr)] = "#"
    return f"H0 [{''.join(cells)}] H1"


def _play(args: argparse.Namespace, tournament: Tournament) -> int:
    """Play ``tournament`` (:meth:`Tournament.play`), showing its progress, then write its reports."""
    sprt = SprtStop(tournament.settings) if tournament.settings.sprt else None
    progress = _Progress(args.out, sprt)
    try:
        summary = play(tournament, sprt, progress)
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM while the games are played
        progress.close()
        how = "terminated" if isinstance(stop, Terminated) else "interrupted"
        print(
            f"\n{how}: {plural(len(tournament.store.game_ids()), 'game')} stored in {args.out}; "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return TERMINATED if isinstance(stop, Terminated) else 130
    finally:
        progress.close()
    if args.analyze:
        from connectx.analyzing import analyze_run

        why = analyze_run(tournament.store, args.out)
        if why is not None:
            print(f"no move analysis: {why}", file=sys.stderr)
    write_report(tournament.store, args.out)
    if sprt is not None:
        print(f"SPRT {sprt.sprt.describe()}: {sprt.line}")
        print(sprt.verdict())
    if summary.failed:
        print(
            f"{plural(summary.failed, 'game')} failed in the referee and were not stored; "
            "run again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0
