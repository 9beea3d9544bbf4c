"""Turn one of our agents into the single Python file Kaggle takes.

Kaggle's loader (``kaggle_environments.agent.get_last_callable``) reads the file at the agent's
first move, executes it in an empty namespace and plays the **last callable** it defined. A built
file is laid out for that:

1. a header of comments: what the file is, the spec, the project version, the build date (the only
   line that changes between two builds of the same tree) and the sha256 of the body below it;
2. ``_PREFIX``, ``_ENTRY``, ``_PARAMS``: the private module prefix, the agent module and the
   parameters baked in from the spec;
3. ``_load``: the loader, copied from :mod:`submissions.runtime`;
4. ``_MODULES``: the source of every module the agent imports (found by :mod:`submissions.inline`),
   verbatim from the package as raw string literals -- generated from the source at every build,
   never a hand-kept copy -- except ``agents.resources``, replaced by a generated module with the
   data files embedded (zlib-compressed, base64, lines of at most 100 characters);
5. ``agent(obs, config)``, last: it loads the modules and calls ``make_agent(**_PARAMS)`` at its
   first call, then plays.

Why the agent is made lazily, at the first call, rather than at module level: Kaggle executes the
file inside the first move (``build_agent``'s ``callable_agent`` runs ``get_last_callable`` and then
the agent within one timed call), so module-level work and first-call work both count against move
one and the first-move time is the same either way. ``benchmarks/submissions.py`` measures the
parts: executing the file takes 1-6 ms, loading the modules and ``make_agent`` 10-30 ms for our
agents; putting the second at module level would only move it into the first. Lazily, a failure
while loading reaches Kaggle's log as an agent ``ERROR`` with a full traceback naming the package
file and line (see :mod:`submissions.runtime`), whereas a module-level failure is reduced by
``get_last_callable`` to a one-line ``InvalidArgument("Invalid raw Python: ...")``. It also keeps
executing the file cheap for tools that only want its last callable. (So ``check``'s "loading"
time of a built file is its ~2 ms of module level; the modules and ``make_agent`` show in its first
move, which ``check`` reports and, under the strict time policy, holds to ``actTimeout``.)

Building is deterministic: the same tree and spec give the same bytes apart from the ``Built:``
line (which honours ``SOURCE_DATE_EPOCH``).
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agents.engine.solver.databases import PACKED_FILE
from agents.registry import BUILTIN, parse_spec
from agents.weights import load
from submissions import runtime
from submissions.databases import packed_database
from submissions.inline import RESOURCES, BuildError, Inlining, collect

__all__ = [
    "BODY_MARKER",
    "BuildError",
    "Submission",
    "body_of",
    "build_time",
    "build_module",
    "build_spec",
    "header_fields",
    "project_version",
    "provenance",
    "write",
]

DISTRIBUTION = "connectx-toolkit"
"""The project's name in package metadata (its version goes in the header)."""

BODY_MARKER = "# ---- body ----"
"""The header ends with this line; the ``Body sha256`` is of the text after it."""

RUNTIME_MARKER = "# ---- COPY BELOW"
"""Line of :mod:`submissions.runtime` after which its text is copied into built files."""

DATA_LINE = 88
"""Characters of base64 per line: with the indentation and quotes a line stays under 100."""


@dataclass(frozen=True, slots=True)
class Submission:
    """A built file: its ``text``, the ``spec`` and agent module (``entry``) it was built from, the
    baked ``params``, the inlined ``modules`` (names, dependency order), the embedded ``data``
    files as ``(name, bytes)`` sizes, the ``body_sha256`` (hex), ``warnings`` for whoever builds it,
    on what they can act on (a data file read by the agent is missing, so it is not embedded: fetch
    it) and ``notes`` for who develops the agent's code (:attr:`submissions.inline.Inlining.notes`:
    optional modules left out, ``__file__`` used)."""

    text: str
    spec: str
    entry: str
    params: Mapping[str, Any]
    modules: tuple[str, ...]
    data: tuple[tuple[str, int], ...]
    body_sha256: str
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def project_version() -> str:
    """This project's version from package metadata (``importlib.metadata``), ``"unknown"`` if absent."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def build_time() -> str:
    """The build's time for a header, ISO 8601 UTC to the second (``SOURCE_DATE_EPOCH`` when set)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return moment.isoformat(timespec="seconds")


