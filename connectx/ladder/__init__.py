"""``connectx ladder``: a persistent rating list that new agents join (``docs/ladder.md``).

* ``ladder init [SPEC ...] [--builtins]`` starts a ladder in ``--ladder DIR`` (default ``ladder/``),
  seeded by a round robin of its first members (``--builtins``: the agents of the default round robin);
* ``ladder add SPEC ...`` lets each agent join, a new member or a new version ``name@2`` (a changed file
  or changed parameters), and plays its game pairs against the members, chosen where a pair tells the
  most about its rating, until its 95 % interval is within ``±--until`` Elo or it has played
  ``--pairs`` pairs; run again after an interruption, it resumes;
* ``ladder [show]`` prints the rating list (every game rated jointly; ``--anchor NAME=ELO`` pins the
  scale) with a Kaggle-style μ ± σ column, and draws how the ratings moved as members joined;
* ``ladder report`` writes the same reports as ``connectx run`` for all the ladder's games;
* ``ladder remove NAME`` retires a member, whose games stay.

Bad input -- no ladder in DIR, a spec that does not load, an impossible option, a board other than
the ladder's -- is one line and exit status 2, with nothing stored changed. The games are played by
:mod:`tournament.ladder`; the ratings are :mod:`reports.stats.ladder`'s.
"""

from connectx.ladder.command import add_commands

__all__ = ["add_commands"]
