"""Shared by the cheating agents: play leftmost, and find the tournament's store."""

import gc
import glob
import os


def leftmost(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]


def stores():
    """Every tournament.db this process can find: from other processes' command lines and working
    directories, and from the paths in its own memory."""
    found = set()
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            words = open(f"{proc}/cmdline", "rb").read().decode().split("\0")
            for word in words:
                found.update(glob.glob(os.path.join(word, "tournament.db")))
            found.update(glob.glob(os.path.join(os.readlink(f"{proc}/cwd"), "*", "tournament.db")))
        except OSError:
            pass
    for obj in gc.get_objects():
        if type(obj).__name__ in ("PosixPath", "Store"):
            for name in ("tournament.db", ""):
                candidate = os.path.join(str(getattr(obj, "path", obj)), name)
                if candidate.endswith("tournament.db") and os.path.exists(candidate):
                    found.add(candidate)
    return found
