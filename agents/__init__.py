"""ConnectX agents: what plays, and nothing else, each agent reachable as ``agent(obs, config) -> int``
the way Kaggle calls it.

An agent is a strategy -- a search over the game's rules with an evaluation of its own, a learned
network or value function, or a fixed rule -- built on a shared engine (the board and its rules,
exact values of solved positions, the searches) and on a kit every strategy shares (the player
interface, the clock, the stages before a search, the Kaggle adapter at the edge). The registry maps
the names the command line takes (``random``, ``minimax:depth=2``, a path to a ``.py`` file) to
agents, and describes each from its code.

This package is the bottom floor: it imports no other package of the project, so a single-file
Kaggle submission can inline it (:mod:`submissions`), and whatever makes an agent's data (training,
opening books) lives above it, in :mod:`training`. The compiled solver (numba) is optional: without
numba, or in a submission, the pure-Python solver plays.
"""
