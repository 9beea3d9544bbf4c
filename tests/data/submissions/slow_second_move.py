"""A submission whose second move takes 0.7 s: over a 0.5 s actTimeout, drawing on the overage bank."""

import time

calls = 0


def agent(obs, config):
    global calls
    calls += 1
    if calls == 2:
        time.sleep(0.7)
    return next(c for c in range(config.columns) if obs.board[c] == 0)
