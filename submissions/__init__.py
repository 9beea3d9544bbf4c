"""Single-file Kaggle submissions for any of our agents, proved the way Kaggle loads them.

Modules, one job each: :mod:`~submissions.inline` (which package modules an agent needs, read from
the source), :mod:`~submissions.build` (write the one file), :mod:`~submissions.runtime` (the loader
copied into every built file), :mod:`~submissions.check` (play the file in a fresh isolated
interpreter through kaggle-environments) with :mod:`~submissions.probe` (the script run there),
:mod:`~submissions.verdict` (its events judged), :mod:`~submissions.timing` (move times against
``actTimeout``) and :mod:`~submissions.report` (the report, printed). The command line is
``connectx build|check`` (:mod:`connectx.submission`).
"""

# kaggle-environments appends .../envs/lux_ai_s3 (holding an ``agents.py``) to sys.path when
# imported; import our package first so every later ``import agents...`` finds it.
import agents  # noqa: F401
