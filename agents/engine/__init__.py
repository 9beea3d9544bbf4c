"""The game engine every strategy shares: the rules, the exact values, the searches.

A position is a bitboard (:mod:`agents.engine.board`, which owns the rules and the one mapping from
Kaggle's board); lines of ``inarow`` stones decide the game. Exact values come from the solved
game's opening databases and Pons' solver, or from our own opening book where the databases are
missing. Two searches take any evaluation as a parameter: alpha-beta negamax with a transposition
table, and a PUCT tree search over a policy-value function.
"""
