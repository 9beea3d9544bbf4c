"""Tournaments of ConnectX agents through the official kaggle-environments referee.

A tournament is a schedule of game pairs (round-robin, gauntlet, or an SPRT match's pairs), each pair
one opening played once with each colour. Every game is played through kaggle-environments, which
judges every answer by Kaggle's rules, with each agent in a confined process of its own, and ends as
an immutable game record; the records are stored as they end in one SQLite store per tournament
directory, so a run resumes where it stopped. Games run in parallel on this machine or on a Ray
cluster; episodes played on Kaggle can be imported as records too. A tournament only plays and
stores: what its records add up to is :mod:`reports`', which this package never imports; the
command line is :mod:`connectx`.
"""

# kaggle-environments appends .../envs/lux_ai_s3 to sys.path when imported, and that directory holds
# a module named ``agents``. Import our package first so every later ``import agents...`` finds it.
import agents  # noqa: E402, F401
