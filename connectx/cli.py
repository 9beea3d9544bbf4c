"""The ``connectx`` command line: the parser of every subcommand, and dispatch.

Subcommands (each in its module): ``run`` and ``sprt`` (:mod:`connectx.match`), ``play``
(:mod:`connectx.play`), ``import`` (:mod:`connectx.importing`: episodes played on Kaggle), ``report``
(alias ``table``; :mod:`connectx.results`), ``analyze`` (:mod:`connectx.analyzing`), ``agents``
(:mod:`connectx.listing`), ``build`` and ``check`` (:mod:`connectx.submission`), ``solve``
(:mod:`connectx.solving`), ``train`` (:mod:`connectx.train`), ``serve`` (:mod:`connectx.serve`), ``ladder``
(:mod:`connectx.ladder`). With no subcommand: ``run``, with its defaults or the options given
(``connectx --games 10``). ``python -m connectx`` is the same command.
"""

from __future__ import annotations

import argparse
import sys

from connectx import (
    analyzing,
    importing,
    ladder,
    listing,
    match,
    play,
    results,
    serve,
    solving,
    submission,
    train,
)
from connectx.options import Handler, Parser
from tournament.store import StoreError

COMMANDS = "{run,sprt,play,import,report,table,analyze,agents,build,check,solve,train,serve,ladder}"


def parser() -> tuple[Parser, argparse._SubParsersAction[Parser]]:
    """The parser of the whole command and its subcommands (``.choices``: name -> parser); each
    subcommand sets ``handler(args, its parser) -> exit status``."""
    top = Parser(
        prog="connectx",
        description="ConnectX (Connect Four) agents: tournaments through the official kaggle-environments "
        "referee, reports, single-file Kaggle submissions, an exact solver, trainable learners.",
    )
    commands = top.add_subparsers(dest="command", metavar=COMMANDS)
    for module in (
        match,
        play,
        importing,
        results,
        analyzing,
        listing,
        submission,
        solving,
        train,
        serve,
        ladder,
    ):
        module.add_commands(commands)
    return top, commands


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status: 0 ok, 1 games failed / a check failed / a position was
    refused, 2 bad input or a directory that cannot be used (another run holds it, read-only, full,
    a damaged store), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM, where a command stops on it
    as on Ctrl-C: ``run``, ``sprt``, ``check``). Every error is one line on stderr."""
    top, commands = parser()
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["run", *argv]  # `connectx --games 10` is `connectx run --games 10`
    args = top.parse_args(argv)
    command = commands.choices[args.command]  # its errors are one line naming it
    handler: Handler = args.handler
    try:
        return handler(args, command)
    except StoreError as error:
        command.error(str(error))
    except OSError as error:  # writing a report or a file: a read-only directory, a full disk
        command.error(f"{error.filename}: {error.strerror}" if error.filename else str(error))
