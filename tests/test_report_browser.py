"""report.html in a real browser: headless Chromium (Debian's ``chromium``; ``.ci/run`` installs it),
driven by Playwright (pytest-playwright's ``browser``, launched as ``tests/conftest.py`` says).

The page is opened from ``file://`` as a person would open it. The tests skip, saying why, only
where no Chromium is on PATH.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.browser import find_chromium, screenshot, watch
from reports.render.documents import write_documents
from reports.report import build
from reports.stats.analysis import Analysis
from reports.stats.results import Results
from tests.records import AGENTS, judged_moves, settings_for, synthetic_records

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium on PATH (apt-get install -y chromium; .ci/run does)"
)

DISCS = "document.querySelectorAll('#board .cell.p1, #board .cell.p2').length"
WIDTH, HEIGHT = 1280, 800  # a laptop's first screen


def rect(page, selector: str) -> dict[str, float]:
    """The element's box relative to the viewport (``top``, ``bottom``, ``left``, ``right``)."""
    return page.evaluate(
        f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); "
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; })()"
    )


def in_view(box: dict[str, float]) -> bool:
    return box["top"] >= 0 and box["bottom"] <= HEIGHT and box["left"] >= 0 and box["right"] <= WIDTH


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    """A page showing the report of a synthetic round robin (with crashes and invalid moves) and a
    made-up move analysis of it, in which beta never errs; ``page.errors`` collects its errors."""
    records = synthetic_records(AGENTS, 2)
    analysis = Analysis(judged_moves(records, perfect=("beta",)))
    report = build(Results(records, settings_for(AGENTS, 2)), name="browser", analysis=analysis)
    out = tmp_path_factory.mktemp("report")
    path = write_documents(report, out)["report.html"]
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.errors = watch(page)
    page.goto(path.as_uri())
    page.report = report
    page.path = path
    yield page
    page.close()


def test_the_page_loads_without_console_errors(page):
    assert page.evaluate("document.title") == "ConnectX tournament: browser"
    assert page.errors == []


def test_standings_and_plots_are_there(page):
    cells = "document.querySelectorAll('#standings-table tr td:nth-child(2)')"
    agents = page.evaluate(f"Array.from({cells}).map(td => td.textContent)")
    assert agents == [row.agent for row in page.report.standings]
    for figure in ("elo", "progress", "crosstable", "lengths"):
        size = page.evaluate(f"(() => {{ const r = document.querySelector('#figure-{figure} svg')"
                             ".getBoundingClientRect(); return [r.width, r.height]; })()")  # fmt: skip
        assert size[0] > 200 and size[1] > 100, figure
    text = page.evaluate("document.body.innerText")
    assert all(name in text for name in AGENTS)


def test_the_first_screen_shows_the_standings_and_the_plots(page):
    page.evaluate("window.scrollTo(0, 0)")
    for selector in ("#standings-table", "#figure-elo svg", "#figure-progress svg"):
        assert in_view(rect(page, selector)), selector
    assert rect(page, "#player")["top"] > HEIGHT  # the replays come after, linked from the summary
    assert page.evaluate("document.querySelector('#standings a[href=\"#games\"]') !== null")


def test_nothing_overflows_the_window_sideways(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")  # every long table
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    finally:
        page.evaluate("document.querySelectorAll('details').forEach((d, k) => d.open = false)")


def test_a_game_link_lands_on_that_replay_in_view(page, browser):
    page.evaluate("window.scrollTo(0, 0)")
    link = page.evaluate("document.querySelector('#standings a[href^=\"#game-\"]').getAttribute('href')")
    click = f"document.querySelector('#standings a[href=\"{link}\"]').click()"
    page.evaluate(click)
    game = link.removeprefix("#game-")
    assert page.evaluate("document.getElementById('replay-title').textContent").startswith(f"Game {game}:")
    assert in_view(rect(page, "#board")) and in_view(rect(page, "#replay-title"))
    assert page.evaluate("location.hash") == link
    page.evaluate("window.scrollTo(0, 0)")  # the same link again: no hashchange, still lands
    page.evaluate(click)
    assert in_view(rect(page, "#board"))
    fresh = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})  # a game's address, opened as it is
    errors = watch(fresh)
    fresh.goto(page.path.as_uri() + link)
    title = fresh.evaluate("document.getElementById('replay-title').textContent")
    assert title.startswith(f"Game {game}:")
    assert in_view(rect(fresh, "#board"))
    assert errors == []
    fresh.close()
    assert page.errors == []


