"""The last callable of the file is an instance of a class (Kaggle plays the last callable)."""


def helper(obs, config):
    return 0


class Agent:
    def __init__(self):
        self.moves = 0

    def __call__(self, obs, config):
        self.moves += 1
        return [c for c in range(config.columns) if obs.board[c] == 0][self.moves % 2 - 1]


agent = Agent()
