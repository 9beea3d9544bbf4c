"""Forks a child that sleeps on, then exits: the child holds the pipe to the referee open, but the
agent's process is gone (an ERROR on Kaggle)."""

import os
import time


def agent(obs, config):
    if os.fork() == 0:
        time.sleep(600)
    os._exit(1)