def test_the_accuracy_table_is_on_the_page(page):
    cells = "document.querySelectorAll('#accuracy-table tr td:first-child')"
    agents = page.evaluate(f"Array.from({cells}).map(td => td.firstChild.textContent.trim())")
    assert agents == [line.accuracy.agent for line in page.report.review.accuracy]
    heads = "document.querySelectorAll('#standings-table th')"
    heads = page.evaluate(f"Array.from({heads}).map(th => th.innerText.replace(/\\s+/g, ' '))")
    assert heads[2:5] == ["Elo", "95 % interval", "vs perfect play"]  # the pool's Elo, then perfect play's
    column = "document.querySelectorAll('#standings-table tr td:nth-child(5)')"
    versus = page.report.review.versus
    assert page.evaluate(f"Array.from({column}).map(td => td.textContent)") == [
        versus[row.agent].cell() for row in page.report.standings
    ]
    standings = page.evaluate("document.getElementById('standings').innerText")
    assert "beta made no mistake in" in standings and "Elo (mean of the rated = 0)" in standings


def test_a_worst_move_link_lands_on_the_marked_move(page):
    page.evaluate("window.scrollTo(0, 0)")
    href = page.evaluate("document.querySelector('#worst-moves a').getAttribute('href')")
    game, ply = (int(part) for part in href.removeprefix("#game-").split("-ply-"))
    move = next(m for line in page.report.review.accuracy for m in line.worst if m.anchor == href[1:])
    page.evaluate(f"document.querySelector('#worst-moves a[href=\"{href}\"]').click()")
    plies = len(next(r for r in page.report.records if r.game_id == game).moves)
    assert page.evaluate("document.getElementById('replay-title').textContent").startswith(f"Game {game}:")
    assert page.evaluate("document.getElementById('ply-label').textContent") == f"ply {ply} of {plies}"
    assert page.evaluate(DISCS) == ply  # the board shows the position right after that move
    marked = "#board .cell.mistake" if move.verdict == "mistake" else "#board .cell.inaccuracy"
    assert page.evaluate(f"document.querySelectorAll('{marked}').length") == 1
    assert page.evaluate(f"document.querySelector('{marked}').classList.contains('last')")
    assert in_view(rect(page, marked)) and in_view(rect(page, "#judgement"))
    assert page.evaluate("document.querySelectorAll('#board .cell.best').length") == len(move.best_columns)
    current = "document.querySelector('#moves li.current')"
    assert page.evaluate(f"{current}.firstChild.textContent") == f"{ply}."
    assert page.evaluate(f"{current}.querySelector('.q').textContent") in ("??", "?!")
    text = page.evaluate("document.getElementById('judgement').textContent")
    assert text.startswith(f"Ply {ply}, {move.agent}: col {move.column}")
    assert f"best: col {move.best_columns[0]}" in text
    assert page.errors == []


def test_the_deciding_move_button_steps_to_it(page):
    game, deciding = next(iter(page.report.review.deciding.items()))
    page.evaluate(f"document.querySelector('a[href=\"#game-{game}\"]').click()")
    assert page.evaluate("document.getElementById('decisive').hidden") is False
    page.evaluate("document.getElementById('decisive').click()")
    label = page.evaluate("document.getElementById('ply-label').textContent")
    assert label.startswith(f"ply {deciding.ply} of")
    assert "This move decided the game." in page.evaluate("document.getElementById('judgement').textContent")
    assert page.evaluate("document.querySelector('#moves li.current').classList.contains('deciding')")


