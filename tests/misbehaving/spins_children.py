"""Leaves 40 children spinning at its first move, each in a session of its own (a shell's busy loop),
then plays leftmost: work left running after its move, which must not slow its opponent."""

import os

CHILDREN = 40


def agent(obs, config):
    if not getattr(agent, "started", False):
        agent.started = True
        for _ in range(CHILDREN):
            os.posix_spawn("/bin/sh", ["sh", "-c", "while :; do :; done"], {}, setsid=True)
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
