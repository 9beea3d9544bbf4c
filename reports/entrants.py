"""The entrants of a tournament, for its report and its comparisons: :class:`Entrant` (what each entrant
is, read from the registry without loading the agent) and :func:`short_names` (a name to show for each).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.registry import BUILTIN, KAGGLE_BUILTIN, PICKLED, summary
from tournament.schedule import HUMAN

__all__ = ["Entrant", "entrant", "short_names", "shown"]


@dataclass(frozen=True, slots=True)
class Entrant:
    """An entrant: ``spec`` as given, ``kind`` (``ours``, ``kaggle``, ``file``, ``person``), what it is, its
    parameters (``"depth=2"`` or ""), and for a file agent the SHA-256 of the file as it is when the
    report is written (``"missing"`` if it is gone; "" for other kinds)."""

    spec: str
    kind: str
    description: str
    params: str
    sha256: str


def entrant(spec: str) -> Entrant:
    """What ``spec`` names, read from the registry without loading the agent."""
    if spec == HUMAN:
        return Entrant(spec, "person", "a person playing at the terminal (connectx play)", "", "")
    if spec in KAGGLE_BUILTIN:
        return Entrant(spec, "kaggle", f"kaggle-environments' built-in {KAGGLE_BUILTIN[spec]!r}", "", "")
    name, _, params = spec.partition(":")
    if name in BUILTIN:
        return Entrant(spec, "ours", summary(name), params.replace(",", ", "), "")
    path = Path(spec)
    digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    what = "callable pickled" if spec.endswith(PICKLED) else "file agent"  # connectx.entrants wrote it
    return Entrant(spec, "file", f"{what} {os.path.abspath(spec)}", "", digest)


def short_names(specs: Sequence[str]) -> dict[str, str]:
    """A short name for each entrant spec, to show where a path is too long: a file agent's file name
    without ``.py`` (``bots/v2/mine.py`` -> ``mine``; a pickled callable's, its name:
    ``runs/a/agents/my_agent.pkl`` -> ``my_agent``), with its folder (``v2/mine``) when two files of
    ``specs`` share a name; other specs as they are."""

    def name(spec: str, folder: bool) -> str:
        if spec == HUMAN or spec in KAGGLE_BUILTIN or spec.partition(":")[0] in BUILTIN:
            return spec
        path = Path(spec)
        return f"{path.parent.name}/{path.stem}" if folder and path.parent.name else path.stem

    short = [name(spec, folder=False) for spec in specs]
    return {spec: name(spec, folder=short.count(alone) > 1) for spec, alone in zip(specs, short, strict=True)}


def shown(name: str) -> str:
    """How the report shows entrant ``name`` (a spec) where it names it: a pickled callable by its
    name, the file's stem (``runs/a/agents/my_agent.pkl`` -> ``my_agent``: ``connectx.entrants``
    names the file after the callable; the entrants' table gives the whole path); any other as it is.

    >>> shown("runs/a/agents/my_agent.pkl"), shown("minimax:depth=2")
    ('my_agent', 'minimax:depth=2')
    """
    return Path(name).stem if name.endswith(PICKLED) else name
