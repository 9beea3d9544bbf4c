"""ConnectX agents, each a module exposing ``agent(obs, config) -> int`` as Kaggle calls it.

Only what plays lives here -- what a single-file submission inlines; offline work (training, book
generation, the numba solver) is in the ``training`` package, which nothing here imports.

* Rules: :mod:`agents.board` (the bitboard position, legal and non-losing moves, threats, outcome)
  and :mod:`agents.lines` (winning cells).
* Players: :mod:`agents.player` (``play(board, clock)`` and the one game loop, ``play_game``) and
  :mod:`agents.adapter` (Kaggle's ``obs``/``config`` both ways, the clock, Kaggle's time defaults).
* Search: :mod:`agents.search` (alpha-beta negamax, transposition table, iterative deepening, a
  pluggable evaluator); :mod:`agents.minimax`, :mod:`agents.negamax` and :mod:`agents.network` are
  configurations of it. :mod:`agents.solver` solves positions exactly; :mod:`agents.book` reads the
  opening book.
* :mod:`agents.registry` maps the names used on the command line (``random``, ``minimax:depth=2``,
  ``path/to/file.py``) to agents.
"""
