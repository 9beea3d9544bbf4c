"""What every agent is made of, apart from its own evaluation and search.

* :mod:`agents.kit.player` (the ``play(board, clock)`` interface and the one game loop) and
  :mod:`agents.kit.adapter` (Kaggle's ``obs``/``config`` both ways, the clock).
"""
