"""No hidden growth: the engine keeps no per-position state between moves, so that a long run (a
tournament's agent host, a training loop) holds the same memory after thousands of games as after
the first few."""

from __future__ import annotations

import gc
import random
import tracemalloc

from agents.engine.board import Board, geometry
from agents.engine.lines import WINS_FUNCTIONS_KEPT, _kept, wins_function
from agents.engine.search import Search
from agents.negamax import threat_evaluation

LONG_RUN = 100
"""Games of the run measured (about 2 s: tracemalloc slows Python down some 20 times)."""

GROWTH_ALLOWED = 64 * 1024
"""Bytes the run may add to what the warm-up left: measured 1 KB; with the former unbounded cache of
``agents.engine.lines.non_losing`` (an entry per position met), 0.96 MB."""


def _play(games: int, rng: random.Random, search: Search) -> None:
    """``games`` games of 6x7 where every move asks the board what an agent asks (winning moves,
    threats, the moves that do not lose at once), one move in ten is searched two plies deep and
    the others are random among the moves that do not lose."""
    for _ in range(games):
        board = Board()
        while board.outcome() is None:
            wins = board.winning_moves()
            if wins:
                board.push(board.columns(wins)[0])
                continue
            safe = board.columns(board.non_losing_moves()) or board.legal_moves()
            if rng.random() < 0.1:
                board.push(search.best(board, depth=2).column)
            else:
                board.push(rng.choice(safe))


def test_a_long_run_of_games_holds_its_memory() -> None:
    rng = random.Random(7)
    search = Search(geometry(6, 7, 4), threat_evaluation(geometry(6, 7, 4)))
    _play(50, rng, search)  # warm-up: tables and free lists at their working size
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        _play(LONG_RUN, rng, search)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < GROWTH_ALLOWED, f"{grown} bytes more after {LONG_RUN} games"


def test_wins_functions_are_kept_per_configuration_and_bounded() -> None:
    geo = geometry(6, 7, 4)
    assert wins_function(geo) is wins_function(geometry(6, 7, 4))
    for rows in range(4, 4 + 2 * WINS_FUNCTIONS_KEPT):
        wins_function(geometry(rows, 7, 4))
    assert len(_kept) == WINS_FUNCTIONS_KEPT