def _literal(text: str) -> str:
    """A Python string literal for ``text``: raw triple-quoted (readable) whenever that is exact."""
    if "'''" not in text and "\r" not in text and not text.endswith(("\\", "'")):
        literal = "r'''" + text + "'''"
    else:
        escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\r", "\\r")
        literal = "'''" + escaped + "'''"
    if ast.literal_eval(literal) != text:  # pragma: no cover - guards the two rules above
        raise AssertionError("string literal does not round-trip")
    return literal


def _runtime_source() -> str:
    text = Path(runtime.__file__).read_text(encoding="utf-8")
    _, marker, rest = text.partition(RUNTIME_MARKER)
    if not marker:  # pragma: no cover - the marker is part of submissions/runtime.py
        raise AssertionError(f"{runtime.__file__} lost its {RUNTIME_MARKER!r} line")
    return rest.partition("\n")[2].strip("\n") + "\n"


def _resources_source(package: str, files: Mapping[str, bytes]) -> str:
    """Source of the generated ``<package>.resources``: ``read(name)`` over the embedded ``files``."""
    entries = []
    for name in sorted(files):
        blob = files[name]
        encoded = base64.b64encode(zlib.compress(blob, 9)).decode("ascii")
        digest = hashlib.sha256(blob).hexdigest()
        lines = [f'        "{encoded[i : i + DATA_LINE]}"' for i in range(0, len(encoded), DATA_LINE)]
        body = "\n".join(lines) if lines else '        ""'
        entries.append(f"    {name!r}: (  # {len(blob)} bytes, sha256 {digest}\n{body}\n    ),\n")
    table = "{\n" + "".join(entries) + "}" if entries else "{}"
    return (
        f'"""{package}.{RESOURCES} for a single-file submission, generated by submissions.build.\n'
        "\n"
        f"In the package, read(name) returns the bytes of {package}/data/<name>; here the same files are\n"
        "embedded (zlib-compressed, base64) and read(name) returns the same bytes.\n"
        '"""\n'
        "\n"
        "import base64\n"
        "import zlib\n"
        "\n"
        f"_FILES = {table}\n"
        "\n"
        "\n"
        "def read(name: str) -> bytes:\n"
        '    """The bytes of data file ``name``; raises ``FileNotFoundError`` when it is not embedded."""\n'
        "    if name not in _FILES:\n"
        '        raise FileNotFoundError(f"agent data file missing: {name} (not embedded in this file)")\n'
        "    return zlib.decompress(base64.b64decode(_FILES[name]))\n"
    )


def _params_literal(params: Mapping[str, Any]) -> str:
    for key, value in params.items():
        if not isinstance(value, bool | int | float | str) or ast.literal_eval(repr(value)) != value:
            raise BuildError(f"parameter {key}={value!r} cannot be baked into a file as a literal")
    return "{" + ", ".join(f"{key!r}: {params[key]!r}" for key in sorted(params)) + "}"


def _weights_file(entry: str, resources: tuple[str, ...], path: Any) -> dict[str, bytes]:
    """``{"<module>.npz": bytes of the file at path}`` for a ``weights`` parameter (``{}`` without
    one); :class:`BuildError` when it cannot stand in for the agent's own weights file."""
    if path is None:
        return {}
    name = f"{entry.rpartition('.')[2]}.npz"
    if name not in resources:
        raise BuildError(f"{entry} reads no data file {name!r}: weights={path} cannot be embedded")
    try:
        load(str(path), shipped=lambda: b"")  # FileNotFoundError / ValueError say why not
    except (FileNotFoundError, ValueError) as error:
        raise BuildError(str(error)) from None
    return {name: Path(path).read_bytes()}


