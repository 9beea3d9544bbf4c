"""``connectx ladder``'s command line: its actions' parsers, each handing its arguments to its handler."""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.registry import DEFAULT_ENTRANTS
from connectx.ladder.actions import add_members, retire_member, seed_ladder
from connectx.ladder.arguments import (
    DEFAULT_MAX_PAIRS,
    DEFAULT_SEED_PAIRS,
    DEFAULT_UNTIL,
    backend_options,
    ladder_option,
    rating_options,
)
from connectx.ladder.lists import show_list, write_reports
from connectx.options import act_timeout_option, board_options, seed_option
from tournament.ladder import RULES

__all__ = ["add_commands"]


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
    ladder.set_defaults(handler=lambda args, parser: show_list(_defaults(actions, "show", args), parser))
    _init_command(actions)
    _add_command(actions)
    show = actions.add_parser("show", help="the rating list (the default action)")
    ladder_option(show)
    rating_options(show)
    show.set_defaults(handler=lambda args, _: show_list(args, show))
    report = actions.add_parser("report", help="write the reports of all the ladder's games, as `run` does")
    ladder_option(report)
    report.add_argument("--out", type=Path, default=None, metavar="DIR", help="where (default: the ladder)")
    rating_options(report)
    report.set_defaults(handler=lambda args, _: write_reports(args, report))
    remove = actions.add_parser("remove", help="retire a member: it plays no more; its games stay")
    remove.add_argument("name", metavar="NAME", help="the member: name@version, or name when it has one")
    ladder_option(remove)
    remove.set_defaults(handler=lambda args, _: retire_member(args, remove))


def _defaults(
    actions: argparse._SubParsersAction, action: str, args: argparse.Namespace
) -> argparse.Namespace:
    """``args`` of ``connectx ladder`` alone completed with ``action``'s defaults."""
    parsed = actions.choices[action].parse_args([])
    return argparse.Namespace(**{**vars(parsed), **vars(args), "action": action})


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
    ladder_option(init)
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
    backend_options(init)
    init.set_defaults(handler=lambda args, _: seed_ladder(args, init))


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
    ladder_option(add)
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
    backend_options(add)
    add.set_defaults(handler=lambda args, _: add_members(args, add))
