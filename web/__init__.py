"""Connect Four in the browser: ``connectx serve DIR`` (:mod:`connectx.serve`) starts this package's app.

Pages (:mod:`web.pages`), plain HTML from Jinja2 templates in ``web/templates``, with small scripts and
styles in ``web/static`` (no build step; nothing is fetched from elsewhere):

* ``/``: the runs in DIR, with their entrants, games and date (:mod:`web.runs`);
* ``/board``: an analysis board: click a column to play, either side a person or an agent at a chosen
  time a move, the perfect-play score of every column (:mod:`reports.exact`), undo and redo, and a URL
  that restores the position (``/board?pos=4453&first=human&second=negamax``);
* ``/runs/NAME``: a run's report, the page ``connectx report`` writes (its template extends
  ``reports``' ``report.html.j2``, its replay player included), with "continue from here" in the
  replays, and the standings, games and ETA updated while another process plays the run.

The JSON endpoints the pages call are :mod:`web.api`'s. Each tab's game has a table of its own
(:mod:`web.tables`): an agent's move runs in a sandboxed host process, forked by the table's zygote,
exactly as in a tournament (:mod:`tournament.sandbox`); the zygotes come from a fork server started
before the server built anything (:mod:`web.forkserver`), so no host is a copy of the server; and a
finished game can be stored in a run (:mod:`web.saving`). Which agent specs a page may ask for, and
which files it may name, is :mod:`web.specs`'; which paths under DIR it may read, :mod:`web.paths`';
what else a page sends is read by :mod:`web.inputs`. :mod:`web.app` puts it together, with what the
pages share (:mod:`web.server`). ``docs/web.md`` is the user's guide.

Nothing here counts, rates, judges or solves: the figures come from :mod:`reports` (stats, the
report's sections and figures), the scores from the exact-value layer (:mod:`agents.engine.solver`
and its databases), the rules from :mod:`tournament.rules`. This package sits above
:mod:`reports` and :mod:`tournament`; only :mod:`connectx` imports it.
"""
