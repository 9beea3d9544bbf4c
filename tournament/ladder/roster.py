"""A ladder's members and the history of its additions, kept in ``DIR/ladder.json``.

A *member* is one version of an agent: ``name@version``. Its name is the agent's registry name
(``minimax`` for ``minimax:depth=2``; Kaggle's built-ins keep theirs), a file agent's file name without
``.py``, or the name given. Its *identity* is a digest of what makes the agent play as it does:
for our agents, the parameters that differ from ``make_agent``'s defaults (``minimax`` and
``minimax:depth=3`` are one agent when 3 is the default); for a file agent, the file's bytes; every
file a spec reads (a ``.py`` agent, a weights file) by the SHA-256 of its contents. A spec of a known
name whose identity is new becomes the next version, ``name@2``, and the old versions stay.

Each file a member reads is copied into ``DIR/agents/<digest>/`` when it joins, and the member
plays from the copy ever after: editing an agent's file in place makes the next ``add`` a new
version, and never changes the one already rated. (A file agent is copied alone, as Kaggle takes
a single-file submission.)

The additions are *sessions*: the round robin that seeded the ladder (``seed``) and each ``add``
(``add``), with the first game pair it played, how many pairs it plans at once, and whether it
ended (its stop rule decided). An ``add`` interrupted before it ended is resumed by the next
``add`` of the same member (:mod:`tournament.ladder.driver`).

The file, like each copy, is written by :func:`agents.files.replace_atomically`: a process killed
while writing it, or a power cut, leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.files import replace_atomically
from agents.registry import BUILTIN, AgentSpec, files_of, parse_spec, with_paths

__all__ = [
    "AGENTS",
    "GAMES",
    "ROSTER",
    "Candidate",
    "LadderError",
    "Member",
    "Roster",
    "Session",
    "identify",
    "keep_files",
]

ROSTER = "ladder.json"
"""The roster's file in a ladder folder."""
GAMES = "games"
"""The ladder's store (:mod:`tournament.store`), a folder in the ladder folder."""
AGENTS = "agents"
"""The copies of the members' files, a folder in the ladder folder."""
FORMAT = 1
"""The layout of ``ladder.json``; a file of another layout is refused."""


class LadderError(ValueError):
    """A ladder folder, member or spec that cannot be used as asked; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """An agent spec about to join: its ``name``, its ``identity`` (module docstring), the ``spec``
    as given, and the ``files`` it reads (as written in the spec -> absolute path)."""

    name: str
    identity: str
    spec: str
    files: dict[str, str]


@dataclass(frozen=True, slots=True)
class Member:
    """One version of an agent on the ladder.

    ``spec`` is the spec it plays, with each file it reads written as its copy's path relative to
    the ladder folder (``files`` lists them); ``added`` and ``retired`` are ISO 8601 UTC times
    (``retired`` None while it takes part); ``toolkit`` the toolkit that added it.
    """

    name: str
    version: int
    identity: str
    spec: str
    files: tuple[str, ...] = ()
    added: str = ""
    retired: str | None = None
    toolkit: str = ""

    @property
    def id(self) -> str:
        """``name@version``: the member's name in the store, the tables and the reports."""
        return f"{self.name}@{self.version}"

    def played_as(self, directory: Path) -> str:
        """The spec that plays this member from the ladder folder ``directory``: its copies' absolute
        paths (the folder may have moved since it joined)."""
        base = Path(directory).resolve()
        return with_paths(self.spec, {path: str(base / path) for path in self.files})


@dataclass(frozen=True, slots=True)
class Session:
    """One addition: ``kind`` ``"seed"`` (the round robin of ``members`` that seeded the ladder,
    ``pairs`` game pairs a pairing) or ``"add"`` (one member, ``members[0]``, planning ``pairs`` game
    pairs at once). ``first_pair`` is its first game pair's id, ``started`` an ISO 8601 UTC time,
    ``ended`` True once it stopped by its rule (False while it may be resumed)."""

    kind: str
    members: tuple[str, ...]
    first_pair: int
    pairs: int
    started: str = ""
    ended: bool = False


