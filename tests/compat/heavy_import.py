"""Does heavy work at import (a 1.5 s table), which Kaggle charges to its first move."""

import time

_start = time.perf_counter()
TABLE = {}
while time.perf_counter() - _start < 1.5:
    TABLE[len(TABLE)] = len(TABLE) ** 2


def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
