"""Which agents a page may ask the server to play: :class:`Specs`.

A side of the board is a person (:data:`HUMAN`) or an agent spec, as the command line takes it
(:mod:`agents.registry`): one of our agents with its parameters, one of Kaggle's, or a ``.py`` file.
A page may name only the files the person running the server offered: a file under DIR, or one given
to ``connectx serve --agent``. That holds for a file agent and for every parameter that names a file
(``lms:weights=...``), and it is checked before the spec is parsed, since parsing one of our agents'
specs builds the agent in the server (reading its weights, say). A relative path is read from DIR
(``bots/mine.py``, ``lms:weights=exp/w.npz``), never from the server's working directory; the spec
checked names the file by its absolute path, as its host and a saved game take it. A spec whose agent
cannot be made (a weights file missing or not one) is refused in a sentence. A user's file is never
run here: its host runs it (:mod:`web.tables`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agents.registry import (
    BUILTIN,
    KAGGLE_BUILTIN,
    SpecError,
    parameters,
    parse_spec,
    summary,
    with_paths,
)
from tournament.schedule import HUMAN

__all__ = ["HUMAN", "Choice", "Specs"]

FILE_DEPTH = 3
"""Folder levels under DIR searched for ``.py`` agent files to offer."""

MAX_FILES = 200
"""Agent files offered at most (the first, by path)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """An agent a page offers: its ``spec`` (a name, or a file's path), a one-line ``summary`` and
    its ``parameters`` as ``connectx agents`` lists them (``depth: int = 3``)."""

    spec: str
    summary: str
    parameters: tuple[str, ...] = ()


class Specs:
    """The agents of a server that serves ``root`` (resolved) and was given the agent ``files``."""

    def __init__(self, root: Path, files: tuple[Path, ...] = ()) -> None:
        self.root = root
        self.files = tuple(path.resolve() for path in files)

    def check(self, text: str) -> str:
        """The spec ``text`` checked: :data:`HUMAN`, or the spec as :func:`agents.registry.parse_spec`
        gives it, each relative path in it read from DIR and written absolute. Raises
        :class:`agents.registry.SpecError` (one line) for a spec that names no agent, has a bad
        parameter, names a file outside DIR not given on the command line, or whose agent cannot be
        made (its weights file missing or broken)."""
        text = text.strip()
        if text == HUMAN:
            return HUMAN
        if not text:
            raise SpecError("no agent named: choose human or an agent")
        text = self._from_root(text)
        for path in self._paths(text):
            if not self._offered(path):
                raise SpecError(
                    f"{path} is not under the served folder {self.root} and was not given with --agent: "
                    "the board plays no other file"
                )
        try:
            return parse_spec(text).text
        except SpecError:
            raise
        except Exception as error:  # noqa: BLE001 - making the agent reads its files: whatever a bad one raises
            reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
            raise SpecError(f"{text}: the agent cannot be made: {reason}") from None

    def choices(self) -> list[Choice]:
        """Every agent to offer: ours (with their parameters), Kaggle's, then the files (given with
        ``--agent``, then the ``.py`` files under DIR, up to :data:`FILE_DEPTH` folders down)."""
        ours = [Choice(name, summary(name), tuple(map(str, parameters(name)))) for name in BUILTIN]
        kaggle = [
            Choice(name, f"kaggle-environments' built-in agent {KAGGLE_BUILTIN[name]!r}")
            for name in KAGGLE_BUILTIN
        ]
        files = [
            Choice(self._shown(path), "a file agent, loaded as Kaggle loads it")
            for path in self._agent_files()
        ]
        return ours + kaggle + files

    def _from_root(self, text: str) -> str:
        """``text`` with each relative path in it (the spec, or a parameter's value) read from DIR:
        a file agent's path always, a parameter's value when it names a file there (written absolute);
        a value that names a file only from the server's working directory is refused."""
        name, _, rest = text.partition(":")
        ours = name in BUILTIN
        if not ours and text in KAGGLE_BUILTIN:
            return text
        values = [item.partition("=")[2].strip() for item in rest.split(",")] if ours else [text]
        found: dict[str, str] = {}
        for value in values:
            if not value or os.path.isabs(value):
                continue
            if not ours and (value.endswith(".py") or os.sep in value) or os.path.isfile(self.root / value):
                found[value] = str(self.root / value)
            elif os.path.isfile(value):
                raise SpecError(f"{value} is not a file in the served folder {self.root}")
        return with_paths(text, found) if found else text

    def _paths(self, text: str) -> list[Path]:
        """The existing files spec ``text`` names, resolved: the spec itself, or any parameter value
        (``key=value`` after the name's ``:``, as :mod:`agents.registry` reads them)."""
        name, _, rest = text.partition(":")
        candidates = [text] if name not in BUILTIN else []
        candidates += [item.partition("=")[2].strip() for item in rest.split(",")] if name in BUILTIN else []
        return [Path(value).resolve() for value in candidates if value and os.path.isfile(value)]

    def _offered(self, path: Path) -> bool:
        return path.is_relative_to(self.root) or path in self.files

    def _agent_files(self) -> list[Path]:
        found = list(self.files)
        for folder, dirs, names in os.walk(self.root):
            depth = len(Path(folder).relative_to(self.root).parts)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < FILE_DEPTH)
            found += [Path(folder, name) for name in sorted(names) if name.endswith(".py")]
            found = [path for path in found if self._offered(path.resolve())]  # no link leading out
            if len(found) >= MAX_FILES:
                break
        return list(dict.fromkeys(found))[:MAX_FILES]

    def _shown(self, path: Path) -> str:
        """A file's spec as a page writes it: relative to DIR where it lies below it, else absolute."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)