@dataclass(frozen=True, slots=True)
class Roster:
    """Every member, in the order they joined, and every session, in order."""

    members: tuple[Member, ...] = ()
    sessions: tuple[Session, ...] = ()

    @classmethod
    def load(cls, directory: Path) -> Roster:
        """The roster of the ladder folder ``directory``; :class:`LadderError` when there is none or
        it cannot be read."""
        path = Path(directory) / ROSTER
        if not path.is_file():
            raise LadderError(
                f"no ladder in {directory} (no {ROSTER}); start one with `connectx ladder init --builtins`"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as error:  # RecursionError: JSON nested too deep
            reason = "nested too deep" if isinstance(error, RecursionError) else str(error)
            raise LadderError(f"cannot read {path}: {reason}") from None
        if not isinstance(data, dict):
            raise LadderError(
                f"{path} is not a ladder's roster: it holds a JSON {_json_kind(data)}, not an object"
            )
        if data.get("format") != FORMAT:
            raise LadderError(
                f"{path} is of layout {str(data.get('format'))[:40]!r}; this toolkit reads {FORMAT}"
            )
        members = tuple(
            _entry(Member, raw, f"members[{i}]", path) for i, raw in _listed(data, "members", path)
        )
        sessions = tuple(
            _entry(Session, raw, f"sessions[{i}]", path) for i, raw in _listed(data, "sessions", path)
        )
        _check_references(members, sessions, path)
        return cls(members, sessions)

    def save(self, directory: Path) -> None:
        """Write the roster into ``directory`` (atomically: module docstring); raises OSError."""
        path = Path(directory) / ROSTER
        data: dict[str, Any] = {
            "format": FORMAT,
            "members": [dataclasses.asdict(member) for member in self.members],
            "sessions": [dataclasses.asdict(session) for session in self.sessions],
        }
        text = json.dumps(data, indent=1) + "\n"
        replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))

    @property
    def ids(self) -> list[str]:
        """Every member's id, in the order they joined."""
        return [member.id for member in self.members]

    @property
    def active(self) -> list[Member]:
        """The members not retired, in the order they joined."""
        return [member for member in self.members if member.retired is None]

    def find(self, text: str) -> Member:
        """The member ``text`` names: ``name@version``, or ``name`` when it has one version taking part
        (or one at all). Raises :class:`LadderError` (one line) otherwise."""
        exact = [member for member in self.members if member.id == text]
        if exact:
            return exact[0]
        versions = [member for member in self.members if member.name == text]
        active = [member for member in versions if member.retired is None]
        if len(active) == 1 or len(versions) == 1:
            return (active or versions)[0]
        if versions:
            names = ", ".join(member.id for member in (active or versions))
            raise LadderError(f"{text!r} has several versions ({names}): name one")
        known = ", ".join(self.ids) or "none"
        raise LadderError(f"no member {text!r} on this ladder (members: {known})")

    def match(self, candidate: Candidate) -> Member | None:
        """The member that ``candidate`` already is (same name and identity), else None."""
        return next(
            (m for m in self.members if m.name == candidate.name and m.identity == candidate.identity), None
        )

    def admit(self, candidate: Candidate, *, added: str, toolkit: str) -> Member:
        """The member ``candidate`` is (:meth:`match`), else the one it becomes: the next version of
        its name, playing from copies of its files (module docstring; :func:`keep_files` makes them)."""
        known = self.match(candidate)
        if known is not None:
            return known
        version = 1 + max((m.version for m in self.members if m.name == candidate.name), default=0)
        copies = {written: _copy_path(Path(path)) for written, path in candidate.files.items()}
        spec = with_paths(candidate.spec, copies)
        return Member(
            candidate.name, version, candidate.identity, spec, tuple(copies.values()), added, None, toolkit
        )

    def with_member(self, member: Member) -> Roster:
        """This roster with ``member`` added, or replacing the member of its id."""
        members = [member if m.id == member.id else m for m in self.members]
        if member.id not in self.ids:
            members.append(member)
        return dataclasses.replace(self, members=tuple(members))

    def with_session(self, session: Session) -> Roster:
        """This roster with ``session`` added, or replacing the last session when that one has the
        same kind, members and first pair (a session resumed, or ended)."""
        last = self.sessions[-1] if self.sessions else None
        if last is not None and (last.kind, last.members, last.first_pair) == (
            session.kind,
            session.members,
            session.first_pair,
        ):
            return dataclasses.replace(self, sessions=(*self.sessions[:-1], session))
        return dataclasses.replace(self, sessions=(*self.sessions, session))


