import numpy as np


def agent(obs, config):
    return np.int64(3)
