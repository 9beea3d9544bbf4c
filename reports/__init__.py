"""Ratings, tables and plots of a finished tournament, read from its game records.

:mod:`reports.stats` holds the head-to-head statistics of cutechess-cli / fastchess (Elo, error,
LOS, pentanomial); :mod:`reports.tally` counts records into those values; :mod:`reports.ratings`
fits joint Bradley-Terry ratings; :mod:`reports.tables` and :mod:`reports.plots` build the
standings, crosstable and pair tables and their figures; :mod:`reports.write` writes them all.

The report a person reads: :mod:`reports.report` gathers what it shows from the records,
:mod:`reports.html` (Jinja2 templates in ``templates/``, with a replay player) and
:mod:`reports.markdown` lay it out, :mod:`reports.compare` sets runs side by side and
:mod:`reports.documents` writes the files. :mod:`reports.frames` loads a tournament as pandas
DataFrames; :mod:`reports.browser` drives headless Chromium to test and screenshot the page.
"""
