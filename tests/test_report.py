"""The report: its data (reports.report), HTML and Markdown, documents, comparisons and the CLI.

Games are built by hand (:func:`synthetic_records`: legal random games with openings, times and
forfeits), so no test here plays through kaggle-environments except the one end-to-end run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import time

import pandas as pd
import pytest

from connectx.cli import main
from reports.compare import compare
from reports.games import replay_data
from reports.render import html, markdown
from reports.render.documents import write_comparison, write_documents
from reports.render.terminal import forfeit_summary, summary
from reports.render.write import readable_pairs, write_reports
from reports.report import build, load
from reports.stats.accuracy import accuracy, perfect_reference
from reports.stats.analysis import MOVES_FILE, Analysis, JudgedMove, Verdict
from reports.stats.results import Results
from reports.stats.sections import ForfeitRow
from reports.stats.tables import pairs
from tests.records import AGENTS, game_record, judged_moves, settings_for, synthetic_records
from tournament.record import GameRecord, Termination
from tournament.schedule import Settings
from tournament.store import Store, settings_from_json, settings_to_json


@pytest.fixture(scope="module")
def records():
    return synthetic_records(AGENTS, 4)


@pytest.fixture(scope="module")
def results(records):
    """The synthetic round robin's :class:`Results`, shared by the module's reports of it, which read
    its fits (ratings, progression) and never change it: each fit is computed once."""
    return Results(records, settings_for(AGENTS, 4))


@pytest.fixture(scope="module")
def report(results):
    return build(results, name="synthetic")


@pytest.fixture(scope="module")
def documents(report, tmp_path_factory):
    """The report's documents as :func:`write_documents` writes them (report.html with its figures
    drawn), once for the module: their paths by name."""
    return write_documents(report, tmp_path_factory.mktemp("documents"))


def test_the_synthetic_games_cover_every_ending(records):
    endings = {record.termination for record in records}
    assert {Termination.WIN, Termination.ERROR, Termination.INVALID} <= endings
    assert any(record.opening for record in records)


def test_header_and_entrants(report):
    rows = dict(report.header.rows())
    assert rows["games"] == "80 played of 80 scheduled"
    assert rows["workers / cores"] == "2 / 2"
    assert rows["toolkit"] == "0.1.0 (git test)"
    assert rows["openings"] == "test openings"
    assert "actTimeout 2 s" in rows["time"] and "bank 60 s" in rows["time"]
    assert rows["played"] == "2026-01-02 03:00 to 2026-01-02 03:01 UTC"
    assert [entrant.spec for entrant in report.entrants] == list(AGENTS)
    assert all(entrant.kind == "file" and entrant.sha256 == "missing" for entrant in report.entrants)


def test_entrant_kinds_and_file_hash(tmp_path):
    agent = tmp_path / "mine.py"
    agent.write_text("def agent(obs, config):\n    return 0\n")
    names = ("minimax:depth=2", "kaggle-random", str(agent))
    records = synthetic_records(names, 1)
    entrants = build(Results(records, settings_for(names, 1)), name="x").entrants
    assert [(e.kind, e.params) for e in entrants] == [("ours", "depth=2"), ("kaggle", ""), ("file", "")]
    assert "N-step" in entrants[0].description and "``" not in entrants[0].description
    assert entrants[2].sha256 == hashlib.sha256(agent.read_bytes()).hexdigest()


def test_counts_add_up(report, records):
    for standing, ending in zip(report.standings, report.terminations, strict=True):
        assert standing.agent == ending.agent
        assert ending.games == standing.games
        assert ending.connected_wins + sum(ending.opponent_forfeits.values()) == standing.wins
        assert ending.connected_losses + sum(ending.own_forfeits.values()) == standing.losses
        assert ending.draws == standing.draws
        totals = next(row for row in report.by_colour if row.agent == standing.agent and not row.opponent)
        assert totals.first.games + totals.second.games == standing.games
        assert totals.first.wins + totals.second.wins == standing.wins
    crashes = [f for f in report.forfeits if f.agent == "crashy"]
    assert crashes and all(f.kind == "error" and "Traceback" in f.detail for f in crashes)
    assert len(report.forfeits) == sum(record.offender is not None for record in records)
    assert report.lengths[0].label == "all games" and report.lengths[0].games == len(records)
    assert sum(len(pairing.games) for pairing in report.pairings) == len(records)


def test_time_use_attributes_calls_after_the_opening(report):
    use = {row.agent: row for row in report.time_use}
    assert use["slow"].median == pytest.approx(2.5)
    assert use["slow"].bank_used > 5 and use["slow"].bank_game is not None
    assert use["alpha"].max < 0.02 and use["alpha"].bank_used == 0 and use["alpha"].bank_game is None
    game = game_record(
        game_id=0, pair_id=0, first="a", second="b", rows=6, columns=7, inarow=4, act_timeout=1.0, seed=0,
        moves=(3, 3, 2, 2), move_times=(0.5, 3.0), result=0.5, termination=Termination.DRAW, opening=(3, 3),
    )  # fmt: skip
    use = {row.agent: row for row in build(Results([game], settings_for(("a", "b"), 1)), name="x").time_use}
    assert use["a"].max == 0.5 and use["b"].max == 3.0 and use["b"].bank_used == 2.0 and use["a"].calls == 1


def test_replay_data_is_compact_and_complete(records):
    data = replay_data(records)
    game = data["games"][str(records[5].game_id)]
    record = records[5]
    assert [data["agents"][k] for k in game["p"]] == [record.first, record.second]
    assert game["m"] == list(record.moves) and game["o"] == len(record.opening)
    assert game["t"] == [round(t * 10_000) for t in record.move_times]
    assert game["b"] == [6, 7, 4] and game["r"] == round(2 * record.result)
    assert ("d" in game) == bool(record.detail)


def test_html_is_self_contained_and_escapes_messages(documents):
    page = documents["report.html"].read_text(encoding="utf-8")  # html.render's page
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page)
    assert not re.search(r"@import|url\(\s*['\"]?https?:", page)
    assert page.count("<script") == 2  # the replay data and the player: the message is escaped
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
    assert page.count("<svg") >= 4
    assert "<dc:date>" not in page  # the figures of the same games are the same text
    for name in AGENTS:
        assert name in page
    assert "Traceback (most recent call last):\n" in page  # kept whole, in a <pre>
    assert '<a href="#game-0">' in page


def test_markdown_has_every_section_and_fences_tracebacks(report):
    text = markdown.render(report)
    for heading in ("## Entrants", "## Standings", "## Crosstable", "## By colour", "## Terminations",
                    "## Time use", "## Game lengths", "## Games"):  # fmt: skip
        assert heading in text
    assert "![Crosstable](crosstable.png)" in text and "![Elo progression](elo_progress.png)" in text
    assert "```\nmark 1 raised AttributeError" in text or "```\nmark 2 raised AttributeError" in text
    assert all(line.count("|") >= 2 for line in text.splitlines() if line.startswith("| "))


def test_a_1000_game_report_stays_small(tmp_path):
    # The size of the default roster, two of them forfeiting often (the longest messages).
    agents = ("negamax", "network", "minimax", "one_step", "kaggle-negamax", "slow", "leftmost", "crashy",
              "fullcol")  # fmt: skip
    records = synthetic_records(agents, 14)[:1000]
    assert len(records) == 1000
    began = time.perf_counter()
    report = build(Results(records, settings_for(agents, 14)), name="thousand")
    paths = write_documents(report, tmp_path)
    size = paths["report.html"].stat().st_size
    print(f"1,000-game report.html: {size / 1e6:.2f} MB, built in {time.perf_counter() - began:.1f} s")
    assert size < 10e6
    assert paths["report.md"].stat().st_size < 2e6


def test_documents_and_games_csv(report, documents):
    paths = documents
    folder = paths["games.csv"].parent
    assert sorted(path.name for path in folder.iterdir()) == ["games.csv", "report.html", "report.md"]
    games = pd.read_csv(paths["games.csv"], dtype={"opening": str, "moves": str}, keep_default_na=False)
    assert len(games) == len(report.records)
    first = report.records[0]
    row = games.iloc[0]
    assert row["moves"] == "".join(str(move + 1) for move in first.moves)
    assert [float(t) for t in row["move_times"].split()] == pytest.approx(first.move_times, rel=1e-5)
    crash = games[games["termination"] == "error"].iloc[0]
    assert crash["offender"] == "crashy" and "Traceback" in crash["detail"]


def test_forfeit_summary_groups_by_agent_kind_and_message(report):
    lines = forfeit_summary(report.forfeits)
    assert lines[0].startswith(f"forfeits ({len(report.forfeits)} games")
    crash = [line for line in lines if line.lstrip().startswith("crashy:") and " error " in line]
    assert len(crash) == 1  # the same exception as first and as second player: one line
    assert crash[0].endswith("</script><script>alert(1)</script>")  # the traceback's last line
    assert forfeit_summary([]) == []


def test_forfeit_summary_says_whose_process_ended():
    """``mark 1's process exited ...`` is summed up as ``its process exited ...``, not ``'s process``."""
    detail = "mark {}'s process exited (exit code 1) during its move"
    rows = [
        ForfeitRow(game, "exits.py", "leftmost", "error", 3, detail.format(mark))
        for game, mark in ((3, 1), (4, 2))
    ]
    summary = "  exits.py: 2 error (games 3, 4): its process exited (exit code 1) during its move"
    assert forfeit_summary(rows)[1:] == [summary]


def _pairs(results):
    return pairs(results.h2h, results.pentanomials, results.order)


def test_pairs_csv_is_rounded_and_explains_infinities():
    records = synthetic_records(("alpha", "beta"), 3)
    table = readable_pairs(_pairs(Results(records)))
    assert table["elo_diff"].map(lambda v: v == round(v, 1)).all()
    perfect = readable_pairs(_pairs(Results(_sweep())))
    assert perfect["elo_diff"].iloc[0] == float("inf")
    assert "scored every point" in perfect["note"].iloc[0]


def _sweep() -> list[GameRecord]:
    """``a`` wins both games of two pairs against ``b``."""
    games = []
    for k in range(4):
        first, second = ("a", "b") if k % 2 == 0 else ("b", "a")
        games.append(
            game_record(
                game_id=k,
                pair_id=k // 2,
                first=first,
                second=second,
                rows=6,
                columns=7,
                inarow=4,
                act_timeout=2.0,
                seed=k,
                moves=(),
                move_times=(),
                result=1.0 if first == "a" else 0.0,
                termination=Termination.WIN,
            )  # fmt: skip
        )
    return games


def test_pairs_csv_reads_back(tmp_path):
    records = _sweep() + synthetic_records(("a", "c"), 2)
    names = tuple(dict.fromkeys(name for record in records for name in (record.first, record.second)))
    write_reports(build(Results(records, settings_for(names, 2)), name="x"), tmp_path)
    text = (tmp_path / "pairs.csv").read_text()
    assert "n/a" in text and "inf" in text and "6.11597" not in text
    table = pd.read_csv(tmp_path / "pairs.csv")
    assert table["elo_diff"].dtype == float and "note" in table.columns


def test_settings_without_run_facts_still_load_and_run_facts_do_not_change_identity():
    old = settings_to_json(Settings(entrants=("a", "b"), games=1))
    text = re.sub(r', "(workers|cores|toolkit)": [^,}]+', "", old)
    assert "workers" not in text
    assert settings_from_json(text) == Settings(entrants=("a", "b"), games=1)
    assert settings_from_json(text).workers is None
    assert settings_for(("a", "b"), 1) == Settings(
        entrants=("a", "b"), games=1, opening_source="test openings"
    )


def test_sprt_header(records):
    settings = settings_for(("alpha", "beta"), 4, sprt=(0.0, 10.0, 0.05, 0.05))
    subset = [r for r in records if {r.first, r.second} == {"alpha", "beta"}]
    report = build(Results(subset, settings), name="sprt")
    line = dict(report.header.rows())["SPRT"]
    assert line.startswith("elo0 0, elo1 10") and "LLR" in line


def _store(directory, agents, pairs_per_pairing, seed=1):
    with Store.create(directory, settings_for(agents, pairs_per_pairing)) as store:
        for record in synthetic_records(agents, pairs_per_pairing, seed):
            store.add(record)


def test_compare_lines_up_shared_agents_and_versions(tmp_path):
    _store(tmp_path / "v1", ("mine_v1", "alpha", "beta"), 2)
    _store(tmp_path / "v2", ("mine_v2", "alpha", "beta"), 2, seed=2)
    reports = [load(tmp_path / "v1"), load(tmp_path / "v2")]
    comparison = compare(reports, [tmp_path / "v1", tmp_path / "v2"], tmp_path / "out")
    assert comparison.shared == [row.agent for row in reports[0].standings if row.agent != "mine_v1"]
    assert [line.agent for line in comparison.agents][-2:] == ["mine_v1", "mine_v2"]
    mine = {line.agent: line for line in comparison.agents}
    assert mine["mine_v1"].cells[1] is None and mine["mine_v1"].change is None
    assert mine["alpha"].change == pytest.approx(
        mine["alpha"].cells[1].standing.score_pct - mine["alpha"].cells[0].standing.score_pct
    )
    versions = {row.agent: row for row in comparison.versus if row.agent.startswith("mine")}
    assert versions["mine_v1"].total.games == versions["mine_v2"].total.games == 8
    assert comparison.runs[0].link == "../v1/report.html"
    with pytest.raises(ValueError):
        compare(reports[:1], [tmp_path / "v1"], tmp_path)
    paths = write_comparison(reports, [tmp_path / "v1", tmp_path / "v2"], tmp_path / "out")
    assert (
        "mine_v2" in paths["comparison.html"].read_text() and "mine_v1" in paths["comparison.md"].read_text()
    )


def test_compare_pairs_versions_by_name_and_by_pair_and_shows_short_names(tmp_path):
    _store(tmp_path / "v1", ("bots/v1/mine.py", "/long/path/to/alpha.py", "beta_old.py"), 2)
    _store(tmp_path / "v2", ("bots/v2/mine.py", "/long/path/to/alpha.py", "beta_new.py"), 2, seed=2)
    reports = [load(tmp_path / "v1"), load(tmp_path / "v2")]
    directories = [tmp_path / "v1", tmp_path / "v2"]
    by_name = compare(reports, directories, tmp_path)
    assert sorted(by_name.shared) == ["alpha", "mine"]  # one name across runs, whatever the folders
    mine = next(line for line in by_name.agents if line.agent == "mine")
    assert [cell.spec for cell in mine.cells] == ["bots/v1/mine.py", "bots/v2/mine.py"]
    assert mine.change is not None
    assert {line.agent for line in by_name.agents} == {"mine", "alpha", "beta_old", "beta_new"}
    paired = compare(reports, directories, tmp_path, pairs=[("beta_old", "beta_new.py")])
    assert sorted(paired.shared) == ["alpha", "beta_old → beta_new.py", "mine"]
    beta = next(line for line in paired.agents if line.agent.startswith("beta"))
    assert [cell.spec for cell in beta.cells] == ["beta_old.py", "beta_new.py"]
    assert all(row.total.games == 8 for row in paired.versus)  # each agent against the two others
    assert not any("/" in line.agent for line in paired.agents)
    with pytest.raises(ValueError, match="no run has"):
        compare(reports, directories, tmp_path, pairs=[("nobody", "nothing")])
    with pytest.raises(ValueError, match="names 2 agents"):
        compare(reports, directories, tmp_path, pairs=[("mine", "alpha")])
    paths = write_comparison(reports, directories, tmp_path / "out", [("beta_old", "beta_new")])
    text = paths["comparison.md"].read_text()
    assert "beta_old → beta_new" in text and "/long/path" not in text


def test_report_command_writes_reports_and_a_comparison(tmp_path, capsys):
    _store(tmp_path / "a", ("alpha", "crashy", "fullcol"), 2)
    _store(tmp_path / "b", ("alpha", "beta", "fullcol"), 1)
    assert main(["report", str(tmp_path / "a"), str(tmp_path / "b"), "--pair", "crashy=beta"]) == 0
    out = capsys.readouterr().out
    for name in ("a", "b"):
        assert (tmp_path / name / "report.html").is_file() and (tmp_path / name / "report.md").is_file()
    assert "crashy → beta" in (tmp_path / "a" / "comparison.md").read_text()
    assert "forfeits (" in out and "crashy:" in out and "raised AttributeError" not in out.split("crashy:")[0]
    with pytest.raises(SystemExit) as exit_info:
        main(["report", str(tmp_path / "nothing")])
    assert exit_info.value.code == 2
    for bad in (["--pair", "crashy"], ["--pair", "nobody=none"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["report", str(tmp_path / "a"), str(tmp_path / "b"), *bad])
        assert exit_info.value.code == 2
        printed = capsys.readouterr()
        assert printed.out == ""  # refused before any report is written
    assert "--pair nobody=none: no run has an agent of those names" in printed.err


def test_table_is_the_report_command_by_another_name(tmp_path, capsys):
    _store(tmp_path / "a", ("alpha", "crashy", "fullcol"), 1)
    assert main(["report", str(tmp_path / "a")]) == 0
    report_out = capsys.readouterr().out
    written = (tmp_path / "a" / "report.md").read_text()
    (tmp_path / "a" / "report.md").unlink()
    assert main(["table", str(tmp_path / "a")]) == 0
    table_out = capsys.readouterr().out
    strip = lambda text: re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "", text)  # noqa: E731 - the time written
    assert table_out == report_out and strip((tmp_path / "a" / "report.md").read_text()) == strip(written)


@pytest.mark.slow
def test_a_run_leaves_report_html_and_md(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["run", "--agents", "random", "leftmost", "one_step", "--games", "2", "--workers", "2"]
    assert main([*args, "--out", str(out)]) == 0
    for name in ("report.html", "report.md", "games.csv", "crosstable.png"):
        assert (out / name).is_file()
    page = (out / "report.html").read_text()
    assert all(name in page for name in ("random", "leftmost", "one_step"))
    with Store.open(out) as store:
        settings = store.settings()
    assert settings.workers == 2 and settings.cores and settings.toolkit.startswith("0.")
    assert "workers / cores</th><td>2 / " in page


def test_the_crosstable_figure_shows_forfeits(report):
    from reports.render.plots import crosstable_figure, to_svg

    svg = to_svg(crosstable_figure(report.crosstable, report.standings, title="t"), key="x")
    crashes = sum(f.agent == "crashy" for f in report.forfeits)
    assert f"crashy ({crashes} err)" in svg  # the row label: its forfeits over all games
    assert re.search(r">\d+ inv<", svg)  # a cell: forfeits against one opponent
    assert svg.startswith("<svg")  # inline-ready: no XML declaration or DOCTYPE


@pytest.fixture(scope="module")
def analysed(records, results):
    """The synthetic round robin's report with a made-up move analysis in which beta never errs."""
    analysis = Analysis(judged_moves(records, perfect=("beta",)))
    return build(results, name="analysed", analysis=analysis), analysis


