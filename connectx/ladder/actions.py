"""What ``connectx ladder init``, ``add`` and ``remove`` do: check the input, play or retire, and say
how it went. Each is one line and exit status 2 on bad input, with nothing stored changed."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from agents.registry import DEFAULT_ENTRANTS, SpecError
from connectx.ladder.arguments import DEFAULT_MAX_PAIRS, DEFAULT_UNTIL, LADDER_OPENINGS, LIMITS
from connectx.ladder.lists import rated, show_args, show_list
from connectx.ladder.progress import SeedingBar, add_progress, added_line, why_wider
from connectx.options import board_geometry, check_ranges
from tournament.driver import Backend, BackendError
from tournament.ladder import Candidate, Ladder, LadderError, Roster, Rules, identify, same_board, validate
from tournament.ladder.roster import ROSTER
from tournament.openings import OpeningError, resolve
from tournament.schedule import Settings

__all__ = ["add_members", "retire_member", "seed_ladder"]


def _backend(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Backend:
    if args.address is not None and args.backend != "ray":
        parser.error("--address needs --backend ray")
    return Backend(args.backend, args.workers, args.address)


def _candidates(
    texts: list[str], parser: argparse.ArgumentParser, name: str | None = None
) -> list[Candidate]:
    try:
        return [identify(text, name) for text in texts]
    except (SpecError, LadderError) as error:
        parser.error(str(error))


def seed_ladder(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder init``: 0 done, 1 games failed in the referee, 2 bad input, 130 interrupted."""
    from reports.provenance import toolkit_version

    check_ranges(args, parser, LIMITS)
    texts = [*(DEFAULT_ENTRANTS if args.builtins else ()), *args.specs]
    candidates = _candidates(texts, parser)
    geo = board_geometry(args, parser)
    try:
        description, openings = resolve(args.openings, geo, pairs=LADDER_OPENINGS, seed=args.seed)
    except OpeningError as error:
        parser.error(str(error))
    settings = Settings(
        entrants=(), games=args.pairs, rows=args.rows, columns=args.columns, inarow=args.inarow,
        act_timeout=args.act_timeout, hang_limit=args.hang_limit, seed=args.seed, openings=openings,
        opening_source=description, toolkit=toolkit_version(),
    )  # fmt: skip
    ladder = Ladder(args.ladder, toolkit=toolkit_version())
    backend = _backend(args, parser)
    try:  # a folder with no ladder yet is seeded; a ladder.json that cannot be read is refused
        known = ladder.roster() if (Path(args.ladder) / ROSTER).exists() else Roster()
    except LadderError as error:
        parser.error(str(error))
    try:
        for candidate in candidates:
            if known.match(candidate) is None:
                validate(candidate, settings, backend.limits)
    except LadderError as error:
        parser.error(str(error))
    progress = SeedingBar()
    try:
        summary = ladder.seed(settings, candidates, backend, progress)
    except (LadderError, BackendError) as error:
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
    print(f"{args.ladder}/: {len(candidates)} members, {summary.stored} games")
    if summary.failed:
        print(
            f"{summary.failed} games failed in the referee; run the same init again to play them",
            file=sys.stderr,
        )
        return 1
    return show_list(show_args(args), parser, plot=False)


def add_members(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder add``: 0 done, 1 games failed in the referee, 2 bad input, 130 interrupted."""
    from reports.provenance import toolkit_version
    from reports.stats.ladder import LadderRater

    check_ranges(args, parser, LIMITS)
    if args.name is not None and len(args.specs) > 1:
        parser.error("--name names one SPEC; add the others by commands of their own")
    until = args.until if args.until is not None or args.pairs is not None else DEFAULT_UNTIL
    rules = Rules(args.pairs or DEFAULT_MAX_PAIRS, until, args.matchmaking)
    ladder = Ladder(args.ladder, toolkit=toolkit_version())
    backend = _backend(args, parser)
    candidates = _candidates(args.specs, parser, args.name)
    try:
        stored = ladder.settings()
        asked = dataclasses.replace(
            stored,
            rows=args.rows or stored.rows,
            columns=args.columns or stored.columns,
            inarow=args.inarow or stored.inarow,
        )
        same_board(stored, asked, args.ladder)
        roster = ladder.roster()
        for candidate in candidates:
            if roster.match(candidate) is None:
                validate(candidate, stored, backend.limits)
    except LadderError as error:
        parser.error(str(error))
    for candidate in candidates:
        try:
            added = ladder.add(candidate, rules, LadderRater(), backend, add_progress)
        except (LadderError, BackendError) as error:
            parser.error(str(error))
        except KeyboardInterrupt:
            print(f"\ninterrupted: the same `connectx ladder add` resumes in {args.ladder}", file=sys.stderr)
            return 130
        print(added_line(added))
        if added.why == "pairs" and until is not None and added.margin > until:
            records, entries = rated(show_args(args), parser)[2:4]
            print(why_wider(added, until, entries, records))
        if added.failed:
            print(
                f"{added.failed} games failed in the referee; the same add plays them again", file=sys.stderr
            )
            return 1
    return show_list(show_args(args), parser, plot=False)


def retire_member(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder remove NAME``: retire a member."""
    try:
        member = Ladder(args.ladder).retire(args.name)
    except LadderError as error:
        parser.error(str(error))
    print(f"{member.id} retired: it plays no more in {args.ladder}; its games stay rated")
    return 0
