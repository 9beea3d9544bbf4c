"""A submission that ends the whole process at its first move (Kaggle's loader catches Exception only)."""

import sys


def agent(obs, config):
    sys.exit(3)
