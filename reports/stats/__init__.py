"""What a tournament's records add up to: the computing half of :mod:`reports`.

Head-to-head statistics as cutechess-cli and fastchess give them (WDL, pentanomial counts of game
pairs, Elo, error, LOS), counted once per tournament; joint Bradley-Terry ratings of the whole pool
fitted by maximum likelihood, and their progression over the games; the SPRT on game pairs, also
as a stop rule counted as games end; the standings, crosstable and other sections of a report, and
the same as pandas DataFrames. Every move is judged against perfect play, the solved game's.

Nothing here draws or renders (:mod:`reports.render` does); the only files written here are the
move analysis's own: its ``moves.csv`` and its cache of solved positions.
"""