@pytest.fixture(scope="module")
def analysed_page(analysed):
    """The HTML page of :func:`analysed`'s report (:func:`reports.render.html.render`), drawn once."""
    return html.render(analysed[0])


def test_the_report_shows_each_agents_accuracy_and_worst_moves(analysed, analysed_page):
    report, analysis = analysed
    review = report.review
    assert [line.accuracy for line in review.accuracy] == accuracy(analysis, report.records)
    assert review.games == len(report.records)
    assert "beta" in review.perfect and review.reference == "beta"
    for line in review.accuracy:
        verdicts = [move.verdict for move in line.worst]
        assert verdicts == sorted(verdicts, key=["mistake", "inaccuracy"].index)  # mistakes first
        for move in line.worst:
            assert move.agent == line.accuracy.agent and move.anchor == f"game-{move.game}-ply-{move.ply}"
            assert move.change in ("win → loss", "draw → loss", "win → draw", "win → slower win")
            assert move.column not in move.best_columns
    text = markdown.render(report)
    assert "## Against perfect play" in text
    assert any(line.startswith("| beta | ") for line in text.split("## Against perfect play")[1].splitlines())
    page = analysed_page
    assert 'id="accuracy-table"' in page and 'href="#game-' in page and "-ply-" in page


def test_the_deciding_move_of_each_game_is_named_and_linked(analysed):
    report, analysis = analysed
    rows = {row.game_id: row for pairing in report.pairings for row in pairing.games}
    for record in report.records:
        deciding = report.review.deciding.get(record.game_id)
        loser = {1.0: record.second, 0.0: record.first}.get(record.result)
        if record.termination == Termination.WIN and loser != "beta" and deciding is not None:
            assert deciding.agent == loser and deciding.verdict == "mistake"
            assert deciding.change == "draw → loss"
        if record.termination != Termination.WIN:
            assert deciding is None  # a draw thrown away would be named; these were level throughout
        assert rows[record.game_id].deciding == deciding
        judged = report.replays["games"][str(record.game_id)]["j"]
        assert len(judged["q"]) == len(judged["v"]) == len(judged["c"]) == len(record.moves)
        assert judged["k"] == (deciding.ply if deciding else 0)
        moves = analysis.by_game[record.game_id]
        assert judged["q"] == "".join(str(move.verdict)[0] for move in moves)
        assert judged["v"] == [m.value_after if m.mark == 1 else -m.value_after for m in moves]


