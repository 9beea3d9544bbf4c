"""Reads its parent's memory and environment through /proc, and plays leftmost (it learns nothing)."""

import os

stolen = []


def agent(obs, config):
    for name in ("environ", "maps", "mem"):
        try:
            with open(f"/proc/{os.getppid()}/{name}", "rb") as file:
                stolen.append(file.read(16))
        except OSError:
            pass
    if stolen:
        raise RuntimeError(f"read the referee's process: {stolen!r}")
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
