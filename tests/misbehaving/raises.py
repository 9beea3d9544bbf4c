def agent(obs, config):
    raise RuntimeError("boom")
