"""``connectx ladder show`` and ``report``: the rating list of every game the ladder holds, on the
terminal, or written with the reports ``connectx run`` writes."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from connectx.ladder.arguments import LIMITS
from connectx.options import check_ranges
from tournament.ladder import Ladder, LadderError

__all__ = ["HISTORY", "rated", "show_args", "show_list", "write_reports"]

HISTORY = "history.png"
"""The figure of the ratings as members joined, in the ladder (``show``) or the reports' folder."""


def show_args(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments of ``connectx ladder show`` for the ladder of ``args``, with the default scale."""
    return argparse.Namespace(ladder=args.ladder, anchor=None, sigma=200.0, beta=100.0, tau=2.0)


def rated(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple:
    """The ladder's roster, records, rating list and Kaggle-style parameters, or one line and exit 2."""
    from reports.stats.kaggle import KaggleParameters
    from reports.stats.ladder import rating_list

    check_ranges(args, parser, LIMITS)
    ladder = Ladder(args.ladder)
    try:
        kaggle = KaggleParameters(sigma=args.sigma, beta=args.beta, tau=args.tau)
        roster = ladder.roster()
        records = ladder.records()
        anchor = None
        if args.anchor is not None:
            anchor = (roster.find(args.anchor[0]).id, args.anchor[1])
        entries = rating_list(records, roster, anchor=anchor, kaggle=kaggle)
    except (LadderError, ValueError) as error:
        parser.error(str(error))
    return ladder, roster, records, entries, kaggle


def show_list(args: argparse.Namespace, parser: argparse.ArgumentParser, *, plot: bool = True) -> int:
    """``connectx ladder [show]``: the rating list and its notes; with ``plot``, ``history.png`` in the
    ladder (the ratings as members joined), when the ladder's folder can be written."""
    from reports.render.ladder import format_list, notes, ordering_note, plot_history
    from reports.stats.ladder import disagreements, history

    ladder, roster, records, entries, kaggle = rated(args, parser)
    print(format_list(entries))
    print()
    print(ordering_note(disagreements(entries)))
    for line in notes(entries, kaggle, _scale(args)):
        print(line)
    members = f"{len(roster.members)} member" + ("s" if len(roster.members) != 1 else "")
    print(f"{len(records)} games, {members} ({len(roster.active)} taking part)")
    if plot and records and os.access(ladder.directory, os.W_OK):
        path = ladder.directory / HISTORY
        plot_history(history(records, roster), path, title=f"{_title(ladder)}: the ratings as members joined")
        print(f"the ratings as members joined: {path}")
    return 0


def _scale(args: argparse.Namespace) -> str:
    if args.anchor is None:
        return "the mean of the rated members is 0"
    return f"{args.anchor[0]} held at {args.anchor[1]:+g}"


def _title(ladder: Ladder) -> str:
    return f"Ladder {ladder.directory.resolve().name}"


def write_reports(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder report``: the reports ``run`` writes, of all the ladder's games, and
    ``ladder.md`` (the rating list) and ``history.png`` (the ratings as members joined)."""
    from reports.render.documents import write_all
    from reports.render.ladder import markdown_list, notes, ordering_note, plot_history
    from reports.render.terminal import summary
    from reports.report import assemble
    from reports.stats.ladder import disagreements, history

    ladder, roster, records, entries, kaggle = rated(args, parser)
    if not records:
        parser.error(f"{args.ladder} holds no games yet: `connectx ladder add SPEC` plays some")
    out = Path(args.out or args.ladder)
    kind = f"ladder: {len(roster.members)} members, {len(roster.sessions)} additions (ladder.md lists them)"
    report = assemble(records, ladder.settings(), name=_title(ladder).lower(), kind=kind)
    if report is None:
        parser.error(f"{args.ladder} holds no game between two different members yet")
    print("\n".join(summary(report)))
    paths = write_all(report, out)
    text = [f"# {_title(ladder)}", "", markdown_list(entries), ordering_note(disagreements(entries)), ""]
    text += [f"{line}  " for line in notes(entries, kaggle, _scale(args))]
    text += ["", f"![The ratings as members joined]({HISTORY})", ""]
    (out / "ladder.md").write_text("\n".join(text), encoding="utf-8")
    plot_history(
        history(records, roster), out / HISTORY, title=f"{_title(ladder)}: the ratings as members joined"
    )
    print(
        f"{len(records)} games; reports in {out}/: "
        + ", ".join([*(p.name for p in paths.values()), "ladder.md", HISTORY])
    )
    print(f"open {out / 'report.html'} in a browser to see it all and replay every game")
    return 0