def test_a_perfect_agent_adds_each_agents_elo_relative_to_it_and_leaves_the_standings_alone(
    analysed, analysed_page
):
    report, _ = analysed
    pool = Results(report.records, report.settings)  # no analysis: the pool's mean at 0
    assert report.standings == pool.standings and report.scale == "Elo (mean of the rated = 0)"
    assert report.progress == pool.progress  # the figures' scale too
    assert not any(line.rating.reference for line in report.standings)
    versus, review = report.review.versus, report.review
    assert review.reference == "beta" and sorted(versus) == sorted(pool.order)
    assert versus["beta"].reference and versus["beta"].cell() == "0"
    shift = next(r.elo for r in pool.ratings if r.name == "beta")
    compared = 0
    for rating in pool.ratings:
        if rating.is_finite and rating.name != "beta":  # the pool's ratings, their zero moved onto beta
            relative = versus[rating.name]
            assert relative.elo == pytest.approx(rating.elo - shift, abs=0.5)
            assert relative.low < relative.elo < relative.high
            assert relative.cell() == f"{relative.elo:+.0f} ({relative.low:+.0f} to {relative.high:+.0f})"
            compared += 1
    assert compared >= 2
    moves = next(line.accuracy.moves for line in review.accuracy if line.accuracy.agent == "beta")
    note = next(note for note in report.notes if note.startswith("beta made no mistake"))
    assert note.startswith(f"beta made no mistake in {moves:,} moves: it stands for perfect play, and "
                           "'vs perfect play' is each agent's Elo relative to it")  # fmt: skip
    crashy = versus["crashy"]  # it lost every game: only a bound, in the note as in its cell
    assert crashy.elo == -math.inf and crashy.cell() == f"≤ {crashy.high:+.0f}"
    assert crashy.high < 0
    assert note.endswith(f"; for an agent that lost every game to beta, a one-sided 95 % bound: "
                         f"≤ {crashy.high:+.0f}, at least {-crashy.high:.0f} below beta")  # fmt: skip
    table = markdown.render(report).split("## Standings")[1]
    assert "| 95 % interval | vs perfect play | games |" in table
    assert re.search(rf"\| beta \| [^|]+ \| [^|]+ \| 0 \| {versus['beta'].games} \|", table)
    terminal = "\n".join(summary(report))
    assert "vs perfect play" in terminal.splitlines()[0] and f"≤ {crashy.high:+.0f}" in terminal
    assert note in terminal
    page = analysed_page
    assert ">vs perfect<br>play</th>" in page and f'<td class="n">{crashy.cell()}</td>' in page