_TEXT = (lambda v: isinstance(v, str), "a string")
_WHOLE = (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "a whole number, 0 or more")
_TEXTS = (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings")
_KINDS: dict[type, dict[str, tuple[Callable[[Any], bool], str]]] = {
    Member: {
        "name": _TEXT, "version": _WHOLE, "identity": _TEXT, "spec": _TEXT, "files": _TEXTS, "added": _TEXT,
        "retired": (lambda v: v is None or isinstance(v, str), "a string or null"), "toolkit": _TEXT,
    },
    Session: {
        "kind": (lambda v: v in ("seed", "add"), '"seed" or "add"'), "members": _TEXTS, "first_pair": _WHOLE,
        "pairs": _WHOLE, "started": _TEXT, "ended": (lambda v: isinstance(v, bool), "true or false"),
    },
}  # fmt: skip
"""What each field of a roster's entry holds in ``ladder.json``: a check and its description."""


def _json_kind(value: Any) -> str:
    kinds = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return kinds.get(type(value), "number")


def _listed(data: dict[str, Any], key: str, path: Path) -> list[tuple[int, Any]]:
    """The entries of ``data[key]``, numbered; :class:`LadderError` unless it is a JSON list."""
    if not isinstance(data.get(key), list):
        raise LadderError(f"{path} is not a ladder's roster: {key!r} must be a list")
    return list(enumerate(data[key]))


def _entry(cls: type[Any], raw: Any, where: str, path: Path) -> Any:
    """The :class:`Member` or :class:`Session` the JSON object ``raw`` describes, its fields checked
    (:data:`_KINDS`); :class:`LadderError` naming ``where`` (``members[2]``) and what is wrong."""
    refused = f"{path} is not a ladder's roster: {where}"
    if not isinstance(raw, dict):
        raise LadderError(f"{refused} must be a JSON object, not a {_json_kind(raw)}")
    kinds = _KINDS[cls]
    for key in raw:
        if key not in kinds:
            raise LadderError(f"{refused} has an unknown key {str(key)[:40]!r}")
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if field.name not in raw:
            if field.default is dataclasses.MISSING:
                raise LadderError(f"{refused} has no {field.name!r}")
            continue
        value = raw[field.name]
        fits, wanted = kinds[field.name]
        if not fits(value):
            shown = f"a {_json_kind(value)}" if isinstance(value, list | dict) else json.dumps(value)[:40]
            raise LadderError(f"{refused}.{field.name} must be {wanted}, got {shown}")
        values[field.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def _check_references(members: tuple[Member, ...], sessions: tuple[Session, ...], path: Path) -> None:
    """:class:`LadderError` when two members share an id or a session names a member not in the roster."""
    ids = [member.id for member in members]
    for index, session in enumerate(sessions):
        for name in session.members:
            if name not in ids:
                raise LadderError(
                    f"{path} is not a ladder's roster: sessions[{index}] names {name!r}, no member"
                )
    doubled = sorted({i for i in ids if ids.count(i) > 1})
    if doubled:
        raise LadderError(f"{path} is not a ladder's roster: {doubled[0]} is listed twice")


def identify(text: str, name: str | None = None) -> Candidate:
    """The :class:`Candidate` of agent spec ``text``, named ``name`` or by its agent (module
    docstring). Raises :class:`~agents.registry.SpecError` (a ``ValueError``, one line) for a spec
    that does not parse, names no agent or a missing file, and :class:`LadderError` for a name
    that cannot be a member's (empty, or holding ``@`` or a separator)."""
    spec = parse_spec(text)
    files = files_of(spec.text)
    digests = {written: _file_digest(Path(path)) for written, path in files.items()}
    if spec.kind == "file":
        canonical: dict[str, Any] = {"file": digests[spec.text]}
        default_name = Path(spec.name).stem
    elif spec.kind == "kaggle":
        canonical = {"kaggle": spec.name}
        default_name = spec.name
    else:
        canonical = {"agent": spec.name, "parameters": _parameters(spec, digests)}
        default_name = spec.name
    chosen = default_name if name is None else name.strip()
    if not chosen or any(char in chosen for char in "@/\\:,= \t\n"):
        raise LadderError(f"{chosen!r} cannot name a member: a name has no '@', ':', ',', '=', '/' or spaces")
    identity = hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()[:16]
    return Candidate(chosen, identity, spec.text, files)


def _parameters(spec: AgentSpec, digests: dict[str, str]) -> dict[str, Any]:
    """Our agent's parameters that differ from ``make_agent``'s defaults, a file named by its digest."""
    signature = inspect.signature(importlib.import_module(BUILTIN[spec.name]).make_agent)
    by_path = {os.path.abspath(written): digest for written, digest in digests.items()}
    out: dict[str, Any] = {}
    for key, value in spec.params.items():
        parameter = signature.parameters.get(key)
        default = inspect.Parameter.empty if parameter is None else parameter.default
        if value == default and type(value) is type(default):
            continue
        out[key] = {"sha256": by_path[value]} if isinstance(value, str) and value in by_path else value
    return out


def _file_digest(path: Path) -> str:
    """The SHA-256 of the file's contents, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def keep_files(candidate: Candidate, directory: Path) -> None:
    """Copy the files ``candidate`` reads into the ladder folder ``directory``, where its member
    plays them from (:meth:`Roster.admit`); a copy already there is kept (it is named by its
    contents). Through a temporary name, readable by the agents' users (0644 in folders of 0755).
    Raises OSError when a copy cannot be written."""
    for path in candidate.files.values():
        _copy(Path(path), Path(directory) / _copy_path(Path(path)))


def _copy_path(path: Path) -> str:
    """Where the ladder keeps its copy of the file ``path``, relative to the ladder folder."""
    return f"{AGENTS}/{_file_digest(path)[:16]}/{path.name}"


def _copy(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` unless it is there."""
    if target.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)

    def write(temporary: Path) -> None:
        shutil.copyfile(source, temporary)
        os.chmod(temporary, 0o644)

    replace_atomically(target, write)
