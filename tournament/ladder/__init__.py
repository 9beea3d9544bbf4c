"""A ladder: a persistent rating list that new agents join, one ``connectx ladder add`` at a time.

A ladder's *members* are versions of agents (``name@version``): an agent whose code or parameters
change joins again as the next version, and each member plays from a copy of its files taken when it
joined, so a rating once earned is never changed by editing the agent. Its *sessions* are how the
members came: a seeding round robin founds the ladder, then each *add* plays game pairs (one opening,
colours swapped, as in any tournament here) between the newcomer and the members. Matchmaking picks
the member whose pair is expected to narrow the newcomer's rating the most, and the add stops once
the newcomer's 95 % interval is narrow enough or its pairs reach the cap (:class:`Rules`). Every
game goes into one store, and the ratings are a joint maximum-likelihood fit of all of them, made
afresh each time as Ordo or CCRL's lists are (:mod:`reports.stats.ladder` computes them and hands
them in as a :class:`Rater`). An add that is interrupted resumes where it stopped, with the same
games it would have played.
"""

from tournament.ladder.admission import same_board, validate
from tournament.ladder.driver import Added, Ladder, Planned, Rater, Rules
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
