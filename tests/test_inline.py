"""A result's and a replay's inline HTML (reports.render.inline), as a notebook shows them: their content,
that they fetch nothing and style nothing outside themselves, the size of a 100-game result, and, in
headless Chromium (as tests/test_report_browser.py drives it), a page of two replays and a result.

Games are built by hand (tests/records.py), with a made-up move analysis in which beta never errs.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from benchmarks.browser import find_chromium, watch
from reports.render.inline import UnknownGame, replay_html, result_html
from reports.report import Report, build
from reports.stats.analysis import Analysis
from reports.stats.results import Results
from tests.records import AGENTS, judged_moves, settings_for, synthetic_records
from tournament.record import GameRecord, Termination


def analysed(records: list[GameRecord], pairs: int) -> Report:
    analysis = Analysis(judged_moves(records, perfect=("beta",)))
    return build(Results(records, settings_for(AGENTS, pairs)), name="inline", analysis=analysis)


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    return synthetic_records(AGENTS, 2)


@pytest.fixture(scope="module")
def report(records) -> Report:
    return analysed(records, 2)


@pytest.fixture(scope="module")
def result(report) -> str:
    return result_html(report)


def scope_of(fragment: str) -> str:
    match = re.match(r'\s*<div id="(cx-[0-9a-f]{12})" class="cx-inline">', fragment)
    assert match, fragment[:200]
    return match.group(1)


def top_level_selectors(css: str) -> list[str]:
    """The selectors of the rules (and the preludes of the at-rules) at the top level of ``css``."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    selectors, depth, start = [], 0, 0
    for k, char in enumerate(css):
        if char == "{":
            if depth == 0:
                selectors.append(css[start:k].strip())
            depth += 1
        elif char == "}":
            depth -= 1
            start = k + 1
    assert depth == 0
    return selectors


def assert_self_contained(fragment: str) -> None:
    """No source or link outside the fragment (only ``data:`` URIs and ``#`` anchors), no stylesheet
    import, and every style rule limited to the fragment's own id."""
    for url in re.findall(r"""\b(?:src|href|xlink:href|action)\s*=\s*["']?([^"'\s>]*)""", fragment):
        assert url.startswith(("#", "data:")), url
    assert not re.search(r"url\(\s*['\"]?(?!#|data:)", fragment)
    assert "@import" not in fragment and "<link" not in fragment and "<iframe" not in fragment
    scope = scope_of(fragment)
    styles = re.findall(r"<style[^>]*>(.*?)</style>", fragment, flags=re.S)
    assert styles
    for css in styles:
        for selector in top_level_selectors(css):
            for part in selector.split(","):
                assert re.fullmatch(rf"(body(\[[^\]]+\]|\.[\w-]+) )?#{scope}( svg \*)?", part.strip()), part


def test_the_standings_are_in_rank_order_with_their_figures(result, report):
    table = re.search(r'<table class="cx-standings">(.*?)</table>', result, flags=re.S).group(1)
    names = re.findall(r'<td class="agent">(.*?)</td>', table)
    assert names == [row.agent for row in report.standings]
    assert names[-1] == "crashy" and sorted(names) == sorted(AGENTS)  # crashy forfeits every game
    ranks = re.findall(r'<tr><td class="n">(\d+)</td>', table)
    assert ranks == [str(k) for k in range(1, len(AGENTS) + 1)]
    assert "vs perfect<br>play" in table  # the move analysis' column, as in report.html
    assert result.count("<svg") == 2  # the Elo figure and the crosstable
    assert "Elo, 95 % intervals" in result and "Crosstable · 40 games" in result
    assert "<script" not in result  # no replay in a result


def test_the_crosstable_cells_are_each_pairings_wins_draws_losses(result, records):
    tally: Counter[tuple[str, str, str]] = Counter()
    for record in records:
        first = {1.0: "w", 0.5: "d", 0.0: "l"}[record.result]
        second = {"w": "l", "d": "d", "l": "w"}[first]
        tally[record.first, record.second, first] += 1
        tally[record.second, record.first, second] += 1
    texts = re.findall(r">(\d+-\d+-\d+)</text>", result)
    expected = [
        f"{tally[a, b, 'w']}-{tally[a, b, 'd']}-{tally[a, b, 'l']}" for a in AGENTS for b in AGENTS if a != b
    ]
    assert sorted(texts) == sorted(expected)


def test_the_result_fetches_nothing_and_styles_only_itself(result):
    assert_self_contained(result)
    svg_styles = re.findall(r"<svg.*?<style[^>]*>(.*?)</style>", result, flags=re.S)
    assert len(svg_styles) == 2 and all(css.startswith(f"#{scope_of(result)} svg *") for css in svg_styles)


def test_two_renderings_have_ids_of_their_own(report, result):
    again = result_html(report)
    assert scope_of(again) != scope_of(result)
    ids = re.findall(r'\bid="([^"]+)"', replay_html(report, 3))
    assert len(ids) == len(set(ids)) > 15 and all(i.startswith(ids[0] + "-") for i in ids[1:])


