"""The ``connectx`` command line: the parser of every subcommand, and dispatch.

Subcommands (each in its module, imported only when that subcommand runs or the top-level help is
asked for): ``run`` and ``sprt`` (:mod:`connectx.match`), ``play``
(:mod:`connectx.play`), ``import`` (:mod:`connectx.importing`: episodes played on Kaggle), ``report``
(alias ``table``; :mod:`connectx.results`), ``analyze`` (:mod:`connectx.analyzing`), ``agents``
(:mod:`connectx.listing`), ``build`` and ``check`` (:mod:`connectx.submission`), ``solve``
(:mod:`connectx.solving`), ``train`` (:mod:`connectx.train`), ``serve`` (:mod:`connectx.serve`), ``ladder``
(:mod:`connectx.ladder`). With no subcommand: ``run``, with its defaults or the options given
(``connectx --games 10``). ``python -m connectx`` is the same command.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from connectx.options import Handler, Parser
from tournament.store import StoreError

MODULES = {
    "run": "connectx.match",
    "sprt": "connectx.match",
    "play": "connectx.play",
    "import": "connectx.importing",
    "report": "connectx.results",
    "table": "connectx.results",
    "analyze": "connectx.analyzing",
    "agents": "connectx.listing",
    "build": "connectx.submission",
    "check": "connectx.submission",
    "solve": "connectx.solving",
    "train": "connectx.train",
    "serve": "connectx.serve",
    "ladder": "connectx.ladder",
}
"""Each subcommand (and alias) and the module whose ``add_commands`` adds it, in the help's order."""

COMMANDS = "{" + ",".join(MODULES) + "}"
"""The subcommands as the help's usage line lists them, whichever of them were added."""


def parser(command: str | None = None) -> tuple[Parser, argparse._SubParsersAction[Parser]]:
    """The parser of the whole command and its subcommands (``.choices``: name -> parser); each
    subcommand sets ``handler(args, its parser) -> exit status``. Given a ``command`` of
    :data:`MODULES`, only the module of that subcommand is imported and only its subcommands are added
    (the top-level help and errors, which list them all, need every one: then ``command`` is None):
    a command does not pay for the imports of the others (``import connectx.ladder`` alone, 0.2 s)."""
    top = Parser(
        prog="connectx",
        description="ConnectX (Connect Four) agents: tournaments through the official kaggle-environments "
        "referee, reports, single-file Kaggle submissions, an exact solver, trainable learners.",
    )
    commands = top.add_subparsers(dest="command", metavar=COMMANDS)
    names = [MODULES[command]] if command in MODULES else dict.fromkeys(MODULES.values())
    for name in names:
        importlib.import_module(name).add_commands(commands)
    return top, commands


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status: 0 ok, 1 games failed / a check failed / a position was
    refused, 2 bad input or a directory that cannot be used (another run holds it, read-only, full,
    a damaged store), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM, where a command stops on it
    as on Ctrl-C: ``run``, ``sprt``, ``check``). Every error is one line on stderr."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["run", *argv]  # `connectx --games 10` is `connectx run --games 10`
    top, commands = parser(argv[0])
    args = top.parse_args(argv)
    command = commands.choices[args.command]  # its errors are one line naming it
    handler: Handler = args.handler
    try:
        return handler(args, command)
    except StoreError as error:
        command.error(str(error))
    except OSError as error:  # writing a report or a file: a read-only directory, a full disk
        command.error(f"{error.filename}: {error.strerror}" if error.filename else str(error))
