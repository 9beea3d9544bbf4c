import time


def agent(obs, config):
    time.sleep(3)
    return 0
