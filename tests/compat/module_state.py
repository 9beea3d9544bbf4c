"""Keeps state in the module across moves, and fails if it is lost between moves."""

calls = []


def agent(obs, config):
    mine = sum(1 for cell in obs.board if cell == obs.mark)
    if mine != len(calls):
        raise RuntimeError(f"state lost: {len(calls)} calls remembered, {mine} own stones")
    calls.append(obs.step)
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
