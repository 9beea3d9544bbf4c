"""How a tournament's figures reach a reader: the rendering half of :mod:`reports`.

:mod:`~reports.render.plots` draws the figures (matplotlib), :mod:`~reports.render.write` writes the
CSV tables and PNG figures, :mod:`~reports.render.html` (Jinja2 templates in ``templates/``, with a
replay player) and :mod:`~reports.render.markdown` lay out a :class:`reports.report.Report`,
:mod:`~reports.render.documents` writes every file of a report, and :mod:`~reports.render.terminal`
prints its summary. Nothing here counts games: every number comes from :mod:`reports.stats`.
"""
