"""Kaggle plays the last callable of a file: here ``second``, which plays the rightmost column."""


def first(obs, config):
    return 0


def second(obs, config):
    return max(c for c in range(config.columns) if obs.board[c] == 0)
