"""A submission returning a numpy integer, which Kaggle's referee rejects as INVALID."""

import numpy as np


def agent(obs, config):
    return np.int64(config.columns // 2)
