def agent(obs, config):
    return 0
