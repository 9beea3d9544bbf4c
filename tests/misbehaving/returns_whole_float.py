def agent(obs, config):
    return 3.0  # a whole float: Kaggle's schema lets it through, then its referee crashes on it