def test_an_undefeated_perfect_agent_bounds_everyone_else():
    records = []
    for i, a in enumerate(["top", "second", "third"]):
        for b in ["top", "second", "third", "bottom"][i + 1 :]:
            records += [
                game_record(game_id=len(records) + k, pair_id=len(records) // 2, first=first, second=second,
                            moves=(3,), move_times=(), result=float(first == a), termination=Termination.WIN)
                for k, (first, second) in enumerate([(a, b), (b, a)])
            ]  # fmt: skip
    names = ("top", "second", "third", "bottom")
    opened = {name: next(r.game_id for r in records if r.first == name) for name in names}  # its move, judged
    moves = [JudgedMove(opened["top"], 1, "top", "", 4, 0, 0, (4,), Verdict.BEST)]
    moves += [JudgedMove(opened[name], 1, name, "", 4, 0, -2, (3,), Verdict.MISTAKE) for name in names[1:]]
    report = build(Results(records, settings_for(names, 1)), name="ladder", analysis=Analysis(moves))
    assert report.standings == Results(records).standings  # the pool's, as without the analysis
    assert [line.agent for line in report.standings] == list(names)
    versus = report.review.versus
    assert [versus[name].cell()[:2] for name in names] == ["0", "≤ ", "≤ ", "≤ "]
    bounds = [versus[name].high for name in names[1:]]
    assert bounds == sorted(bounds, reverse=True)  # each beat those below: a bound further down each
    assert bounds[0] > 0  # two games against top bound nothing below it: the bound is above it
    assert report.notes[-1].endswith(
        f"; for an agent that lost every game to top, a one-sided 95 % bound: ≤ {bounds[0]:+.0f}, "
        f"at most {bounds[0]:.0f} above top"
    )


