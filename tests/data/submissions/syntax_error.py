"""A submission that does not compile: Kaggle's loader fails at the first move."""


def agent(obs, config)
    return 0