def build_module(
    entry: str, params: Mapping[str, Any] | None = None, *, spec: str | None = None
) -> Submission:
    """Build the file for agent module ``entry`` (``<package>.<module>`` exposing ``make_agent``).

    ``params`` are baked in as ``make_agent(**params)`` (int, float, bool or str values), except
    ``weights``: the path of a weights file (:mod:`agents.weights`), embedded as the agent's own data
    file ``<module>.npz`` (the one it reads by ``resources.read("<module>.npz")``, ``<module>`` the
    last part of ``entry``) in place of the package's, so the built agent plays those weights
    without the parameter. An agent that reads the opening databases gets them packed
    (:func:`submissions.databases.packed_database`: the win/draw/loss book, 2 MB in the file).
    ``spec`` is the text shown in the header (default: ``entry``). Other data
    files named in ``resources.read`` calls are read through the package's own
    ``<package>.resources.read``. Raises :class:`~submissions.inline.BuildError` (a ``ValueError``)
    when the agent cannot be one file (see :mod:`submissions.inline`) or ``weights`` cannot be
    embedded (a missing or bad file, an agent reading no ``<module>.npz``), ``SyntaxError`` for a
    module that does not parse.
    """
    params = dict(params or {})
    spec = spec or entry
    if "\n" in spec or "\r" in spec:
        raise BuildError("a spec cannot contain a line break")
    found = collect(entry)
    package = entry.partition(".")[0]
    files, warnings = _data_files(entry, found, params.pop("weights", None))
    resources_name = f"{package}.{RESOURCES}"
    generated = _resources_source(package, files)
    sources = [
        (m.name, m.is_package, generated if m.name == resources_name else m.source) for m in found.modules
    ]
    body = _body(spec, entry, _params_literal(params), sources)
    body_sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
    data = tuple((name, len(files[name])) for name in sorted(files))
    call = f"{entry}.make_agent({', '.join(f'{k}={params[k]!r}' for k in sorted(params))})"
    modules = [name for name, _, _ in sources]
    text = (
        header(f"{spec}  ->  {call}", modules, data, body_sha, plays="its last callable: `agent`")
        + "\n"
        + body
    )
    compile(text, "<built submission>", "exec", dont_inherit=True)  # a bug here must not reach a user
    return Submission(
        text=text,
        spec=spec,
        entry=entry,
        params=params,
        modules=tuple(name for name, _, _ in sources),
        data=data,
        body_sha256=body_sha,
        warnings=tuple(warnings),
        notes=found.notes,
    )


def _data_files(entry: str, found: Inlining, weights: Any) -> tuple[dict[str, bytes], list[str]]:
    """The data files the built agent embeds (name -> bytes): its weights, the packed databases, and
    the other files its ``resources.read`` calls name; with a warning for each that is missing."""
    package = entry.partition(".")[0]
    warnings: list[str] = []
    files = _weights_file(entry, found.resources, weights)
    if PACKED_FILE in found.resources:
        files.update(packed_database())  # without the databases, load_database has said so
    if found.uses_resources:
        reader = __import__(f"{package}.{RESOURCES}", fromlist=["read"]).read
        for name in found.resources:
            if name in files or name == PACKED_FILE:
                continue
            try:
                files[name] = reader(name)
            except FileNotFoundError as error:
                warnings.append(
                    f"data file {name!r} not embedded ({error}); the built file behaves as the "
                    f"package does without it"
                )
    return files, warnings


def _body(spec: str, entry: str, params_text: str, sources: list[tuple[str, bool, str]]) -> str:
    """The file below the header: the runtime, the modules' sources and Kaggle's ``agent``."""
    resources_name = f"{entry.partition('.')[0]}.{RESOURCES}"
    digest = hashlib.sha256(repr((entry, params_text, sources)).encode("utf-8")).hexdigest()
    lines = [
        f'"""ConnectX agent {spec!r} as a single file for Kaggle (see the header comments above).',
        "",
        "_MODULES holds the source of every module this agent uses, verbatim from the package",
        f"({resources_name} excepted: generated, with the agent's data files embedded). At its first call,",
        "`agent` -- the last callable defined here, the one Kaggle plays -- executes them as private",
        "modules with _load and makes the agent with the baked parameters _PARAMS.",
        '"""',
        "",
        f'_PREFIX = "_connectx_{digest[:12]}"',
        f"_ENTRY = {entry!r}",
        f"_PARAMS = {params_text}",
        "",
        "",
        _runtime_source().rstrip("\n"),
        "",
        "",
        "# (module name, is a package, source), a module after the modules it imports.",
        "_MODULES = (",
    ]
    for name, is_package, source in sources:
        lines.append(f"    ({name!r}, {is_package!r}, {_literal(source)}),")
    lines += [
        ")",
        "",
        "_agent = None",
        "",
        "",
        "def agent(obs, config):",
        '    """Kaggle\'s entry point, the last callable of this file: the column (an int) to play."""',
        "    global _agent",
        "    if _agent is None:",
        "        _agent = _load(_PREFIX, _MODULES, _ENTRY).make_agent(**_PARAMS)",
        "    return _agent(obs, config)",
        "",
    ]
    return "\n".join(lines)


