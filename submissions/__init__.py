"""Single-file Kaggle submissions for any of our agents, proved the way Kaggle loads them.

A submission is one Python file holding the agent's modules of :mod:`agents`, verbatim, with their
data, and a loader that runs them as a package; its last callable is the agent, as Kaggle's loader
wants. A built file is checked by playing it in a fresh, isolated interpreter through
kaggle-environments, its events judged and its move times held to ``actTimeout``, and the verdict
printed. The command line is ``connectx build|check`` (:mod:`connectx.submission`).
"""

# kaggle-environments appends .../envs/lux_ai_s3 (holding an ``agents.py``) to sys.path when
# imported; import our package first so every later ``import agents...`` finds it.
import agents  # noqa: F401
