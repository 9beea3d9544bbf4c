"""ConnectX agents, each a module exposing ``agent(obs, config) -> int`` as Kaggle calls it.

:mod:`agents.board` is the bitboard engine they share; :mod:`agents.registry` maps the names used on
the command line (``random``, ``minimax:depth=2``, ``path/to/file.py``) to agents.
"""
