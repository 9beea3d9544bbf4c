"""``connectx agents``: every agent spec the command line takes, with its parameters.

Everything printed is read from the code -- the registry, each module's docstring and the signature
of its ``make_agent`` -- so a new agent or parameter shows up without a hand-kept table.
"""

from __future__ import annotations

import argparse

from agents.registry import BUILTIN, KAGGLE_BUILTIN, parameters, summary

WIDTH = 16
"""Width of the name column."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``agents`` to the subcommands ``commands``."""
    command = commands.add_parser("agents", help="list the agents and their parameters")
    command.set_defaults(handler=_agents)


def listing() -> list[str]:
    """The lines ``connectx agents`` prints: each agent with a one-line description, and under it its
    parameters (``name: kind = default``); then Kaggle's built-ins and file agents."""
    lines = [
        "Agent specs: NAME, NAME:key=value[,key=value] (e.g. minimax:depth=4) or a path to a .py file.",
        "",
    ]
    for name in BUILTIN:
        lines.append(f"{name:{WIDTH}} {summary(name)}")
        found = [str(p) for p in parameters(name)]  # as a spec error lists them
        lines.append(f"{'':{WIDTH}}   parameters: {', '.join(found) if found else 'none'}")
    for name, builtin in KAGGLE_BUILTIN.items():
        lines.append(
            f"{name:{WIDTH}} kaggle-environments' built-in ConnectX agent {builtin!r}; no parameters"
        )
    lines.append(
        f"{'PATH.py':{WIDTH}} a file agent, loaded as Kaggle loads it (the last callable in the file)"
    )
    return lines


def _agents(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    print("\n".join(listing()))
    return 0
