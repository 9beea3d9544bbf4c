"""Ratings, tables and plots of a finished tournament, read from its game records.

``reports`` reads :mod:`tournament` (records, settings, store); :mod:`tournament` never imports
``reports``.

:mod:`reports.stats` holds the head-to-head statistics of cutechess-cli / fastchess (Elo, error,
LOS, pentanomial); :mod:`reports.tally` counts records into those values, and
:class:`reports.results.Results` holds them, counted once per tournament, with its ratings
(:mod:`reports.ratings`: joint Bradley-Terry ratings, fitted by :mod:`reports.likelihood`) and Elo
progression (:mod:`reports.progress`). Everything below reads a ``Results``:
:mod:`reports.tables` and :mod:`reports.plots` build the standings, crosstable and pair tables and
their figures, :mod:`reports.write` writes them (CSV, PNG), :mod:`reports.terminal` prints them.

The report a person reads: :mod:`reports.report` gathers what it shows (:mod:`reports.header`,
:mod:`reports.sections`, :mod:`reports.games`), :mod:`reports.html` (Jinja2 templates in
``templates/``, with a replay player) and :mod:`reports.markdown` lay it out,
:mod:`reports.compare` sets runs side by side and :mod:`reports.documents` writes the files.
:mod:`reports.frames` loads a tournament as pandas DataFrames; :mod:`reports.browser` drives
headless Chromium to test and screenshot the page.

The entry points a command needs: :func:`reports.report.load` (the report of a tournament
directory), :func:`reports.documents.write_all` (every file of a report),
:func:`reports.terminal.summary` (its lines for a terminal) and
:func:`reports.documents.write_comparison` (several runs side by side).
"""
