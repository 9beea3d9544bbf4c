"""ConnectX agents, each a module exposing ``agent(obs, config) -> int`` as Kaggle calls it.

Only what plays lives here -- what a single-file submission inlines; offline work (training, book
generation, the numba solver) is in the ``training`` package, which nothing here imports.

* :mod:`agents.engine`: the game engine -- the rules (board, winning lines), the exact values
  (solver, opening books), the alpha-beta and tree searches.
* :mod:`agents.kit`: what every agent is made of -- the player interface and the one game loop, the
  Kaggle adapter.
* The strategies, one module each, at the top: ``random_agent``, ``leftmost``, ``middle``,
  ``one_step``, ``minimax``, ``negamax``, ``mcts``, ``network``, ``value_net``, ``q_net``, ``lms``,
  ``td``; with what they share (``heuristic``, ``features``, ``afterstates``, ``weights``).
* :mod:`agents.registry` maps the names used on the command line (``random``, ``minimax:depth=2``,
  ``path/to/file.py``) to agents; :mod:`agents.resources` reads data files.
"""
