"""``connectx import``: episodes played through kaggle-environments come back as the same games, and a bad
file or a foreign directory is one line and exit status 2 with nothing stored lost."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from connectx.cli import main
from tournament.environments import make
from tournament.episodes import LOCAL_KEYS, EpisodeError, parse_episode, read_episode
from tournament.record import Termination
from tournament.schedule import Settings
from tournament.store import DB_NAME, Store, StoreError


def _recording(agent, played: list):
    """``agent`` (a Kaggle agent function) that also appends each action it returns to ``played``."""

    def act(obs, config):
        action = agent(obs, config)
        played.append(action)
        return action

    return act


def _leftmost(obs, config):
    return next(c for c in range(config.columns) if obs.board[c] == 0)


def _centre_first(obs, config):
    order = sorted(range(config.columns), key=lambda c: abs(c - config.columns // 2))
    return next(c for c in order if obs.board[c] == 0)


def _always_zero(obs, config):
    return 0


def _nine(obs, config):
    return 9


def _crash_at_third_call(obs, config):
    if obs.step >= 5:
        raise RuntimeError("boom")
    return 3


def _play(agents, *, debug: bool = True, **configuration) -> tuple[dict, list[int], list]:
    """Play one episode; returns its ``env.toJSON()``, the actions the agents returned in order, and
    the final ``(rewards, statuses)``."""
    played: list[int] = []
    env = make("connectx", debug=debug, configuration=configuration)
    env.run([_recording(agent, played) for agent in agents])
    final = env.steps[-1]
    return env.toJSON(), played, [[s.reward for s in final], [s.status for s in final]]


@pytest.fixture(scope="module")
def episodes(tmp_path_factory) -> dict[str, tuple[Path, dict, list[int], list]]:
    """Real episodes written as files: name -> (path, JSON, actions returned, [rewards, statuses])."""
    from kaggle_environments.envs.connectx.connectx import negamax_agent  # after the referee's lean import

    folder = tmp_path_factory.mktemp("episodes")
    random.seed(5)  # kaggle's negamax breaks ties at random
    played = {
        "win": _play([_centre_first, _leftmost]),
        "negamax": _play([negamax_agent, _leftmost]),
        "full": _play([_always_zero, _always_zero]),  # mark 1's 4th stone goes into the full column 0
        "range": _play([_leftmost, _nine]),  # no column 9 on 7 columns
        "error": _play([_leftmost, _crash_at_third_call], debug=False),  # with debug, env.run raises
        "small": _play([_centre_first, _leftmost], rows=5, columns=6),
    }
    out = {}
    for name, (data, actions, final) in played.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(data))
        out[name] = (path, data, actions, final)
    return out


def _import(capsys, *args: str | Path) -> tuple[int, str, str]:
    """Run ``connectx import ARGS``; its exit status, stdout and stderr."""
    try:
        status = main(["import", *map(str, args)])
    except SystemExit as exit_info:
        status = exit_info.code
    out, err = capsys.readouterr()
    return status, out, err


def _records(run: Path):
    with Store.open(run) as store:
        return store.records(), store.settings()


def test_a_won_episode_keeps_its_moves_result_and_board(episodes, tmp_path, capsys):
    path, data, actions, (rewards, statuses) = episodes["win"]
    assert rewards == [1, -1] and statuses == ["DONE", "DONE"]  # the centre player makes a line
    status, out, _ = _import(capsys, path, "--names", "centre", "leftmost", "--out", tmp_path / "run")
    assert status == 0 and "game 0: centre v leftmost, 1-0 (win" in out
    (record,), settings = _records(tmp_path / "run")
    assert record.moves == tuple(actions)
    assert (record.first, record.second, record.result) == ("centre", "leftmost", 1.0)
    assert (record.termination, record.offender) == (Termination.WIN, None)
    assert (record.statuses, record.rewards) == (("DONE", "DONE"), (1, -1))
    assert (record.game_id, record.pair_id, record.opening, record.move_times) == (0, 0, (), ())
    task = record.task
    assert (task.rows, task.columns, task.inarow, task.act_timeout, task.hang_limit) == (6, 7, 4, 2.0, None)
    assert record.task.seed >= LOCAL_KEYS  # no EpisodeId: a key of its own
    assert settings.entrants == ("centre", "leftmost") and settings.opening_source == "kaggle episodes"


def test_kaggles_negamax_game_is_read_move_for_move(episodes):
    _, data, actions, (rewards, statuses) = episodes["negamax"]
    episode = parse_episode(data)
    assert episode.moves == tuple(actions)
    assert list(episode.statuses) == statuses and list(episode.rewards) == rewards
    winner = {1: 1.0, -1: 0.0, 0: 0.5}[rewards[0]]
    assert episode.result == winner
    assert episode.termination == (Termination.DRAW if winner == 0.5 else Termination.WIN)


def test_an_invalid_move_is_a_forfeit_of_its_mark(episodes, tmp_path, capsys):
    path, data, actions, (rewards, statuses) = episodes["full"]
    assert statuses == ["INVALID", "DONE"] and rewards == [None, 0]
    status, out, _ = _import(capsys, path, "--names", "zero", "nought", "--out", tmp_path / "run")
    assert status == 0 and "0-1 (invalid by zero, 6 moves)" in out
    (record,), _ = _records(tmp_path / "run")
    assert record.moves == tuple(actions[:-1]) == (0,) * 6  # the 7th call is the forfeit, not a move
    assert (record.termination, record.offender, record.result) == (Termination.INVALID, 1, 0.0)
    assert record.detail == "mark 1 chose column 1, which is full (it returned 0, counting from 0)"
    assert record.rewards == (None, 0)


def test_a_column_out_of_range_is_invalid_and_described_as_the_runner_does(episodes):
    _, data, actions, (rewards, statuses) = episodes["range"]
    assert statuses == ["DONE", "INVALID"] and actions == [0, 9]
    episode = parse_episode(data)
    assert (episode.moves, episode.termination, episode.offender) == ((0,), Termination.INVALID, 2)
    assert episode.detail.startswith("mark 2 returned 9: there is no column 10 on a 7-column board")


def test_an_exception_is_an_error_of_its_mark(episodes):
    _, data, actions, (rewards, statuses) = episodes["error"]
    assert statuses == ["DONE", "ERROR"]
    episode = parse_episode(data)
    assert episode.moves == tuple(actions)  # the crashing call returned nothing
    assert (episode.termination, episode.offender, episode.result) == (Termination.ERROR, 2, 1.0)
    assert "mark 2 raised an error" in episode.detail


def _forfeit_as(data: dict, status: str, remaining: float | None = None) -> dict:
    """``data`` (an episode that mark 2 forfeited) with mark 2's final status ``status`` (and overage
    bank ``remaining``)."""
    data = copy.deepcopy(data)
    data["steps"][-1][1]["status"] = data["statuses"][1] = status
    if remaining is not None:
        data["steps"][-1][1]["observation"]["remainingOverageTime"] = remaining
    return data


def test_timeouts_follow_the_termination_doc(episodes):
    _, data, _, _ = episodes["error"]
    assert parse_episode(_forfeit_as(data, "TIMEOUT")).termination == Termination.TIMEOUT
    # Termination.TIMEOUT: kaggle status INVALID once the overage bank is overdrawn
    overdrawn = parse_episode(_forfeit_as(data, "INVALID", remaining=-0.5))
    assert (overdrawn.termination, overdrawn.offender) == (Termination.TIMEOUT, 2)
    plain = parse_episode(_forfeit_as(data, "INVALID"))
    assert plain.termination == Termination.INVALID and "does not keep" in plain.detail
    # the record keeps Kaggle's statuses, INVALID for the TIMEOUT of an overdrawn bank
    assert overdrawn.record(0, "a", "b").statuses == ("DONE", "INVALID")


def test_a_forfeit_whose_final_statuses_or_rewards_do_not_add_up_is_refused(episodes):
    _, data, _, _ = episodes["error"]  # mark 2 raised: mark 1 is DONE with reward 0
    for field, final, value in (("reward", "rewards", 1), ("status", "statuses", "INACTIVE")):
        edited = copy.deepcopy(data)
        edited["steps"][-1][0][field] = edited[final][0] = value
        with pytest.raises(EpisodeError, match="not those of a forfeit of mark 2"):
            parse_episode(edited)


def _leaderboard(data: dict, episode_id: int, teams: list[str]) -> dict:
    """``data`` as a leaderboard download: ``info`` with the episode id and team names."""
    data = copy.deepcopy(data)
    data["info"] = {"EpisodeId": episode_id, "LiveVideoPath": None, "TeamNames": teams}
    return data


def test_team_names_and_episode_ids_let_a_run_grow_without_doubles(episodes, tmp_path, capsys):
    run = tmp_path / "run"
    first = tmp_path / "1001.json"
    first.write_text(json.dumps(_leaderboard(episodes["win"][1], 1001, ["Ann", "Bo"])))
    status, out, _ = _import(capsys, first, "--out", run)
    assert status == 0 and "episode 1001" in out
    second = tmp_path / "1002.json"
    second.write_text(json.dumps(_leaderboard(episodes["full"][1], 1002, ["Bo", "Cy"])))
    status, out, _ = _import(capsys, first, second, "--out", run)
    assert status == 0
    assert f"{first}: already stored as game 0; skipped" in out
    assert "game 1: Bo v Cy, 0-1 (invalid by Bo, 6 moves), episode 1002" in out
    assert "imported 1 episode, skipped 1" in out
    records, settings = _records(run)
    assert [(r.game_id, r.pair_id, r.task.seed) for r in records] == [(0, 0, 1001), (1, 1, 1002)]
    assert settings.entrants == ("Ann", "Bo", "Cy")
    status, out, _ = _import(capsys, second, "--out", run)  # a third time: nothing new
    assert status == 0 and "imported 0 episodes, skipped 1" in out
    assert len(_records(run)[0]) == 2


def test_a_game_against_itself_is_skipped(episodes, tmp_path, capsys):
    selfplay = tmp_path / "validation.json"
    selfplay.write_text(json.dumps(_leaderboard(episodes["win"][1], 7, ["Me", "Me"])))
    status, out, _ = _import(capsys, selfplay, "--out", tmp_path / "run")
    assert status == 0 and "a game against itself" in out and "nothing to import" in out
    assert not (tmp_path / "run").exists()


def test_disconnected_agents_are_warned_of(episodes, tmp_path, capsys):
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    one.write_text(json.dumps(_leaderboard(episodes["win"][1], 1, ["A", "B"])))
    two.write_text(json.dumps(_leaderboard(episodes["full"][1], 2, ["C", "D"])))
    status, _, err = _import(capsys, one, two, "--out", tmp_path / "run")
    assert status == 0 and "2 groups that never met (A, B; C, D)" in err


def _bad_files(folder: Path, win: dict) -> dict[str, tuple[Path, str]]:
    """Files that must be refused, each with a piece of its message."""
    actor_at_3 = [s["status"] for s in win["steps"][2]].index("ACTIVE")
    illegal = copy.deepcopy(win)
    illegal["steps"][3][actor_at_3]["action"] = 9
    moved = copy.deepcopy(win)
    moved["steps"][3][actor_at_3]["action"] = (win["steps"][3][actor_at_3]["action"] + 1) % 7
    cut = copy.deepcopy(win)
    del cut["steps"][5:]
    unfinished = copy.deepcopy(cut)
    del unfinished["statuses"], unfinished["rewards"]
    texts = {
        "not JSON": ("hello\n", "not JSON"),
        "a cut file": (json.dumps(win)[:500], "not JSON"),
        "a list": ("[1, 2]", "not a kaggle-environments episode"),
        "another JSON": (json.dumps({"rows": 6}), "not a kaggle-environments episode"),
        "another game": (json.dumps({**win, "name": "tictactoe"}), "not of connectx"),
        "cut steps": (json.dumps(cut), "steps cut short"),
        "unfinished": (json.dumps(unfinished), "unfinished"),
        "an illegal move": (json.dumps(illegal), "illegal move"),
        "another move": (json.dumps(moved), "the board is not the moves'"),
        "no steps": (json.dumps({**win, "steps": win["steps"][:1]}), "no move was played"),
    }
    files = {}
    for name, (text, message) in texts.items():
        path = folder / f"{name.replace(' ', '-')}.json"
        path.write_text(text)
        files[name] = (path, message)
    return files


def test_bad_files_exit_2_naming_the_file_and_store_nothing(episodes, tmp_path, capsys):
    run = tmp_path / "run"
    good, negamax = episodes["win"][0], episodes["negamax"][0]
    assert _import(capsys, good, "--names", "a", "b", "--out", run)[0] == 0
    before = (run / DB_NAME).read_bytes()
    for name, (path, message) in _bad_files(tmp_path, episodes["win"][1]).items():
        # a good new episode first: it is not stored either, since every file is checked first
        status, out, err = _import(capsys, negamax, path, "--names", "a", "b", "--out", run)
        assert status == 2, name
        assert err.count("\n") == 1 and err.startswith(f"connectx import: error: {path}"), name
        assert message in err, (name, err)
        assert out == ""
        assert (run / DB_NAME).read_bytes() == before, name
    assert len(_records(run)[0]) == 1


def test_a_missing_file_and_missing_names_are_one_line(episodes, tmp_path, capsys):
    status, _, err = _import(capsys, tmp_path / "nothing.json", "--names", "a", "b", "--out", tmp_path / "r")
    assert status == 2 and "cannot read it" in err
    status, _, err = _import(capsys, episodes["win"][0], "--out", tmp_path / "r")
    assert status == 2 and "--names FIRST SECOND" in err
    status, _, err = _import(capsys, episodes["win"][0], "--names", "a", "a", "--out", tmp_path / "r")
    assert status == 2 and "two different" in err
    assert not (tmp_path / "r").exists()


def test_episodes_of_different_boards_are_refused(episodes, tmp_path, capsys):
    run = tmp_path / "run"
    status, _, err = _import(
        capsys, episodes["win"][0], episodes["small"][0], "--names", "a", "b", "--out", run
    )
    assert status == 2 and "5x6, 4 in a row" in err and not run.exists()
    assert _import(capsys, episodes["win"][0], "--names", "a", "b", "--out", run)[0] == 0
    status, _, err = _import(capsys, episodes["small"][0], "--names", "a", "b", "--out", run)
    assert status == 2 and "holds games on 6x7" in err


def test_a_tournament_is_not_an_import_and_stays_untouched(episodes, tmp_path, capsys):
    run = tmp_path / "tournament"
    with Store.create(run, Settings(entrants=("random", "leftmost"), games=1)):
        pass
    before = (run / DB_NAME).read_bytes()
    status, out, err = _import(capsys, episodes["win"][0], "--names", "a", "b", "--out", run)
    assert status == 2 and "holds a tournament, not imported episodes" in err and err.count("\n") == 1
    assert (run / DB_NAME).read_bytes() == before
    with Store.open(run) as store:
        assert store.settings().entrants == ("random", "leftmost")


def test_read_episode_refuses_two_offenders(episodes):
    data = copy.deepcopy(episodes["error"][1])
    data["steps"][-1][0]["status"] = data["statuses"][0] = "TIMEOUT"
    with pytest.raises(EpisodeError, match="both agents forfeited"):
        parse_episode(data)
    with pytest.raises(EpisodeError, match="not JSON"):
        read_episode(b"\xff\xfe{")


def test_add_entrants_appends_only_new_names_and_needs_the_lock(tmp_path):
    settings = Settings(entrants=("a", "b"), games=1)
    with Store.create(tmp_path, settings) as store:
        assert store.add_entrants(["b", "c", "a", "c", "d"]).entrants == ("a", "b", "c", "d")
        assert store.add_entrants(["d"]).entrants == ("a", "b", "c", "d")
    with Store.open(tmp_path) as store:
        assert store.settings().entrants == ("a", "b", "c", "d")
        with pytest.raises(StoreError, match="read only"):
            store.add_entrants(["e"])


def test_report_of_an_imported_run(episodes, tmp_path, capsys):
    run = tmp_path / "run"
    files = [episodes[name][0] for name in ("win", "full")]
    assert _import(capsys, *files, "--names", "centre", "leftmost", "--out", run)[0] == 0
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    assert "centre" in out and "2 games" in out
    assert (run / "report.html").is_file() and (run / "games.csv").is_file()


def test_analyze_judges_an_imported_episode(episodes, tmp_path, capsys):
    from reports.stats.analysis import Analysis, Verdict

    path, _, actions, _ = episodes["negamax"]
    run = tmp_path / "run"
    assert _import(capsys, path, "--names", "kaggle-negamax", "leftmost", "--out", run)[0] == 0
    assert main(["analyze", str(run), "--workers", "1"]) == 0
    analysis = Analysis.read(run)
    assert [move.column - 1 for move in analysis.moves] == actions
    assert {move.agent for move in analysis.moves} == {"kaggle-negamax", "leftmost"}
    # leftmost stacks column 1 while kaggle's negamax builds a line: leftmost errs, and loses
    assert any(m.agent == "leftmost" and m.verdict is Verdict.MISTAKE for m in analysis.moves)
