"""The README and the pages of ``docs/`` say what the code does: every ``connectx`` command line they
show parses with the command's own parser (a renamed or removed option fails here), every
``python -m MODULE`` they show names a module that exists and the options it passes appear in that
module, every relative link leads to a file and, with a ``#fragment``, to a heading of it, and the
README shows an example of every subcommand. Pages and commands added later are checked alike."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
from pathlib import Path

import pytest

from connectx.cli import parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELLS = {"sh", "bash", "shell", "console"}
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
CONNECTX = re.compile(r"^(?:\S*/)?(?:connectx|python3? -m connectx)(?=\s|$)")
MODULE = re.compile(r"^(?:\S*/)?python3? -m ([\w.]+)(.*)$")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")


def _without_code(text: str) -> str:
    """``text`` without its fenced blocks (what they hold is code, not links or inline code)."""
    return FENCE.sub("", text)


def command_lines(page: Path) -> list[str]:
    """The shell command lines of ``page``: each line of its ``sh`` blocks (continued lines joined,
    comments dropped, ``&&`` chains split), and its inline code that runs ``connectx`` with
    arguments or ``python -m`` (a bare ``connectx report`` names a command; it shows no line)."""
    text = page.read_text(encoding="utf-8")
    lines: list[str] = []
    for language, body in FENCE.findall(text):
        if language in SHELLS:
            for line in body.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                lines += [" ".join(map(shlex.quote, part)) for part in _chain(words)]
    for span in INLINE.findall(_without_code(text)):
        span = " ".join(span.split())
        argv = _connectx_argv(span) if CONNECTX.match(span) else None
        said = argv is not None and any(word.endswith(":") for word in argv)  # an error message it prints
        if MODULE.match(span) or (argv is not None and len(argv) > 1 and not said):
            lines.append(span)
    return lines


def _chain(words: list[str]) -> list[list[str]]:
    """The commands of a shell line's words, split at ``&&``, ``;`` and ``|``."""
    parts: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";", "|", "||"):
            parts.append([])
        else:
            parts[-1].append(word)
    return [part for part in parts if part]


def _connectx_argv(line: str) -> list[str] | None:
    """The arguments after ``connectx`` (or ``python -m connectx``) of a command line, else None."""
    words = shlex.split(line)
    if words and (words[0] == "connectx" or words[0].endswith("/connectx")):
        return words[1:]
    if len(words) > 2 and re.search(r"python3?$", words[0]) and words[1:3] == ["-m", "connectx"]:
        return words[3:]
    return None


CASES = [(page, line) for page in PAGES for line in command_lines(page)]


def test_the_pages_show_commands_to_check():
    connectx = [line for _, line in CASES if _connectx_argv(line) is not None]
    assert len(connectx) >= 30 and any(page.name == "README.md" for page, _ in CASES)


@pytest.mark.parametrize("page,line", CASES, ids=[f"{p.name}: {line[:60]}" for p, line in CASES])
def test_every_command_line_shown_runs_as_written(page, line):
    argv = _connectx_argv(line)
    if argv is not None:
        top, _ = parser()
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            try:
                top.parse_args(argv)
            except SystemExit as exit_info:  # --help exits 0; a bad option 2, with its line
                assert exit_info.code == 0, f"{page.name}: `{line}`: {errors.getvalue().strip()}"
        return
    module = MODULE.match(line)
    if module is None:
        return  # another program's command (pip, ray, python3 -m venv, apt-get): not ours to check
    name, arguments = module[1], module[2]
    if name.split(".")[0] not in {"benchmarks", "scripts", "training", "connectx", "agents", "tournament"}:
        return
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin, f"{page.name}: `{line}`: no module {name}"
    # Not imported (training's modules import JAX, which this process must not): its options are
    # looked for in its package's source, as flags or as the attributes argparse makes of them.
    source = "".join(path.read_text(encoding="utf-8") for path in Path(spec.origin).parent.glob("*.py"))
    for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", arguments):
        dest = option[2:].replace("-", "_")
        assert option in source or re.search(rf"\.{dest}\b", source), (
            f"{page.name}: `{line}`: {name} takes no {option}"
        )


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercase, punctuation dropped but hyphens, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _without_code(page.read_text(encoding="utf-8"))
    return {_slug(match) for match in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}


LINKS = [
    (page, target)
    for page in PAGES
    for match in LINK.finditer(_without_code(page.read_text(encoding="utf-8")))
    if not re.match(r"^[a-z][a-z+.-]*:", target := match[1] or match[2])  # not http:, https:, mailto:
]


@pytest.mark.parametrize("page,target", LINKS, ids=[f"{p.name} -> {t}" for p, t in LINKS])
def test_every_relative_link_resolves(page, target):
    path, _, fragment = target.partition("#")
    linked = (page.parent / path).resolve() if path else page
    assert linked.exists(), f"{page.name} links {target}: no {linked}"
    if fragment and linked.suffix == ".md":
        assert fragment in _anchors(linked), f"{page.name} links {target}: no such heading in {linked.name}"


def test_the_links_are_found():
    assert len(LINKS) >= 20 and {page.name for page, _ in LINKS} >= {"README.md", "tournaments.md"}


def test_the_readme_shows_every_command_and_links_every_page():
    readme = ROOT / "README.md"
    shown = {argv[0] for line in command_lines(readme) if (argv := _connectx_argv(line))}
    _, commands = parser()
    names = {
        name for name, command in commands.choices.items() if command.prog.endswith(f" {name}")
    }  # not aliases
    assert names - shown == set(), "subcommands with no example in the README"
    linked = {
        (readme.parent / target.partition("#")[0]).resolve() for page, target in LINKS if page == readme
    }
    assert set(PAGES[1:]) - linked == set(), "pages of docs/ the README does not link"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 220
