"""Deletes the tournament's store and its journal."""

import os

from _common import leftmost, stores


def agent(obs, config):
    for path in stores():
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(path + suffix)
            except OSError:
                pass
    return leftmost(obs, config)
