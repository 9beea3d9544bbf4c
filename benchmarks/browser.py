"""Headless Chromium driven by Playwright: the one browser of the tests, the benchmarks and the scripts.

Playwright drives Debian's ``chromium`` (``.ci/run`` installs it) through ``executable_path``; it never
downloads a browser of its own. Chromium runs headless with :data:`ARGUMENTS`: no sandbox (the tests
run as root), no GPU, and none of its background calls to the network, which this machine refuses.

The tests use :func:`find_chromium`, :data:`ARGUMENTS` (pytest-playwright's launch arguments, set in
``tests/conftest.py``), :func:`watch` and :func:`screenshot`; ``benchmarks.web`` times the board page
with them, and ``python -m scripts.browser`` takes the README's screenshots. It sits here, the floor
below ``scripts``, so that both may import it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Page

__all__ = ["ARGUMENTS", "CANDIDATES", "find_chromium", "screenshot", "watch"]

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
