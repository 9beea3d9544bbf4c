"""How a tournament's report reaches a reader: the rendering half of :mod:`reports`.

Everything here reads a :class:`reports.report.Report` (or a comparison of several) and lays it out:
the self-contained HTML page with every game replayable, the Markdown report, the CSV tables, the
PNG and SVG figures, the terminal summary. Nothing here counts games: every number comes from the
report.
"""
