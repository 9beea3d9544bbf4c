def agent(obs, config):
    return sum(range(10**15))  # one C call that never gives the GIL back
