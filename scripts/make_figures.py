"""Regenerate what the README and ``docs/`` quote of the default round robin, from the current code, so
that the pages cannot drift from what the README's first command does.

Usage: ``python -m scripts.make_figures [--out runs/figures/latest] [--install]``

1. Play the default round robin, the games of the README's first command (``connectx run --out OUT
   --overwrite``: the defaults; the last analysis's ``moves.csv`` and ``solved.db`` removed before, so
   that the run reports and is judged as a first one is), on a pseudo-terminal as a person sees it
   (:func:`benchmarks.silence.record`), timing it, its longest silence, and the load average
   meanwhile (sampled every few seconds: other work on the machine slows it).
2. Copy ``OUT``'s ``elo.png``, ``crosstable.png`` and ``elo_progress.png`` into ``docs/``, and
   screenshot the first screen of ``OUT/report.html`` at 1280x800 into ``docs/report.png``.
3. Judge every move (``connectx analyze OUT``), write the report again, and screenshot its replay
   player at the move that decided a game of the best agent that made mistakes against the one that
   made none (``docs/report-replay.png``).
4. Rewrite, in ``README.md`` and ``docs/*.md``, the text between ``<!-- figures:NAME -->`` and
   ``<!-- /figures:NAME -->`` for each NAME it knows: ``default-run`` (the standings table),
   ``timing`` (the run's time, longest silence and load), ``forfeits`` and ``analysis`` (the
   terminal's lines); with ``--install`` also ``install``: a fresh clone of this checkout's ``HEAD``
   installed into a new virtualenv, as the README's first command does, timed (several minutes,
   and it downloads from PyPI).

Screenshots are taken by ``python -m scripts.browser`` (headless Chromium) in a process of its own.
Prints what it rewrote. Look at the PNGs before committing them.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.silence import record, silences

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CONNECTX = [sys.executable, "-m", "connectx"]
BLOCK = re.compile(
    r"(<!-- figures:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /figures:(?P=name) -->)", re.DOTALL
)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def shown(text: str) -> list[str]:
    """The lines a terminal shows for ``text``: of each line, what the last carriage return before
    something visible leaves, without colour codes or trailing blanks."""
    lines = []
    for line in ANSI.sub("", text).replace("\r\n", "\n").split("\n"):
        drawn = [part for part in line.split("\r") if part.strip()]
        lines.append(drawn[-1].rstrip() if drawn else "")
    return lines


class Load:
    """The lowest and highest 1-minute load average seen while it runs (``os.getloadavg`` every
    ``every`` seconds, from a thread)."""

    def __init__(self, every: float = 5.0) -> None:
        self.low = self.high = os.getloadavg()[0]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(every,), daemon=True)

    def _sample(self, every: float) -> None:
        while not self._stop.wait(every):
            self._note()

    def _note(self) -> None:
        load = os.getloadavg()[0]
        self.low, self.high = min(self.low, load), max(self.high, load)

    @contextmanager
    def watching(self) -> Iterator[Load]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()
            self._note()

    def __str__(self) -> str:
        return f"{self.low:.1f} to {self.high:.1f}"


def duration(seconds: float) -> str:
    """``1 min 2 s``, ``48 s``."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def section(lines: list[str], first: Callable[[str], bool], more: Callable[[str], bool]) -> list[str]:
    """The lines from the first one ``first`` accepts, and those after it that ``more`` accepts."""
    start = next(k for k, line in enumerate(lines) if first(line))
    end = start + 1
    while end < len(lines) and more(lines[end]):
        end += 1
    return lines[start:end]


def default_run(out: Path) -> dict[str, str]:
    """Play the default round robin into ``out``; the blocks its output fills."""
    print(f"playing the default round robin into {out} ...", flush=True)
    with Load().watching() as load:
        chunks, seconds, status = record([*CONNECTX, "run", "--out", str(out), "--overwrite"])
    if status != 0:
        raise SystemExit(f"the default run failed (exit {status})")
    lines = shown("".join(text for _, text in chunks))
    table = section(lines, lambda line: line.startswith(" #"), lambda line: bool(line.strip()))
    forfeits = section(lines, lambda line: line.startswith("forfeits ("), lambda line: line.startswith("  "))
    longest, began, before = silences(chunks, seconds)[0]
    games = re.search(r"(\d+) games; reports in", "\n".join(lines))
    step = before.replace(f"{out}{os.sep}", "runs/latest/").split("|")[0].strip()[:60]  # a bar's words
    where = f"{began:.0f} s in, after `{step}`"
    if began == 0:
        where = "before its first line, while Python started and imported the toolkit"
    return {
        "default-run": prose(
            f"The run took {duration(seconds)} ({games[1] if games else '?'} games, at a load average of "
            f"{load} on the 2-core development machine) and printed this table:"
        )
        + "\n```\n"
        + "\n".join(table)
        + "\n```\n",
        "timing": prose(
            "The default round robin's longest "
            f"silence (`python -m benchmarks.silence`: the time between two signs of life on the "
            f"terminal) was {longest:.1f} s, {where}."
        ),
        "forfeits": "```\n" + "\n".join(forfeits) + "\n```\n",
    }


