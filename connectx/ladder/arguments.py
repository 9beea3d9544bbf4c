"""The options of ``connectx ladder``'s actions that several share, their defaults and their bounds."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from connectx.ladders import DEFAULT_MAX_PAIRS, DEFAULT_UNTIL, LADDER_OPENINGS
from connectx.options import BOUNDS, workers_option

__all__ = [
    "DEFAULT_LADDER",
    "DEFAULT_MAX_PAIRS",
    "DEFAULT_SEED_PAIRS",
    "DEFAULT_UNTIL",
    "LADDER_OPENINGS",
    "LIMITS",
]

DEFAULT_LADDER = Path("ladder")
"""The ladder's folder unless ``--ladder`` says otherwise."""
DEFAULT_SEED_PAIRS = 2
"""Game pairs a pairing of the round robin that seeds a ladder (as ``connectx run``'s default)."""
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


def ladder_option(command: argparse.ArgumentParser) -> None:
    """Add ``--ladder DIR``, the ladder's folder (default :data:`DEFAULT_LADDER`), to ``command``."""
    command.add_argument(
        "--ladder",
        type=Path,
        default=DEFAULT_LADDER,
        metavar="DIR",
        help=f"the ladder (default {DEFAULT_LADDER})",
    )


def backend_options(command: argparse.ArgumentParser) -> None:
    """Add ``--workers``, ``--backend`` and ``--address``, as ``connectx run``'s, to ``command``."""
    workers_option(command, "games played", "; an add plans one game pair a worker at a time")
    command.add_argument("--backend", choices=("local", "ray"), default="local", help="as `connectx run`'s")
    command.add_argument("--address", default=None, metavar="ADDR", help="as `connectx run`'s")


def rating_options(command: argparse.ArgumentParser) -> None:
    """Add ``--anchor NAME=ELO`` and the Kaggle-style ``--sigma``, ``--beta`` and ``--tau`` to ``command``."""
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
