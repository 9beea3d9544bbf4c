def agent(obs, config):
    return config.columns
