"""What every agent is made of, apart from its own evaluation and search.

A player answers ``play(board, clock)`` with a column; a clock says how long a move may take (Kaggle's
``actTimeout`` and the overage bank) and the budget how much of it one move may spend. Before its own
search, a strategy runs the shared stages: the moves made without thinking (the only move, a win at
once, the only move that does not lose at once), then the solved positions within the budget's
deadline; a strategy's move comes with the record of how it was chosen. The Kaggle adapter is the
thin edge: it turns an observation into a board and a clock, and a player into ``agent(obs,
config)``, and back. The one game loop in which players meet outside Kaggle's referee lives here too.
"""
