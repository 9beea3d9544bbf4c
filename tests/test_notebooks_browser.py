"""What the quickstart's calls draw in JupyterLab, run as a user runs a notebook: one JupyterLab server
on 127.0.0.1 for the module (:func:`benchmarks.jupyter.jupyterlab`), a notebook opened in headless
Chromium (pytest-playwright's ``browser``, Debian's Chromium as ``tests/conftest.py`` launches it) and
run with Run > Run All Cells.

The notebook (:data:`CELLS`) makes the quickstart's calls on less: a gauntlet of an agent from a cell
against two cheap agents, one game pair each, judged, one game replayed, and a board to play the agent
on. The quickstart itself runs whole in ``tests/test_notebooks.py``; what it adds to these calls
(negamax among the opponents, a frame of the standings, the submission's build and check) draws nothing
of a kind this notebook does not: text, plain HTML, progress bars. The tests look at what the page
shows: the standings table, the board widget (a click gets the agent's reply), an inline replay stepped,
and no error in the console. They skip, saying why, where no Chromium is on PATH.
"""

from __future__ import annotations

import pytest

from benchmarks.browser import find_chromium, watch
from benchmarks.jupyter import jupyterlab, run_all
from tests.notebooks import nbformat

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium on PATH (apt-get install -y chromium; .ci/run does)"
)

BOARD = ".connectx-board"
REPLAY = ".cx-player"

CELLS = {
    "import": "import connectx",
    "agent": """def my_agent(obs, config):  # the open column nearest the middle
    return min((c for c in range(config.columns) if obs.board[c] == 0), key=lambda c: abs(2 * c - 6))""",
    "board": """board = connectx.Board().play(my_agent)
board""",
    "tournament": """result = connectx.tournament(["one_step", "random"], gauntlet=my_agent, games=1, seed=1,
                             analyze=True)
result""",
    "replay": "result.game(int(result.games.index[0]))",
}
"""The notebook's code cells, by id: the quickstart's calls, on fewer and cheaper games, judged in the
tournament's own process (``analyze=True``: ``connectx.analyze``, a process more, is the
quickstart's, in ``tests/test_notebooks.py``); the board first, so that the kernel solves its
columns' scores while the games are played elsewhere."""


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    """The notebook of :data:`CELLS` open in JupyterLab with every cell run; ``page.errors`` collects
    the console's errors from the moment it opened."""
    root, home = tmp_path_factory.mktemp("lab"), tmp_path_factory.mktemp("lab-home")
    cells = [nbformat.v4.new_code_cell(code, id=name) for name, code in CELLS.items()]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), root / "drawn.ipynb")
    with jupyterlab(root, home) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.errors = watch(page)
        run_all(page, url, "drawn.ipynb")
        yield page
        page.close()


def test_run_all_draws_the_standings_and_the_board(page):
    agents = page.locator(".cx-inline table.cx-standings td.agent").all_text_contents()
    assert sorted(agent.strip() for agent in agents) == ["my_agent", "one_step", "random"]
    assert page.locator(".cx-inline svg").count() >= 2  # the Elo figure and the crosstable
    assert page.locator(f"{BOARD} .connectx-grid .cell").count() == 42
    scores = page.locator(f"{BOARD} .connectx-scores .score")
    scores.nth(6).wait_for(state="attached", timeout=60_000)  # solved in the kernel, then drawn
    assert scores.count() == 7  # every column's perfect-play score
    assert page.errors == []


def test_a_click_on_the_board_gets_the_agents_reply(page):
    board = page.locator(BOARD)
    board.scroll_into_view_if_needed()
    assert board.get_attribute("data-position") == ""
    board.locator(".connectx-grid .cell[data-row='5'][data-column='3']").click()
    page.wait_for_function(
        f"document.querySelector('{BOARD}').dataset.position.length === 2", timeout=120_000
    )
    assert board.get_attribute("data-position").startswith("4")  # the click, then the agent's column
    assert board.locator(".connectx-grid .cell.p1, .connectx-grid .cell.p2").count() == 2
    assert page.errors == []


def test_the_inline_replay_steps(page):
    replay = page.locator(REPLAY)
    replay.scroll_into_view_if_needed()
    label = replay.locator("[id$='ply-label']")
    replay.locator("[id$='start']").click()
    assert label.inner_text().startswith("ply 0 of ")
    replay.locator("[id$='next']").click()
    assert label.inner_text().startswith("ply 1 of ")
    replay.locator("[id$='end']").click()
    plies = int(label.inner_text().split()[-1])
    assert label.inner_text() == f"ply {plies} of {plies}" and plies > 7  # past the opening
    assert replay.locator("[id$='judgement']").inner_text() != ""  # each move's verdict, once judged
    assert page.errors == []
