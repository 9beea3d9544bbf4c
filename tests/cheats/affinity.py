"""Moves itself onto every CPU of the machine at every move (``sched_setaffinity``), to take more than
its game's share. It plays leftmost, and raises the CPUs it got instead, if it got more than it
had: a game like any other proves its CPUs stayed its game's."""

import os


def agent(obs, config):
    had = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except OSError:
        pass
    got = os.sched_getaffinity(0)
    if got - had:
        raise RuntimeError(f"widened its CPUs from {sorted(had)} to {sorted(got)}")
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