def test_the_report_command_reads_the_runs_move_analysis(tmp_path, capsys):
    agents = ("alpha", "crashy", "fullcol")
    _store(tmp_path / "a", agents, 1)
    with Store.open(tmp_path / "a") as store:
        Analysis(judged_moves(store.records())).write(tmp_path / "a" / MOVES_FILE)
    assert main(["report", str(tmp_path / "a")]) == 0
    assert "## Against perfect play" in (tmp_path / "a" / "report.md").read_text()
    (tmp_path / "a" / MOVES_FILE).write_text("not,a,moves,file\n")
    assert main(["report", str(tmp_path / "a")]) == 0
    assert "no move analysis in the report" in capsys.readouterr().err
    assert "## Against perfect play" not in (tmp_path / "a" / "report.md").read_text()


def test_a_run_stored_anew_over_an_analysed_one_reports_without_the_old_judgements(tmp_path, capsys):
    _store(tmp_path / "old", ("alpha", "crashy", "fullcol"), 1)
    with Store.open(tmp_path / "old") as store:
        stale = Analysis(judged_moves(store.records()))
    _store(tmp_path / "a", ("beta", "leftish", "fullcol"), 1, seed=2)  # the same game ids, other games
    stale.write(tmp_path / "a" / MOVES_FILE)  # as `connectx run --overwrite` leaves it
    assert main(["report", str(tmp_path / "a")]) == 0  # it raised ValueError: 'alpha' did not play game 0
    assert "## Against perfect play" not in (tmp_path / "a" / "report.md").read_text()


