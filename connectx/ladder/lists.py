"""``connectx ladder show`` and ``report``: the rating list of every game the ladder holds, on the
terminal, or written with the reports ``connectx run`` writes (:class:`connectx.ladders.Ladder`'s
``rated`` and ``report``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from connectx.ladder.arguments import LIMITS
from connectx.ladders import Ladder, Rated, scale
from connectx.options import check_ranges
from tournament.ladder import LadderError

__all__ = ["rated", "show_args", "show_list", "write_reports"]


def show_args(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments of ``connectx ladder show`` for the ladder of ``args``, with the default scale."""
    return argparse.Namespace(ladder=args.ladder, anchor=None, sigma=200.0, beta=100.0, tau=2.0)


def rated(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Rated:
    """The ladder's roster, records, rating list and Kaggle-style parameters, or one line and exit 2."""
    check_ranges(args, parser, LIMITS)
    try:
        return Ladder(args.ladder).rated(anchor=args.anchor, sigma=args.sigma, beta=args.beta, tau=args.tau)
    except (LadderError, ValueError) as error:
        parser.error(str(error))


def show_list(args: argparse.Namespace, parser: argparse.ArgumentParser, *, plot: bool = True) -> int:
    """``connectx ladder [show]``: the rating list and its notes; with ``plot``, ``history.png`` in the
    ladder (the ratings as members joined), when the ladder's folder can be written."""
    from reports.render.ladder import HISTORY, format_list, notes, ordering_note, plot_history
    from reports.stats.ladder import disagreements, history

    listed = rated(args, parser)
    roster, records, entries = listed.roster, listed.records, listed.entries
    print(format_list(entries))
    print()
    print(ordering_note(disagreements(entries)))
    for line in notes(entries, listed.kaggle, scale(args.anchor)):
        print(line)
    members = f"{len(roster.members)} member" + ("s" if len(roster.members) != 1 else "")
    print(f"{len(records)} games, {members} ({len(roster.active)} taking part)")
    directory = Path(args.ladder)
    if plot and records and os.access(directory, os.W_OK):
        path = directory / HISTORY
        title = f"Ladder {directory.resolve().name}: the ratings as members joined"
        plot_history(history(records, roster), path, title=title)
        print(f"the ratings as members joined: {path}")
    return 0


def write_reports(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder report``: the reports ``run`` writes, of all the ladder's games, and
    ``ladder.md`` (the rating list) and ``history.png`` (the ratings as members joined)."""
    from reports.render.terminal import summary

    check_ranges(args, parser, LIMITS)
    try:
        written = Ladder(args.ladder).report(
            args.out, anchor=args.anchor, sigma=args.sigma, beta=args.beta, tau=args.tau
        )
    except (LadderError, ValueError) as error:
        parser.error(str(error))
    print("\n".join(summary(written.report)))
    print(f"{written.games} games; reports in {written.folder}/: " + ", ".join(written.files))
    print(f"open {written.folder / 'report.html'} in a browser to see it all and replay every game")
    return 0
