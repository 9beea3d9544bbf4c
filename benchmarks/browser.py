"""Headless Chromium driven by Playwright, for testing pages in a real browser and screenshotting them.

Playwright drives Debian's ``chromium`` (``.ci/run`` installs it) through ``executable_path``; it never
downloads a browser of its own. Chromium runs headless with :data:`ARGUMENTS`: no sandbox (the tests
run as root), no GPU, and none of its background calls to the network, which this machine refuses.

    python -m scripts.browser runs/latest/report.html docs/report.png --width 1280 --height 800
    python -m scripts.browser runs/latest/report.html docs/report-replay.png --hash '#game-249-ply-13' \\
        --element '#player'
    python -m scripts.browser 'http://127.0.0.1:8000/board?pos=4453' docs/board.png --width 800

take a screenshot of a page's first screen, and of the rows of a page one element spans (the
README's ``docs/report.png`` and ``docs/report-replay.png`` were made this way). PAGE is an HTML file
or an ``http(s)://`` address.

The tests use :func:`find_chromium`, :data:`ARGUMENTS` (pytest-playwright's launch arguments, set in
``tests/conftest.py``), :func:`watch` and :func:`screenshot`.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Page, sync_playwright

__all__ = ["ARGUMENTS", "CANDIDATES", "find_chromium", "screenshot", "url_of", "watch"]

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

ARGUMENTS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--hide-scrollbars",
]
"""Chromium's command line besides ``--headless`` (which Playwright adds)."""

MARGIN = 12
"""CSS pixels kept above and below an element in :func:`screenshot`."""


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable on ``PATH``, or None."""
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


def watch(page: Page) -> list[str]:
    """A list that collects, in order, what goes wrong on ``page`` from now on: console messages of
    level error (a failed load among them) and uncaught exceptions."""
    errors: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def screenshot(page: Page, path: Path | str, *, element: str | None = None) -> None:
    """Save the viewport to ``path`` as PNG; with ``element`` (a CSS selector), the rows of the page
    that element spans, :data:`MARGIN` CSS pixels above and below it, the window's full width."""
    if element is None:
        page.screenshot(path=str(path))
        return
    top, height, width = page.evaluate(
        "(selector) => { const r = document.querySelector(selector).getBoundingClientRect(); "
        "return [r.top + window.scrollY, r.height, document.documentElement.clientWidth]; }",
        element,
    )
    clip = {"x": 0, "y": max(0.0, top - MARGIN), "width": width, "height": height + 2 * MARGIN}
    page.screenshot(path=str(path), clip=clip, full_page=True)


def url_of(page: str) -> str:
    """The address of PAGE: an ``http(s)://`` or ``file://`` address as it is, a file's ``file://`` URI."""
    if page.startswith(("http://", "https://", "file://")):
        return page
    return Path(page).resolve().as_uri()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.browser", description="Screenshot a page.")
    parser.add_argument("page", help="an HTML file or an http(s):// address")
    parser.add_argument("png", type=Path, help="where to save the screenshot")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=1800)
    parser.add_argument("--hash", default="", help="a #fragment to open the page at, e.g. #game-3")
    parser.add_argument(
        "--element", default=None, help="a CSS selector: only the rows of the page it spans, e.g. '#player'"
    )
    args = parser.parse_args(argv)
    executable = find_chromium()
    if executable is None:
        parser.error("no Chromium on PATH (tried " + ", ".join(CANDIDATES) + "): apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=ARGUMENTS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        errors = watch(page)
        page.goto(url_of(args.page) + args.hash, wait_until="load")
        screenshot(page, args.png, element=args.element)
        browser.close()
    for error in errors:
        print(f"page error: {error}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
