"""Ratings, tables and plots of a finished tournament, read from its game records.

:mod:`reports.stats` holds the head-to-head statistics of cutechess-cli / fastchess (Elo, error,
LOS, pentanomial); :mod:`reports.tally` counts records into those values; :mod:`reports.ratings`
fits joint Bradley-Terry ratings; :mod:`reports.tables` and :mod:`reports.plots` build the
standings, crosstable and pair tables and their figures; :mod:`reports.write` writes them all.
"""
