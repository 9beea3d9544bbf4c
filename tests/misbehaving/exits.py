import os


def agent(obs, config):
    os._exit(3)
