"""``connectx ladder``: a persistent rating list that new agents join (``docs/ladder.md``).

* ``ladder init [SPEC ...] [--builtins]`` starts a ladder in ``--ladder DIR`` (default ``ladder/``),
  seeded by a round robin of its first members (``--builtins``: the agents of the default round robin);
* ``ladder add SPEC ...`` lets each agent join, a new member or a new version ``name@2`` (a changed file
  or changed parameters), and plays its game pairs against the members, chosen where a pair tells the
  most about its rating, until its 95 % interval is within ``±--until`` Elo or it has played
  ``--pairs`` pairs; run again after an interruption, it resumes;
* ``ladder [show]`` prints the rating list (every game rated jointly; ``--anchor NAME=ELO`` pins the
  scale) with a Kaggle-style μ ± σ column, and draws how the ratings moved as members joined;
* ``ladder report`` writes the same reports as ``connectx run`` for all the ladder's games;
* ``ladder remove NAME`` retires a member, whose games stay.

Bad input -- no ladder in DIR, a spec that does not load, an impossible option, a board other than
the ladder's -- is one line and exit status 2, with nothing stored changed. The games are played by
:mod:`tournament.ladder`; the ratings are :mod:`reports.stats.ladder`'s.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from pathlib import Path
from typing import Any

from agents.registry import DEFAULT_ENTRANTS, SpecError
from connectx.options import (
    BOUNDS,
    act_timeout_option,
    board_geometry,
    board_options,
    check_ranges,
    seed_option,
    workers_option,
)
from tournament.driver import Backend, BackendError, Event, Started
from tournament.ladder import (
    RULES,
    Added,
    Candidate,
    Ladder,
    LadderError,
    Planned,
    Roster,
    Rules,
    identify,
    same_board,
    validate,
)
from tournament.ladder.roster import ROSTER
from tournament.openings import OpeningError, resolve
from tournament.record import GameRecord
from tournament.schedule import Settings

DEFAULT_LADDER = Path("ladder")
DEFAULT_SEED_PAIRS = 2
"""Game pairs a pairing of the round robin that seeds a ladder (as ``connectx run``'s default)."""
DEFAULT_UNTIL = 60.0
"""Elo: by default an ``add`` stops once the newcomer's 95 % interval is within ±60."""
DEFAULT_MAX_PAIRS = 200
"""Game pairs an ``add`` plays at most unless ``--pairs`` says otherwise."""
HISTORY = "history.png"
"""The figure of the ratings as members joined, in the ladder (``show``) or the reports' folder."""
LADDER_OPENINGS = 100
"""Random openings drawn for a ladder on a board without the built-in suite."""

LIMITS: dict[str, tuple[float, float]] = {
    **BOUNDS,
    "pairs": (1, 100_000),
    "until": (0.0, 10_000.0),
    "rows": (1, 100),
    "columns": (1, 100),
    "inarow": (1, 100),
    "hang_limit": (0.0, 3600.0),
    "sigma": (0.0, 1e6),
    "beta": (0.0, 1e6),
    "tau": (0, 1e6),
}


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``ladder`` and its actions to the subcommands ``commands``."""
    ladder = commands.add_parser(
        "ladder",
        help="a persistent rating list that new agents join: init, add, show, report, remove",
        description="A ladder remembers: every game it ever played is rated jointly, and a new agent "
        "(or a new version of one) joins by playing the members where its games tell the most. "
        "`connectx ladder` alone shows the list.",
    )
    actions = ladder.add_subparsers(dest="action", metavar="{init,add,show,report,remove}")
    ladder.set_defaults(handler=lambda args, parser: _show(_defaults(actions, "show", args), parser))
    _init_command(actions)
    _add_command(actions)
    show = actions.add_parser("show", help="the rating list (the default action)")
    _ladder_option(show)
    _rating_options(show)
    show.set_defaults(handler=lambda args, _: _show(args, show))
    report = actions.add_parser("report", help="write the reports of all the ladder's games, as `run` does")
    _ladder_option(report)
    report.add_argument("--out", type=Path, default=None, metavar="DIR", help="where (default: the ladder)")
    _rating_options(report)
    report.set_defaults(handler=lambda args, _: _report(args, report))
    remove = actions.add_parser("remove", help="retire a member: it plays no more; its games stay")
    remove.add_argument("name", metavar="NAME", help="the member: name@version, or name when it has one")
    _ladder_option(remove)
    remove.set_defaults(handler=lambda args, _: _remove(args, remove))


def _defaults(
    actions: argparse._SubParsersAction, action: str, args: argparse.Namespace
) -> argparse.Namespace:
    """``args`` of ``connectx ladder`` alone completed with ``action``'s defaults."""
    parsed = actions.choices[action].parse_args([])
    return argparse.Namespace(**{**vars(parsed), **vars(args), "action": action})


def _ladder_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--ladder",
        type=Path,
        default=DEFAULT_LADDER,
        metavar="DIR",
        help=f"the ladder (default {DEFAULT_LADDER})",
    )


