def agent(obs, config):
    return 3.7