def test_an_analysis_keeps_the_games_judged_as_they_were_played(records):
    moves = judged_moves(records[:3])
    first, second, third = (record.game_id for record in records[:3])
    stale = [dataclasses.replace(m, column=m.column % 7 + 1) if m.game == first else m for m in moves]
    swapped = {records[1].first: records[1].second, records[1].second: records[1].first}
    stale = [
        dataclasses.replace(m, agent=swapped.get(m.agent, m.agent)) if m.game == second else m for m in stale
    ]
    kept = Analysis(stale).of(records)
    assert set(kept.by_game) == {third} and kept.by_game[third] == Analysis(moves).by_game[third]


def test_a_game_whose_moves_the_analysis_does_not_match_gets_no_judgements(records):
    moves = judged_moves(records[:2])
    first = records[0].game_id
    stale = [dataclasses.replace(m, column=m.column % 7 + 1) if m.game == first else m for m in moves]
    data = replay_data(records[:2], Analysis(stale))
    assert "j" not in data["games"][str(first)] and "j" in data["games"][str(records[1].game_id)]


def test_games_without_move_times_report_their_time_as_not_measured():
    records = [dataclasses.replace(r, move_times=()) for r in synthetic_records(("alpha", "beta"), 1)]
    report = build(Results(records, settings_for(("alpha", "beta"), 1)), name="imported")
    assert all(row.calls == 0 for row in report.time_use)
    assert "| alpha | 0 | - | - | - |" in markdown.render(report)  # report.md's text


def test_an_agent_that_forfeits_does_not_stand_for_perfect_play(records, results, tmp_path):
    only_fullcol = Analysis(judged_moves(records, perfect=("fullcol",)))  # it never errs, but forfeits
    assert [name for name in only_fullcol.agents() if only_fullcol.perfect(name)] == ["fullcol"]
    lines = accuracy(only_fullcol, records)
    assert perfect_reference(lines, results.totals, results.forfeited) is None
    report = build(results, name="x", analysis=only_fullcol)
    assert report.review.reference is None and report.review.versus == {}
    assert "vs perfect" not in markdown.render(report) and "vs perfect" not in html.render(report)
    assert not any("perfect play" in note for note in report.notes)
    judged = build(results, name="y", analysis=Analysis(judged_moves(records, perfect=("beta",))))
    comparison = compare([judged, report], [tmp_path / "y", tmp_path / "x"], tmp_path)
    assert [run.scale for run in comparison.runs] == ["Elo (mean of the rated = 0)"] * 2
