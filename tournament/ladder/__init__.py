"""A ladder: a persistent rating list that new agents join, one ``connectx ladder add`` at a time.

Modules, one job each: :mod:`~tournament.ladder.roster` (the members, their versions and copies, and
the additions, in ``ladder.json``), :mod:`~tournament.ladder.matchmaking` (whom a newcomer plays
next) and :mod:`~tournament.ladder.driver` (the seeding round robin and each add, played through
:class:`tournament.driver.Tournament` into one store). The ratings are :mod:`reports.stats.ladder`'s;
the command line is :mod:`connectx.ladder`.
"""

from tournament.ladder.driver import Added, Ladder, Planned, Rater, Rules, same_board, validate
from tournament.ladder.matchmaking import RULES, Outlook
from tournament.ladder.roster import Candidate, LadderError, Member, Roster, Session, identify

__all__ = [
    "RULES",
    "Added",
    "Candidate",
    "Ladder",
    "LadderError",
    "Member",
    "Outlook",
    "Planned",
    "Rater",
    "Roster",
    "Rules",
    "Session",
    "identify",
    "same_board",
    "validate",
]
