"""One assembly of a report (issue 55, item 2): the store is read once per report, by every reader (the
command line, the web's run pages, the ladder), every game is counted once, in one pass, and each section
is made from statistics computed once, never from the whole :class:`reports.stats.results.Results`."""

from __future__ import annotations

import pytest

import reports.report
from connectx.results import write_report
from reports.render import documents
from reports.stats.analysis import Analysis
from reports.stats.results import Counts, Results
from tests.records import AGENTS, judged_moves, settings_for, synthetic_records
from tournament.store import Store
from web.runs import Runs

SECTIONS = (
    "header", "review", "by_colour", "terminations", "time_use", "lengths", "pairings", "replay_data",
    "tables", "notes", "scale", "caption",
)  # fmt: skip
"""The section functions :func:`reports.report.build` calls with precomputed statistics."""


@pytest.fixture
def run(tmp_path):
    records = synthetic_records(AGENTS, 1)
    with Store.create(tmp_path / "run", settings_for(AGENTS, 1)) as store:
        for record in records:
            store.add(record)
    Analysis(judged_moves(records, perfect=("beta",))).write(tmp_path / "run" / "moves.csv")
    with Store.open(tmp_path / "run", read_only=True):
        pass  # the first reader settles the write-ahead log: the files' state the web keeps by
    return tmp_path / "run"


@pytest.fixture
def reads(monkeypatch):
    """How often the store is opened and read and a game is counted, and each section function's
    arguments, as counted."""
    counted = {"open": 0, "records": 0, "settings": 0, "count": 0}
    calls: dict[str, list[tuple]] = {}
    opened, records, settings = Store.open.__func__, Store.records, Store.settings

    def counting(name, function):
        def wrapped(*args, **kwargs):
            counted[name] += 1
            return function(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(Store, "open", classmethod(counting("open", opened)))
    monkeypatch.setattr(Store, "records", counting("records", records))
    monkeypatch.setattr(Store, "settings", counting("settings", settings))
    monkeypatch.setattr(Counts, "add", counting("count", Counts.add))
    for name in SECTIONS:
        function = getattr(reports.report, name)

        def recording(*args, _name=name, _function=function, **kwargs):
            calls.setdefault(_name, []).append(args + tuple(kwargs.values()))
            return _function(*args, **kwargs)

        monkeypatch.setattr(reports.report, name, recording)
    return counted, calls


def _read_once_and_counted_once(counted, calls, opens):
    assert counted == {"open": opens, "records": 1, "settings": 1, "count": len(synthetic_records(AGENTS, 1))}
    assert set(calls) == set(SECTIONS)
    for name, made in calls.items():
        assert len(made) == 1, name
        assert not any(isinstance(argument, Results) for argument in made[0]), name


def test_the_command_line_reads_the_store_once_and_counts_once(run, reads, tmp_path, monkeypatch):
    counted, calls = reads
    written = []  # the files themselves are the renderers' tests'
    monkeypatch.setattr(documents, "write_all", lambda report, out, on_file: written.append(report) or {})
    with Store.open(run, read_only=True) as store:
        counted["open"] = 0
        report = write_report(store, run, tmp_path / "out")
    assert report is not None and report.review is not None and written == [report]
    _read_once_and_counted_once(counted, calls, opens=0)


def test_a_run_page_and_load_read_the_store_once(run, reads):
    counted, calls = reads
    runs = Runs(run.parent)
    assert runs.report(run) is runs.report(run) is not None  # kept for the same state of the files
    runs.progress(run)
    _read_once_and_counted_once(counted, calls, opens=1)
    for key in counted:
        counted[key] = 0
    calls.clear()
    assert reports.report.load(run).review is not None
    _read_once_and_counted_once(counted, calls, opens=1)


def test_no_report_before_two_different_agents_have_met():
    assert reports.report.assemble([], settings_for(AGENTS, 1), name="x") is None


@pytest.mark.parametrize("entrants", [("alpha", "beta"), ("beta", "alpha")])
def test_the_header_s_sprt_line_is_the_match_s_own_from_the_pairs_counted_once(entrants):
    from reports.stats.stopping import SprtStop

    settings = settings_for(entrants, 4, sprt=(0.0, 10.0, 0.05, 0.05))
    played = [r for r in synthetic_records(AGENTS, 4) if {r.first, r.second} == set(entrants)]
    for games in (played[:1], played):  # no complete pair yet, then every pair
        stop = SprtStop(settings)
        stop.add(games)
        verdict = f"{stop.decision} accepted" if stop.decision else "no decision"
        live = f"{stop.sprt.describe()}: {stop.line}; {verdict}" if stop.counts.pairs else "no complete pair"
        line = dict(reports.report.assemble(games, settings, name="sprt").header.rows())["SPRT"]
        assert line == live or (live == "no complete pair" and line.endswith(": no complete pair yet"))
        assert stop.counts.pairs == (len(games) // 2)
