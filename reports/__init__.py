"""Ratings, tables, move analysis and the reports of tournaments, read from their game records.

``reports`` reads :mod:`tournament` (records, settings, store); :mod:`tournament` never imports
``reports``. It has two halves:

* :mod:`reports.stats` computes: head-to-head statistics, ratings, SPRT, tables, the judging of
  every move against perfect play. Each figure is computed there once.
* :mod:`reports.render` writes and draws: CSV, PNG, the HTML and Markdown reports, the terminal.

Between them, :mod:`reports.report` gathers what a report shows (with :mod:`reports.header`,
:mod:`reports.games` and :mod:`reports.review`, the move analysis) as plain data, and
:mod:`reports.compare` sets runs side by side.
:mod:`reports.provenance` names the toolkit that played a run; :mod:`reports.words` writes counts and
signed numbers the one way every report and message does.

The entry points a command needs: :func:`reports.report.load` (the report of a tournament
directory), :func:`reports.render.documents.write_all` (every file of a report),
:func:`reports.render.terminal.summary` (its lines for a terminal) and
:func:`reports.render.documents.write_comparison` (several runs side by side).
"""
