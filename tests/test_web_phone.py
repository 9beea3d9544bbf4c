"""``connectx serve``'s pages on a phone: at 390 CSS pixels wide (an iPhone's), the index, a run's page
and a replay fit the screen, with no horizontal scroll of the page (a table wider than the screen
scrolls inside its own box), and the replay's move list shows each move's time. Playwright drives
Debian's Chromium (``tests/conftest.py``); the tests skip where there is none.
"""

from __future__ import annotations

import pytest

from scripts.browser import find_chromium
from tests.records import settings_for, synthetic_records
from tests.test_web_browser import start, stop
from tournament.store import Store

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium on PATH (apt-get install -y chromium; .ci/run does)"
)

PHONE = {"width": 390, "height": 844}
AGENTS = ("kaggle-negamax", "minimax:depth=3", "network:search=none", "one_step", "random")
"""Long names, as the default round robin's, and a crosstable of five."""
WIDTH = "document.documentElement.scrollWidth"
RUN = "runs/a-run-with-a-long-name"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A server of a folder holding one run of :data:`AGENTS` (2 game pairs a pairing): its URL."""
    root = tmp_path_factory.mktemp("served")
    with Store.create(root / RUN.split("/")[1], settings_for(AGENTS, 2)) as store:
        for record in synthetic_records(AGENTS, 2):
            store.add(record)
    server, url = start(root, tmp_path_factory.mktemp("tmp"))
    yield url
    if server.poll() is None:
        stop(server)


@pytest.mark.parametrize("path", ["", RUN, f"{RUN}#game-3-ply-5"])
def test_a_page_fits_a_phone_without_scrolling_sideways(page, served, path):
    page.set_viewport_size(PHONE)
    page.goto(served + path)
    page.wait_for_load_state("load")
    assert page.evaluate(WIDTH) <= PHONE["width"], path


def test_the_replay_shows_every_moves_time_on_a_phone(page, served):
    page.set_viewport_size(PHONE)
    page.goto(f"{served}{RUN}#game-3-ply-5")
    page.wait_for_selector("#moves li")
    fits = page.evaluate(
        "(() => { const box = document.getElementById('moves').getBoundingClientRect();"
        " return [...document.querySelectorAll('#moves li .t')]"
        ".map(t => t.getBoundingClientRect().right <= box.right); })()"
    )
    assert fits and all(fits)
    assert page.evaluate(WIDTH) <= PHONE["width"]
