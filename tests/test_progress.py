"""Progress that never goes quiet (:mod:`connectx.progress`): a bar's clock redrawn while nothing
else happens, on a terminal only; an SPRT's bar counts games with no total, its LLR on a gauge."""

from __future__ import annotations

import os
import pty
import select
import time
from pathlib import Path

from connectx.match import _Progress
from connectx.progress import Ticking, bar
from reports.stats.stopping import SprtStop
from tournament.driver import Started
from tournament.schedule import Settings


def test_a_ticking_bar_is_redrawn_while_nothing_updates_it_and_cleared_at_the_end():
    main, side = pty.openpty()
    with os.fdopen(side, "w") as terminal:
        # tqdm itself would show it only after 60 s (solve's quiet start): what shows is the ticks
        shown = bar(desc="solving", bar_format="{desc} [{elapsed}]", file=terminal, delay=60, leave=False,
                    dynamic_ncols=False, ncols=80)  # fmt: skip
        ticking = Ticking(shown, interval=0.05, delay=0.05)
        time.sleep(0.5)  # no update meanwhile
        ticking.stop()
        shown.close()
    output = b""
    while select.select([main], [], [], 0.5)[0]:  # all of it: a terminal hands it over in pieces
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        output += chunk
    os.close(main)
    output = output.decode()
    parts = output.split("\r")
    redraws = [part for part in parts if part.startswith("solving [")]
    assert len(redraws) >= 3 and redraws[0] == "solving [00:00]"
    assert parts[-2:] == [" " * len(redraws[-1]), ""]  # the line blanked, the cursor back at its start


def test_a_bar_off_a_terminal_neither_shows_nor_ticks(tmp_path: Path):
    with open(tmp_path / "log", "w") as log:
        shown = bar(desc="writing", file=log)
        ticking = Ticking(shown, interval=0.01)
        time.sleep(0.1)
        ticking.stop()
        shown.close()
    assert ticking._thread is None and (tmp_path / "log").read_text() == ""


def test_an_sprt_bar_counts_games_without_a_total_and_gauges_the_llr(tmp_path: Path):
    settings = Settings(entrants=("a", "b"), games=10000, sprt=(0.0, 10.0, 0.05, 0.05))
    progress = _Progress(tmp_path, SprtStop(settings))
    progress(Started(scheduled=20000, stored=0, todo=20000))
    assert progress.bar.total is None  # no 20,000-game ETA: the test stops when it decides
    assert str(progress.bar).startswith("games: 0 [00:00, ?game/s], H0 [----------#----------] H1  pairs 0")
    progress.close()
