import time


def agent(obs, config):
    while True:
        time.sleep(0.05)
