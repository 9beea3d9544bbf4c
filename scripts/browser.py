"""Screenshot a page in headless Chromium (:mod:`benchmarks.browser`)::

    python -m scripts.browser runs/latest/report.html docs/report.png --width 1280 --height 800
    python -m scripts.browser runs/latest/report.html docs/report-replay.png --hash '#game-249-ply-13' \\
        --element '#player'
    python -m scripts.browser 'http://127.0.0.1:8000/board?pos=4453' docs/board.png --width 800

take a screenshot of a page's first screen, and of the rows of a page one element spans (the
README's ``docs/report.png`` and ``docs/report-replay.png`` were made this way). PAGE is an HTML file
or an ``http(s)://`` address.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.browser import ARGUMENTS, CANDIDATES, find_chromium, screenshot, watch

__all__ = ["main", "url_of"]


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
