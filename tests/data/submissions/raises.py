"""A submission whose agent raises at its first call."""


def agent(obs, config):
    raise RuntimeError("boom from the fixture")