def _backend_options(command: argparse.ArgumentParser) -> None:
    workers_option(command, "games played", "; an add plans one game pair a worker at a time")
    command.add_argument("--backend", choices=("local", "ray"), default="local", help="as `connectx run`'s")
    command.add_argument("--address", default=None, metavar="ADDR", help="as `connectx run`'s")


def _init_command(actions: argparse._SubParsersAction) -> None:
    init = actions.add_parser(
        "init",
        help="start a ladder, seeded by a round robin of its first members",
        description="Start a ladder in --ladder DIR: its board, time control, openings and seed, and "
        "a round robin of --pairs game pairs a pairing among its first members (SPECs and, with "
        "--builtins, the agents of the default round robin). Run again after an interruption, it "
        "finishes the round robin.",
    )
    init.add_argument("specs", nargs="*", metavar="SPEC", help="first members (agent specs, as for `run`)")
    init.add_argument(
        "--builtins",
        action="store_true",
        help="the default round robin's agents: " + " ".join(DEFAULT_ENTRANTS),
    )
    _ladder_option(init)
    init.add_argument(
        "--pairs",
        type=int,
        default=DEFAULT_SEED_PAIRS,
        help=f"game pairs a pairing of the seeding round robin (default {DEFAULT_SEED_PAIRS})",
    )
    board_options(init)
    act_timeout_option(init)
    init.add_argument("--hang-limit", type=float, default=None, help="as `connectx run`'s")
    seed_option(init, 1, "the ladder: its openings' order and every game pair's seed")
    init.add_argument(
        "--openings",
        default="auto",
        metavar="FILE|auto|drawn|none",
        help="the openings game pairs start from, as for `connectx run` (default auto)",
    )
    _backend_options(init)
    init.set_defaults(handler=lambda args, _: _init(args, init))


def _add_command(actions: argparse._SubParsersAction) -> None:
    add = actions.add_parser(
        "add",
        help="let agents join the ladder and play until each is rated to ±E Elo",
        description="Each SPEC joins the ladder (a changed file or changed parameters make a new "
        "version, name@2, and the old versions stay rated) and plays game pairs against the members "
        "taking part, first where a pair tells the most about its rating, until its 95 % interval is "
        "within ±--until Elo or it has played --pairs pairs in all. Interrupted, the same command "
        "resumes: nothing lost, nothing played twice.",
    )
    add.add_argument("specs", nargs="+", metavar="SPEC", help="agents to add (agent specs, as for `run`)")
    _ladder_option(add)
    add.add_argument("--name", default=None, help="the member's name (one SPEC; default: the agent's)")
    add.add_argument(
        "--pairs",
        type=int,
        default=None,
        metavar="N",
        help=f"stop after N game pairs of the agent in all its adds (default {DEFAULT_MAX_PAIRS})",
    )
    add.add_argument(
        "--until",
        type=float,
        default=None,
        metavar="E",
        help=f"stop once its 95 %% interval is within ±E Elo (default {DEFAULT_UNTIL:g}; none when "
        "--pairs is given alone)",
    )
    add.add_argument(
        "--matchmaking",
        choices=RULES,
        default="information",
        help="whom it plays: where a pair tells the most (default), or every member in turn (a uniform "
        "gauntlet)",
    )
    for option, what in (
        ("--rows", "rows"),
        ("--columns", "columns"),
        ("--inarow", "stones in a line that win"),
    ):
        add.add_argument(
            option, type=int, default=None, help=f"{what} (default: the ladder's; another is refused)"
        )
    _backend_options(add)
    add.set_defaults(handler=lambda args, _: _add(args, add))