def analysis(out: Path) -> dict[str, str]:
    """Judge the moves of ``out`` and write its report again; the block of the analysis's output, as
    ``connectx analyze runs/latest`` prints it for the first command's run."""
    print(f"judging the moves of {out} ...", flush=True)
    with Load().watching() as load:
        judged = subprocess.run([*CONNECTX, "analyze", str(out)], capture_output=True, text=True, check=True)
    subprocess.run([*CONNECTX, "report", str(out)], capture_output=True, check=True)
    printed = judged.stdout.rstrip().replace(str(out), "runs/latest")
    return {
        "analysis": f"```\n{printed}\n```\n\n" + prose(f"Measured at a load average of {load} on 2 cores.")
    }


def prose(text: str) -> str:
    """``text`` wrapped as the pages' Markdown is, in lines of at most 104 characters."""
    return textwrap.fill(text, width=104, break_on_hyphens=False, break_long_words=False) + "\n"


def decided_replay(out: Path) -> str:
    """The report's address (``#game-12-ply-9``) of the move that decided a game of the best agent
    that made mistakes, against the agent that stands for perfect play (its earliest such game)."""
    from reports.report import load

    report = load(out)
    review = report.review
    assert review is not None and review.reference is not None, "no agent played perfectly"
    reference = review.reference
    erring = next(line.agent for line in report.standings if line.agent != reference)
    games = {r.game_id for r in report.records if {r.first, r.second} == {reference, erring}}
    move = min(
        (m for g, m in review.deciding.items() if g in games and m.agent == erring), key=lambda m: m.game
    )
    return f"#{move.anchor}"


def screenshot(page: Path, png: Path, *options: str) -> None:
    """``python -m scripts.browser PAGE PNG OPTIONS``, in a process of its own."""
    print(f"screenshot {png.relative_to(ROOT)}", flush=True)
    subprocess.run(
        [sys.executable, "-m", "scripts.browser", str(page), str(png), *options], check=True, cwd=ROOT
    )


def install() -> dict[str, str]:
    """Clone this checkout's HEAD and install it as the README's first command does; the block
    saying how long it took, with the load, and how large the virtualenv is."""
    with tempfile.TemporaryDirectory(prefix="connectx-install-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        print(f"installing a fresh clone in {clone} ...", flush=True)
        began = time.perf_counter()
        with Load().watching() as load:
            subprocess.run(["bash", "-c", "python3 -m venv .venv && .venv/bin/pip install --quiet -e ."],
                           cwd=clone, check=True)  # fmt: skip
        seconds = time.perf_counter() - began
        size = subprocess.run(["du", "-sb", ".venv"], cwd=clone, capture_output=True, text=True, check=True)
        gigabytes = int(size.stdout.split()[0]) / 1e9
    return {
        "install": prose(
            f"The install took {duration(seconds)} and {gigabytes:.1f} GB on the 2-core development machine, "
            f"at a load average of {load}. Nearly all of it is "
            "kaggle-environments' own dependencies (JAX, OpenSpiel, transformers, gymnasium, pygame, ...), "
            "which the referee imports; the solved game's opening databases (`bitbully-databases`, 18 MB) "
            "and numba (for the solver past them) come with it."
        )
    }


def rewrite(blocks: dict[str, str]) -> None:
    """Put each block's text between its markers in README.md and docs/*.md."""
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = page.read_text(encoding="utf-8")

        def replace(match: re.Match[str]) -> str:
            name = match["name"]
            return match[1] + blocks[name] + match[4] if name in blocks else match[0]

        new = BLOCK.sub(replace, text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            names = sorted({m["name"] for m in BLOCK.finditer(text) if m["name"] in blocks})
            print(f"rewrote {page.relative_to(ROOT)}: {', '.join(names)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.make_figures", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "runs" / "figures" / "latest",  # named as the first command's, for the report's title
        help="the run's folder (default runs/figures/latest)",
    )
    parser.add_argument("--install", action="store_true", help="also time a fresh clone's install")
    args = parser.parse_args()
    out = args.out.resolve()
    for last in ("moves.csv", "solved.db"):  # the last analysis: reported and judged as a first run's
        (out / last).unlink(missing_ok=True)
    blocks = default_run(out)
    for name in ("elo.png", "crosstable.png", "elo_progress.png"):
        shutil.copyfile(out / name, DOCS / name)
    screenshot(out / "report.html", DOCS / "report.png", "--width", "1280", "--height", "800")
    blocks |= analysis(out)
    screenshot(out / "report.html", DOCS / "report-replay.png", "--width", "1280", "--height", "1000",
               "--hash", decided_replay(out), "--element", "#player")  # fmt: skip
    if args.install:
        blocks |= install()
    rewrite(blocks)


if __name__ == "__main__":
    main()
