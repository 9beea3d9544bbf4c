"""Long entrant names (an entrant's name is its spec, often 50+ characters) in the report: the figures
shorten them and keep every label inside the figure, the HTML shows them whole and still fits the
window, in a real browser (Playwright driving Debian's Chromium) where Chromium is on PATH."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from benchmarks.browser import find_chromium, watch
from reports.render.documents import write_documents
from reports.render.plots import (
    NAME_LIMIT,
    abbreviated,
    crosstable_figure,
    elo_figure,
    lengths_figure,
    progress_figure,
)
from reports.report import Report, build
from reports.stats.analysis import Analysis
from reports.stats.progress import Checkpoint
from reports.stats.results import Results
from tests.records import judged_moves, settings_for, synthetic_records

FALSE = "network:book=false,weights=runs/experiments/net350/final.npz"  # 60 characters
TRUE = "network:book=true,weights=runs/experiments/net350/final.npz"  # the same but inside
OLD = "network:search=none,weights=/tmp/exp/old.npz"
NAMES = (FALSE, TRUE, OLD, "negamax", "crashy")


@pytest.fixture(scope="module")
def report() -> Report:
    records = synthetic_records(NAMES, 2)
    analysis = Analysis(judged_moves(records, perfect=("negamax",)))
    return build(Results(records, settings_for(NAMES, 2)), name="long names", analysis=analysis)


@pytest.fixture(scope="module")
def written(report: Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report's ``report.html`` as ``connectx report`` writes it (:func:`write_documents`), once
    for the module's tests."""
    return write_documents(report, tmp_path_factory.mktemp("long-names"))["report.html"]


def test_the_names_are_long():
    assert len(FALSE) == 60 and len(OLD) > NAME_LIMIT


def test_abbreviated_keeps_short_names_and_cuts_long_ones_in_the_middle():
    assert abbreviated(["negamax", "one_step"]) == {"negamax": "negamax", "one_step": "one_step"}
    label = abbreviated([OLD, "minimax"])[OLD]
    assert len(label) == NAME_LIMIT and label == "network:sea…/exp/old.npz"
    assert abbreviated(["x" * NAME_LIMIT])["x" * NAME_LIMIT] == "x" * NAME_LIMIT
    assert len(abbreviated(["x" * 80], limit=10)["x" * 80]) == 10


def test_abbreviated_names_tell_apart_names_that_differ_only_inside():
    labels = abbreviated(NAMES)
    assert len(set(labels.values())) == len(NAMES)
    assert "false" in labels[FALSE] and "true" in labels[TRUE]
    assert labels[FALSE].startswith("network:") and labels[FALSE].endswith("final.npz")
    assert len(labels[FALSE]) <= NAME_LIMIT + 2
    same_start = abbreviated(["a" * 40 + "1", "a" * 40 + "2"])
    assert len(set(same_start.values())) == 2


def drawn(figure: Figure) -> FigureCanvasAgg:
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas


def inside(figure: Figure) -> bool:
    """Everything the figure draws (labels, titles, legends) lies within its own edges."""
    renderer = drawn(figure).get_renderer()
    box, edge = figure.get_tightbbox(renderer), figure.bbox_inches
    return box.x0 >= -0.01 and box.y0 >= -0.01 and box.x1 <= edge.x1 + 0.01 and box.y1 <= edge.y1 + 0.01


def test_every_figure_keeps_its_labels_inside(report):
    results = report  # the figures' data
    figures = {
        "elo": elo_figure(results.ratings, title="Elo, 95 % intervals", labels=False, scale=report.scale),
        "elo with labels": elo_figure(results.ratings, title="Elo", scale=report.scale),
        "progress": progress_figure(results.progress, title="Elo progression · 40 games", scale=report.scale),
        "two panels": progress_figure(
            [Checkpoint(checkpoint.games, checkpoint.ratings[:2]) for checkpoint in results.progress],
            title="Elo progression · 40 games · 6 rows x 7 columns, 4 in a row",
            scale=report.scale,
        ),
        "crosstable": crosstable_figure(report.crosstable, report.standings, title="Crosstable · 40 games"),
        "lengths": lengths_figure(report.records, title="Game lengths"),
    }
    for name, figure in figures.items():
        assert inside(figure), name
    texts = [text.get_text() for text in figures["crosstable"].findobj(lambda a: hasattr(a, "get_text"))]
    assert abbreviated(NAMES)[FALSE] in texts and FALSE not in texts


def test_the_progression_panel_titles_do_not_collide(report):
    figure = progress_figure(report.progress, title="Elo progression", scale=report.scale)
    renderer = drawn(figure).get_renderer()
    titles = [text for text in figure.findobj(Text) if re.match(r"\d\. ", text.get_text())]  # "1. negamax"
    shown = sorted(title.get_text().split(". ", 1)[1] for title in titles)
    assert shown == sorted(abbreviated(NAMES).values())
    boxes = [title.get_window_extent(renderer) for title in titles]
    for one, other in itertools.combinations(boxes, 2):
        assert not one.overlaps(other)


def test_the_page_gives_the_names_whole_and_breakable(written):
    page = written.read_text(encoding="utf-8")  # html.render's page, as connectx report writes it
    breakable = "network:<wbr>book=false,<wbr>weights=runs/<wbr>experiments/<wbr>net350/<wbr>final.npz"
    assert f'<td class="agent">{breakable}</td>' in page  # the standings
    assert f"<code>{breakable}</code>" in page  # the entrants' specs
    assert '<td class="agent">negamax</td>' in page  # a plain name as it was


pytestmark_browser = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium on PATH (apt-get install -y chromium; .ci/run does)"
)


@pytestmark_browser
@pytest.mark.parametrize("width", [1280, 800])
def test_in_a_browser_the_page_fits_and_nothing_is_cut(browser, report, written, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors = watch(page)
    page.goto(written.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    cells = "document.querySelectorAll('#standings-table tr td:nth-child(2)')"
    assert page.evaluate(f"Array.from({cells}).map(td => td.textContent)") == [
        row.agent for row in report.standings
    ]  # whole, not shortened
    if width == 1280:  # the table whole (at 800 it may scroll in its box), then the Elo figure beside it
        box = "document.querySelector('#standings .scroll')"
        assert page.evaluate(f"{box}.scrollWidth <= {box}.clientWidth")  # no column hidden to the right
        table = page.evaluate("document.getElementById('standings-table').getBoundingClientRect().right")
        figure = page.evaluate("document.querySelector('#figure-elo svg').getBoundingClientRect().left")
        assert table <= figure
    names = "#worst-moves h4, #standings-table td, #accuracy-table td"
    overflowing = page.evaluate(
        f"Array.from(document.querySelectorAll({names!r}))"
        ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"
    )
    assert overflowing == []  # a heading or a cell running into the next
    assert errors == []
    page.close()
