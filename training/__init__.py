"""Offline code: what makes the agents' data, never what plays.

* :mod:`training.solvers` picks the solver compiled with numba (:mod:`agents.engine.solver.fast`), or
  the pure-Python solver when numba is missing.
* :mod:`training.book`: generation of the opening book that :mod:`agents.engine.book` reads
  (``python -m training.book``).
* :mod:`training.network`: data, model and training of the network that :mod:`agents.network` runs
  (``python -m training.network.data``, ``python -m training.network.train``; JAX, flax, optax).
* :mod:`training.learners`: the classic learners; :mod:`training.driver` trains one
  (``connectx train``), scoring it with :mod:`training.evaluation` and drawing :mod:`training.curve`.

Nothing under ``agents/`` imports this package: a single-file submission inlines ``agents/`` only
(:mod:`submissions.build`), and ``tests/test_imports.py`` checks it.
"""
