"""What every agent is made of, apart from its own evaluation and search.

* :mod:`agents.kit.player` (the ``play(board, clock)`` interface and the one game loop) and
  :mod:`agents.kit.adapter` (Kaggle's ``obs``/``config`` both ways, the clock);
* :mod:`agents.kit.budget`: the seconds a move may spend (``actTimeout``, the overage bank, what
  Kaggle does on the first move) and the garbage collector paused while it thinks;
* :mod:`agents.kit.tactics`: the moves made without thinking (the only move, a draw by geometry, a
  win at once, the only move that does not lose at once);
* :mod:`agents.kit.solved`: the solved positions (the solved game's databases and exact solving; our
  opening book where the databases are missing);
* :mod:`agents.kit.record`: :class:`~agents.kit.record.MoveRecord`, how the last move was chosen
  (a player's ``last_move``);
* :mod:`agents.kit.strategy`: :class:`~agents.kit.strategy.Strategy`, the frame of a player's
  ``play`` (timing, the collector paused, the record).

A strategy runs them in that order -- tactics, solved positions under the budget's deadline, then
its own search -- and records the move.
"""
