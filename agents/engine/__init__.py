"""The game engine: the rules and the searches that every strategy shares.

* :mod:`agents.engine.board` (the bitboard position: legal and non-losing moves, threats, outcome) and
  :mod:`agents.engine.lines` (winning cells);
* :mod:`agents.engine.solver` (exact values: the solved game's opening databases, then Pons' solver);
  :mod:`agents.engine.book` (our own opening book, for when the databases are not installed);
* :mod:`agents.engine.search` (alpha-beta negamax with a transposition table and iterative deepening,
  over any evaluator) and :mod:`agents.engine.puct` (tree search over any evaluator).
"""
