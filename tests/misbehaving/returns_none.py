def agent(obs, config):
    return None
