"""Reads ``obs.step`` and ``obs.remainingOverageTime``, and fails if they are missing or odd."""


def agent(obs, config):
    if not isinstance(obs.step, int) or obs.step != sum(1 for cell in obs.board if cell):
        raise RuntimeError(f"bad step {obs.step!r}")
    if not 0 < obs.remainingOverageTime <= 60:
        raise RuntimeError(f"bad overage {obs.remainingOverageTime!r}")
    return [c for c in range(config.columns) if obs.board[c] == 0][obs.step % 2 - 1]