def header(
    agent: str, modules: Iterable[str], data: Sequence[tuple[str, int]], digest: str, *, plays: str
) -> str:
    """The header comments :func:`provenance` reads, ending with the body marker: ``agent``, what the
    file plays (a spec and the call it makes, or a function's name), its ``modules``, its ``data``
    (name, bytes), its body's sha256 ``digest``, and ``plays``, the callable Kaggle takes."""
    data_text = ", ".join(f"{name} ({size} bytes)" for name, size in data) or "none"
    return "\n".join(
        [
            "# ConnectX single-file Kaggle submission, generated by `connectx build`; do not edit.",
            f"# Agent spec: {agent}",
            f"# Project: {DISTRIBUTION} {project_version()}",
            f"# Built: {build_time()}",
            f"# Body sha256: {digest}",
            f"# Modules: {', '.join(modules) or 'none'}",
            f"# Data: {data_text}",
            f"# Kaggle executes this file at the first move and plays {plays}, at the end.",
            "# The body sha256 is of everything below the next line.",
            BODY_MARKER,
        ]
    )


def build_spec(spec_text: str) -> Submission:
    """Build the file for an agent spec as the tournament takes it (``negamax``, ``minimax:depth=4``).

    Raises :class:`agents.registry.SpecError` for an unknown agent or bad parameters, and
    :class:`~submissions.inline.BuildError` for a spec that is not one of our agents (a ``.py`` file
    is already a submission; Kaggle's built-ins are Kaggle's) -- both ``ValueError``.
    """
    spec = parse_spec(spec_text)
    if spec.kind == "file":
        raise BuildError(
            f"{spec_text!r} is a file, not one of our agents: it already is a submission; test it with "
            f"`connectx check {spec_text}`"
        )
    if spec.kind != "builtin":
        raise BuildError(f"{spec_text!r} is a kaggle-environments built-in, not one of our agents")
    return build_module(BUILTIN[spec.name], spec.params, spec=spec.text)


def header_fields(text: str) -> dict[str, str]:
    """The ``# Key: value`` lines of a built file's header (empty for a file that is not one)."""
    head, marker, _ = text.partition("\n" + BODY_MARKER + "\n")
    fields: dict[str, str] = {}
    if marker:
        for line in head.splitlines():
            key, sep, value = line.removeprefix("# ").partition(": ")
            if sep:
                fields[key] = value
    return fields


def provenance(text: str) -> str:
    """One line on where a file comes from: the spec, version and date of a built file and whether its
    body still has the sha256 in its header; ``""`` for a file that was not built here."""
    fields = header_fields(text)
    if "Body sha256" not in fields:
        return ""
    intact = hashlib.sha256(body_of(text).encode("utf-8")).hexdigest() == fields["Body sha256"]
    state = "body intact" if intact else "body MODIFIED since it was built (sha256 differs)"
    return (
        f"built from {fields.get('Agent spec', '?').split('  ->  ')[0]!r} by "
        f"{fields.get('Project', '?')} at {fields.get('Built', '?')}; {state}"
    )


def body_of(text: str) -> str:
    """The body of a built file's ``text`` (after :data:`BODY_MARKER`); ``ValueError`` if absent."""
    head, marker, body = text.partition(BODY_MARKER + "\n")
    if not marker:
        raise ValueError("not a built submission: no body marker line")
    return body


def write(submission: Submission, path: str | os.PathLike[str]) -> int:
    """Write ``submission`` to ``path`` (UTF-8, ``\\n`` line ends); return its size in bytes."""
    data = submission.text.encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)