def test_a_100_game_result_is_at_most_1_mb():
    records = synthetic_records(AGENTS, 5)
    assert len(records) == 100
    size = len(result_html(analysed(records, 5)).encode("utf-8"))
    print(f"a 100-game result's inline HTML: {size:,} bytes")
    assert size <= 1_000_000


def test_a_replay_carries_its_game_its_verdicts_and_the_player(report, records):
    record = next(r for r in records if r.termination == Termination.WIN and r.first == "alpha")
    fragment = replay_html(report, record.game_id)
    assert_self_contained(fragment)
    scope = scope_of(fragment)
    data = json.loads(re.search(rf'<script type="application/json" id="{scope}-data">(.*?)</script>',
                                fragment).group(1))  # fmt: skip
    assert list(data["games"]) == [str(record.game_id)]  # this game only
    game = data["games"][str(record.game_id)]
    assert game["m"] == list(record.moves)
    assert [data["agents"][k] for k in game["p"]] == [record.first, record.second]
    judged = [m for m in judged_moves(records, perfect=("beta",)) if m.game == record.game_id]
    assert game["j"]["q"] == "".join(str(move.verdict)[0] for move in judged)
    assert "m" in game["j"]["q"] or record.second == "beta"  # the loser's mistake, unless beta lost
    result = {1.0: "1-0", 0.0: "0-1"}[record.result]
    assert (
        f"Game {record.game_id}: alpha (first) v {record.second} (second), {result} (4 in a row)" in fragment
    )
    for part in ("board", "moves", "start", "prev", "next", "end", "ply", "values", "judgement"):
        assert f'id="{scope}-{part}"' in fragment
    assert "function replayer(prefix, data)" in fragment


def test_a_forfeit_message_stays_text(report, records):
    record = next(r for r in records if r.termination == Termination.ERROR)
    fragment = replay_html(report, record.game_id)
    assert "</script><script>alert(1)" not in fragment  # the message is escaped inside the JSON
    assert fragment.count("<script") == 2


def test_an_unknown_game_is_one_sentence(report):
    with pytest.raises(KeyError) as error:
        replay_html(report, 999)
    assert isinstance(error.value, UnknownGame)
    assert str(error.value) == "no game 999 in this tournament: its 40 games have ids 0 to 39"
    with pytest.raises(TypeError, match="a game id is an integer, not str '3'"):
        replay_html(report, "3")  # type: ignore[arg-type]


needs_chromium = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium on PATH (apt-get install -y chromium; .ci/run does)"
)


@needs_chromium
def test_two_replays_and_a_result_on_one_page(browser, report, records, tmp_path):
    won = next(r for r in records if r.termination == Termination.WIN and r.first == "alpha")
    forfeited = next(r for r in records if r.termination == Termination.ERROR)
    first, second = replay_html(report, won.game_id), replay_html(report, forfeited.game_id)
    page_html = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        f"{first}<table id='outside'><tr><td>a notebook's own table</td></tr></table>"
        f"{result_html(report)}{second}"
        "</body></html>"
    )
    path = tmp_path / "notebook.html"
    path.write_text(page_html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors = watch(page)
    page.goto(path.as_uri())
    a, b = scope_of(first), scope_of(second)

    def text(scope: str, part: str) -> str:
        return page.evaluate(f"document.getElementById('{scope}-{part}').textContent")

    plies = len(won.moves)
    assert text(a, "ply-label") == f"ply {plies} of {plies}"  # each replay opens at its end
    assert text(b, "ply-label") == f"ply {len(forfeited.moves)} of {len(forfeited.moves)}"
    assert text(a, "replay-title").startswith(f"Game {won.game_id}: alpha (first) v")
    assert "forfeited" in text(b, "result")
    verdicts = page.evaluate(
        f"Array.from(document.querySelectorAll('#{a}-moves li .q')).map(q => q.textContent).join('')"
    )
    assert "??" in verdicts or won.second == "beta"
    page.click(f"#{a}-prev")
    page.click(f"#{a}-prev")
    assert text(a, "ply-label") == f"ply {plies - 2} of {plies}"
    assert text(b, "ply-label") == f"ply {len(forfeited.moves)} of {len(forfeited.moves)}"  # untouched
    page.click(f"#{a}-start")
    discs = f"document.querySelectorAll('#{a}-board .cell.p1, #{a}-board .cell.p2').length"
    assert page.evaluate(discs) == 0
    page.click(f"#{a}-next")
    assert page.evaluate(discs) == 1 and text(a, "judgement").startswith("Ply 1,")
    names = page.evaluate(
        "Array.from(document.querySelectorAll('.cx-standings td.agent')).map(td => td.textContent)"
    )
    assert names == [row.agent for row in report.standings]
    padding = page.evaluate("getComputedStyle(document.querySelector('#outside td')).paddingLeft")
    assert padding == "1px"  # the browser's own: no style of the fragments reaches the page's table
    assert errors == []
    page.close()