def test_stepping_a_replay_changes_the_board(page):
    first = page.report.records[0]
    page.evaluate("document.querySelector('a[href=\"#game-0\"]').click()")
    assert page.evaluate("document.getElementById('replay-title').textContent").startswith("Game 0:")
    assert page.evaluate(DISCS) == len(first.moves)  # a replay opens at its final position
    page.evaluate("document.getElementById('prev').click()")
    assert page.evaluate(DISCS) == len(first.moves) - 1
    page.evaluate("document.getElementById('start').click()")
    assert page.evaluate(DISCS) == 0
    page.evaluate("document.getElementById('next').click()")
    assert page.evaluate(DISCS) == 1
    column = first.moves[0]
    bottom = 5 * 7 + column  # the first disc lands in the bottom row of its column
    cell = f"document.querySelectorAll('#board .cell')[{bottom}]"
    assert page.evaluate(f"{cell}.className").startswith("cell p1")
    assert page.evaluate("document.getElementById('ply-label').textContent") == f"ply 1 of {len(first.moves)}"
    assert page.errors == []


def test_the_move_list_starts_at_the_first_move_and_follows_the_current_one(page):
    longest = max(page.report.records, key=lambda record: len(record.moves))
    page.evaluate(f"document.querySelector('a[href=\"#game-{longest.game_id}\"]').click()")
    assert page.evaluate(DISCS) == len(longest.moves)  # at the final position, yet the list shows its top
    box = "document.getElementById('moves')"
    assert page.evaluate(f"{box}.scrollHeight > {box}.clientHeight")  # a list longer than its box
    assert page.evaluate(f"{box}.scrollTop") == 0

    def current_row_shown() -> bool:
        return page.evaluate(
            f"(() => {{ const list = {box}.getBoundingClientRect(), "
            "row = document.querySelector('#moves li.current').getBoundingClientRect(); "
            "return row.top >= list.top && row.bottom <= list.bottom; })()"
        )

    page.evaluate("document.getElementById('end').click()")  # stepping: the list follows
    assert page.evaluate(f"{box}.scrollTop") > 0 and current_row_shown()
    page.evaluate("document.getElementById('start').click()")
    page.evaluate("document.getElementById('next').click()")
    assert page.evaluate(f"{box}.scrollTop") == 0 and current_row_shown()
    page.evaluate(f"document.querySelector('a[href=\"#game-{longest.game_id}\"]').click()")  # loaded again
    assert page.evaluate(f"{box}.scrollTop") == 0
    assert page.errors == []


def test_a_game_link_replays_that_game_and_shows_its_forfeit(page):
    crash = next(r for r in page.report.records if r.termination == "error")
    page.evaluate(f"document.querySelector('a[href=\"#game-{crash.game_id}\"]').click()")
    title = page.evaluate("document.getElementById('replay-title').textContent")
    assert title.startswith(f"Game {crash.game_id}:")
    assert page.evaluate(DISCS) == len(crash.moves)
    assert page.evaluate("document.getElementById('forfeit').hidden") is False
    detail = page.evaluate("document.getElementById('forfeit-detail').textContent")
    assert detail == crash.detail  # the whole traceback, as text: its </script> did not end the page
    assert page.evaluate("document.querySelectorAll('#moves li').length") == len(crash.moves)
    assert page.errors == []


def test_a_screenshot_of_the_rows_one_element_spans(page, tmp_path):
    page.evaluate("document.querySelector('a[href=\"#game-0\"]').click()")
    box = rect(page, "#player")
    screenshot(page, tmp_path / "player.png", element="#player")
    header = (tmp_path / "player.png").read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
    assert width == WIDTH and abs(height - (box["bottom"] - box["top"] + 24)) <= 1  # 12 px above and below


def test_the_browser_reports_script_errors(browser, tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<script>console.error('logged'); throw new Error('boom');</script><p>after</p>")
    page = browser.new_page()
    errors = watch(page)
    page.goto(bad.as_uri())
    assert page.evaluate("document.body.textContent") == "after"
    assert errors[0] == "logged"
    assert any("boom" in error for error in errors[1:])
    page.close()