def _rating_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--anchor",
        type=_anchor,
        default=None,
        metavar="NAME=ELO",
        help="hold member NAME at ELO, as Ordo's anchor (default: the mean of the rated members is 0)",
    )
    command.add_argument(
        "--sigma", type=float, default=200.0, help="Kaggle-style σ0, an assumption (default 200)"
    )
    command.add_argument(
        "--beta", type=float, default=100.0, help="Kaggle-style β, an assumption (default 100)"
    )
    command.add_argument("--tau", type=float, default=2.0, help="Kaggle-style τ, an assumption (default 2)")


def _anchor(text: str) -> tuple[str, float]:
    name, sep, value = text.rpartition("=")
    try:
        elo = float(value)
    except ValueError:
        elo = math.nan
    if not sep or not name or not math.isfinite(elo):
        raise argparse.ArgumentTypeError(f"expected NAME=ELO, a member and a number: {text!r}")
    return name.strip(), elo


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


def _init(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
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
    progress = _Progress()
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
    return _show(_show_args(args), parser, plot=False)


def _add(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
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
            added = ladder.add(candidate, rules, LadderRater(), backend, _add_progress)
        except (LadderError, BackendError) as error:
            parser.error(str(error))
        except KeyboardInterrupt:
            print(f"\ninterrupted: the same `connectx ladder add` resumes in {args.ladder}", file=sys.stderr)
            return 130
        print(_added_line(added))
        if added.why == "pairs" and until is not None and added.margin > until:
            records, entries = _rated(_show_args(args), parser)[2:4]
            print(_why_wider(added, until, entries, records))
        if added.failed:
            print(
                f"{added.failed} games failed in the referee; the same add plays them again", file=sys.stderr
            )
            return 1
    return _show(_show_args(args), parser, plot=False)


class _Progress:
    """The terminal's view of a seeding round robin: a progress bar (tqdm) over its games."""

    def __init__(self) -> None:
        self.bar: Any = None  # tqdm has no type information

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread in a process that forks
            self.bar = tqdm(total=event.scheduled, initial=event.stored, unit="game", desc="seeding")
        elif isinstance(event, GameRecord):
            self.bar.update()
        else:
            print(f"warning: {event}", file=sys.stderr)

    def close(self) -> None:
        """Close the bar (again: nothing)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _elo(elo: float) -> str:
    """``+123``, ``+∞`` or ``-∞``."""
    return f"{elo:+.0f}" if math.isfinite(elo) else "+∞" if elo > 0 else "-∞"


def _standing(elo: float, low: float, high: float, margin: float) -> str:
    """Where a newcomer stands, as its progress lines and its last line say it: ``Elo -380 (-458 to
    -310, ±78)``, the Elo and 95 % interval that the rating list shows for it and how far the
    interval reaches (what ``--until`` is compared with)."""
    if math.isnan(elo):
        return "not rated yet (it met only members outside the rated pool)"
    if math.isinf(elo):
        bound = low if elo > 0 else high
        side = ("≥ " if elo > 0 else "≤ ") + f"{bound:+.0f}; " if math.isfinite(bound) else ""
        beyond = bound < 0 if elo > 0 else bound > 0  # as the list's Elo column: no estimate yet
        return f"Elo {'—' if beyond else _elo(elo)} ({side}no finite interval yet)"
    return f"Elo {elo:+.0f} ({low:+.0f} to {high:+.0f}, ±{margin:.0f})"


def _add_progress(event: Event | Planned) -> None:
    """One line a batch an add plans: where the newcomer stands and whom it plays next."""
    if isinstance(event, Planned):
        where = _standing(event.elo, event.low, event.high, event.margin) if event.pairs else "no games yet"
        print(f"after {event.pairs} pairs: {where}; next: {', '.join(event.opponents)}", flush=True)
    elif not isinstance(event, Started | GameRecord):
        print(f"warning: {event}", file=sys.stderr)


def _added_line(added: Added) -> str:
    why = {
        "pairs": "it has played its game pairs",
        "until": "its interval is narrow enough",
        "alone": "no other member takes part",
        "failed": "games failed",
    }[added.why]
    joined = "resumed" if added.resumed else "played on"
    if added.new:
        joined = "joined" if added.member.version == 1 else f"joined as version {added.member.version}"
    where = _standing(added.elo, added.low, added.high, added.margin) if added.pairs else "no games"
    played = f"{added.played} games played, {added.pairs} pairs in all"
    return f"{added.member.id} {joined}: {played}; {where} (stopped: {why})"


def _why_wider(added: Added, until: float, entries: list, records: list[GameRecord]) -> str:
    """Why an add stopped at its cap with its interval wider than ``±until``, in a few lines: the
    members it played are rated only so closely, and its games against them measure its distance
    to each, not their own ratings."""
    me = added.member.id
    met = {name for r in records if me in (r.first, r.second) for name in (r.first, r.second)} - {me}
    reaches = sorted(
        max(e.rating.elo - e.rating.low, e.rating.high - e.rating.elo)
        for e in entries
        if e.member.id in met and e.rating is not None and e.rating.is_finite and math.isfinite(e.rating.low)
    )
    known = f"±{reaches[len(reaches) // 2]:.0f}" if reaches else "no finite interval"
    return (
        f"its interval reaches ±{added.margin:.0f}, not ±{until:g}: it is rated against the {len(met)} "
        f"members it played, whose own ratings the ladder knows to {known} (the median of their 95 % "
        "intervals),\nand its games measure its distance to each of them, not their ratings; more pairs "
        f"(`--pairs {2 * added.pairs}`) narrow it slowly, a ladder seeded with more pairs a pairing "
        "(`ladder init --pairs N`) knows its members closer"
    )


def _show_args(args: argparse.Namespace) -> argparse.Namespace:
    return argparse.Namespace(ladder=args.ladder, anchor=None, sigma=200.0, beta=100.0, tau=2.0)


def _rated(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple:
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


def _show(args: argparse.Namespace, parser: argparse.ArgumentParser, *, plot: bool = True) -> int:
    """``connectx ladder [show]``: the rating list and its notes; with ``plot``, ``history.png`` in the
    ladder (the ratings as members joined), when the ladder's folder can be written."""
    from reports.render.ladder import format_list, notes, ordering_note, plot_history
    from reports.stats.ladder import disagreements, history

    ladder, roster, records, entries, kaggle = _rated(args, parser)
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


def _report(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder report``: the reports ``run`` writes, of all the ladder's games, and
    ``ladder.md`` (the rating list) and ``history.png`` (the ratings as members joined)."""
    from reports.render.documents import write_all
    from reports.render.ladder import markdown_list, notes, ordering_note, plot_history
    from reports.render.terminal import summary
    from reports.report import assemble
    from reports.stats.ladder import disagreements, history

    ladder, roster, records, entries, kaggle = _rated(args, parser)
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


def _remove(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx ladder remove NAME``: retire a member."""
    try:
        member = Ladder(args.ladder).retire(args.name)
    except LadderError as error:
        parser.error(str(error))
    print(f"{member.id} retired: it plays no more in {args.ladder}; its games stay rated")
    return 0
