"""What ``connectx ladder init``, ``add`` and ``remove`` do: check the options, call
:class:`connectx.ladders.Ladder`, and say how it went. Each is one line and exit status 2 on bad
input, with nothing stored changed."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from agents.engine.board import InvalidBoardError
from agents.registry import DEFAULT_ENTRANTS, SpecError
from connectx.entrants import AgentError
from connectx.ladder.arguments import DEFAULT_UNTIL, LIMITS
from connectx.ladder.lists import rated, show_args, show_list
from connectx.ladder.progress import SeedingBar, add_progress, added_line, why_wider
from connectx.ladders import Ladder
from connectx.options import board_geometry, check_ranges
from tournament.driver import BackendError
from tournament.ladder import Added, LadderError, same_board
from tournament.ladder import Ladder as Games
from tournament.openings import OpeningError

__all__ = ["add_members", "retire_member", "seed_ladder"]

BAD_INPUT = (SpecError, AgentError, LadderError, OpeningError, InvalidBoardError, BackendError)
"""What the ladder's methods raise for input that cannot be played: one line, exit status 2."""


def seed_ladder(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder init``: 0 done, 1 games failed in the referee, 2 bad input, 130 interrupted."""
    check_ranges(args, parser, LIMITS)
    board_geometry(args, parser)  # an impossible board in the options' words
    progress = SeedingBar()
    try:
        summary = Ladder(args.ladder).init(
            args.specs, builtins=args.builtins, pairs=args.pairs, rows=args.rows, columns=args.columns,
            inarow=args.inarow, act_timeout=args.act_timeout, hang_limit=args.hang_limit, seed=args.seed,
            openings=args.openings, workers=args.workers, backend=args.backend, address=args.address,
            progress=progress,
        )  # fmt: skip
    except BAD_INPUT as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        progress.close()
        print(
            f"\ninterrupted: run the same `connectx ladder init` to finish seeding {args.ladder}",
            file=sys.stderr,
        )
        return 130
    finally:
        progress.close()
    members = len(args.specs) + (len(DEFAULT_ENTRANTS) if args.builtins else 0)
    print(f"{args.ladder}/: {members} members, {summary.stored} games")
    if summary.failed:
        print(
            f"{summary.failed} games failed in the referee; run the same init again to play them",
            file=sys.stderr,
        )
        return 1
    return show_list(show_args(args), parser, plot=False)


def add_members(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder add``: 0 done, 1 games failed in the referee, 2 bad input, 130 interrupted."""
    check_ranges(args, parser, LIMITS)
    until = args.until if args.until is not None or args.pairs is not None else DEFAULT_UNTIL
    try:
        stored = Games(args.ladder).settings()
        asked = dataclasses.replace(
            stored,
            rows=args.rows or stored.rows,
            columns=args.columns or stored.columns,
            inarow=args.inarow or stored.inarow,
        )
        same_board(stored, asked, args.ladder)
        adds = Ladder(args.ladder).add_all(
            args.specs, name=args.name, pairs=args.pairs, until=args.until, matchmaking=args.matchmaking,
            workers=args.workers, backend=args.backend, address=args.address, progress=add_progress,
        )  # fmt: skip
    except BAD_INPUT as error:
        parser.error(str(error))
    while True:
        try:
            added: Added | None = next(adds, None)
        except BAD_INPUT as error:
            parser.error(str(error))
        except KeyboardInterrupt:
            print(f"\ninterrupted: the same `connectx ladder add` resumes in {args.ladder}", file=sys.stderr)
            return 130
        if added is None:
            return show_list(show_args(args), parser, plot=False)
        print(added_line(added))
        if added.why == "pairs" and until is not None and added.margin > until:
            listed = rated(show_args(args), parser)
            print(why_wider(added, until, listed.entries, listed.records))
        if added.failed:
            print(
                f"{added.failed} games failed in the referee; the same add plays them again", file=sys.stderr
            )
            return 1


def retire_member(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder remove NAME``: retire a member."""
    try:
        member = Ladder(args.ladder).remove(args.name)
    except LadderError as error:
        parser.error(str(error))
    print(f"{member.id} retired: it plays no more in {args.ladder}; its games stay rated")
    return 0
