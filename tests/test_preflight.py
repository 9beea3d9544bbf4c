"""A file agent that does not load as Kaggle loads it is refused before the first game, in one line
naming the file and the line, with exit status 2 and nothing written; ``--allow-broken`` plays it
(:mod:`connectx.preflight`)."""

from __future__ import annotations

import pytest

from connectx import runs
from connectx.cli import main
from connectx.preflight import refusal
from tournament.schedule import Settings

BROKEN = {
    "syntax_error.py": ("import random\n\n\ndef agent(obs, config)\n    return 0\n",
                        "syntax_error.py, line 4: SyntaxError: expected ':'"),
    "import_error.py": ('"""Needs a package Kaggle lacks."""\nimport math\nimport no_such_package\n\n\n'
                        "def agent(obs, config):\n    return 0\n",
                        "import_error.py, line 3: ModuleNotFoundError: No module named 'no_such_package'"),
    "no_callable.py": ("COLUMNS = 7\nCENTRE = COLUMNS // 2\n",
                       "no_callable.py: defines no function or other callable, which Kaggle would play"),
    "exits.py": ("import sys\n\nsys.exit(3)\n\n\ndef agent(obs, config):\n    return 0\n",
                 "exits.py, line 3: SystemExit: 3"),
}  # fmt: skip


@pytest.mark.parametrize("name,command", [("syntax_error.py", "run"), ("import_error.py", "run"),
                                          ("no_callable.py", "sprt"), ("exits.py", "run")])  # fmt: skip
def test_a_file_that_does_not_load_is_refused_before_any_game(tmp_path, monkeypatch, capsys, name, command):
    source, message = BROKEN[name]
    (tmp_path / name).write_text(source)
    monkeypatch.chdir(tmp_path)  # the file named as a person types it
    entrants = ["random", name] if command == "sprt" else ["--agents", "random", name]
    with pytest.raises(SystemExit) as exit_info:
        main([command, *entrants, "--out", "out"])
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert err == (
        f"connectx {command}: error: {message}: it does not load as Kaggle loads it, so every game of it "
        "would be an ERROR; fix it, or --allow-broken plays it anyway\n"
    )
    assert out == "" and not (tmp_path / "out").exists()


def test_allow_broken_goes_on_to_play_it(tmp_path, monkeypatch):
    # The games then score it ERROR, as any agent that raises (tests/test_runner.py); here: no refusal.
    name = "syntax_error.py"
    (tmp_path / name).write_text(BROKEN[name][0])

    class Played(Exception):
        pass

    def tournament(*args, **kwargs):
        raise Played

    monkeypatch.setattr(runs, "Tournament", tournament)
    with pytest.raises(Played):
        main(
            [
                "run",
                "--agents",
                "leftmost",
                str(tmp_path / name),
                "--out",
                str(tmp_path / "out"),
                "--allow-broken",
            ]
        )


def test_a_file_that_loads_and_then_raises_is_left_to_the_games(tmp_path):
    (tmp_path / "raises.py").write_text("def agent(obs, config):\n    raise ValueError('no move')\n")
    settings = Settings(entrants=("leftmost", str(tmp_path / "raises.py")), games=1)
    assert refusal(settings) is None
