"""Kills the opponent's process (an ERROR for it), then the game process and the runner."""

import os
import signal

from _common import leftmost


def _parent(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1].split()[1])


def agent(obs, config):
    game = os.getppid()
    siblings = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and int(entry) != os.getpid() and _parent(int(entry)) == game:
                siblings.append(int(entry))
        except OSError:
            pass
    for pid in (*siblings, game, _parent(game)):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return leftmost(obs, config)
