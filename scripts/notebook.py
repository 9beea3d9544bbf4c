"""Screenshot a notebook's cell as JupyterLab shows it after Run All Cells::

    python -m scripts.notebook examples/quickstart.ipynb docs/notebook.png --cell '.cx-inline'

runs the notebook in JupyterLab (a server of this interpreter on 127.0.0.1, in headless Chromium, as
``tests/test_notebooks_browser.py`` runs its own: :mod:`benchmarks.jupyter`) in a temporary copy, then
saves JupyterLab's window as PNG, the file browser closed and the notebook scrolled to the first code
cell holding an element that ``--cell`` selects (CSS): its code at the top, its outputs below. The
README's ``docs/notebook.png`` was made this way. Prints what went wrong on the page, if anything.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.browser import ARGUMENTS, CANDIDATES, find_chromium, watch
from benchmarks.jupyter import jupyterlab, run_all

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.notebook", description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path, help="the .ipynb file to run")
    parser.add_argument("png", type=Path, help="where to save the screenshot")
    parser.add_argument("--cell", default=".cx-inline", help="CSS selector of an element in the cell to show")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    args = parser.parse_args(argv)
    executable = find_chromium()
    if executable is None:
        parser.error("no Chromium on PATH (tried " + ", ".join(CANDIDATES) + "): apt-get install chromium")
    with tempfile.TemporaryDirectory(prefix="notebook-") as folder:
        root, home = Path(folder) / "root", Path(folder) / "home"
        root.mkdir()
        home.mkdir()
        shutil.copy(args.notebook, root)
        with jupyterlab(root, home) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=ARGUMENTS)
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            errors = watch(page)
            run_all(page, url, args.notebook.name)
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()  # the files
            cell = page.locator(".jp-CodeCell", has=page.locator(args.cell)).first
            for _ in range(3):  # the cells above are laid out as they come into view: scroll again
                cell.evaluate("cell => cell.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(500)
            page.screenshot(path=str(args.png))
            browser.close()
    for error in errors:
        print(f"page error: {error}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
