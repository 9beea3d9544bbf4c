"""Connect Four in the browser: the runs in a folder and an analysis board, served by ``connectx serve DIR``.

What a person sees:

* the *index*: the runs in DIR, with their entrants, games and date;
* a *run's page*: its report, the same page ``connectx report`` writes, with its replays, which can
  be continued from any move on the board; while another process plays the run, its standings,
  games and ETA follow as the games are stored;
* the *board*: click a column to play, either side a person or an agent at a chosen time a move,
  the perfect-play score of every column, undo and redo, and a URL that restores the position
  (``/board?pos=4453&first=human&second=negamax``). A finished game can be stored in a run.

Each open tab's game is a *table* of its own. An agent's move at a table is played as in a tournament: in a
sandboxed host process (:mod:`tournament.sandbox`), timed and ruled on by Kaggle's rules, so the board and a
tournament judge alike; its zygote comes from a fork server started before the server built anything, so that
no host is a copy of the server. Entrants are untrusted: a page may ask only for agent specs and files the
server allows, and read only paths under DIR. Tables of tabs that went silent are closed.

The pages are plain HTML from templates, with small scripts and styles and no build step; nothing is
fetched from elsewhere. Nothing here counts, rates, judges or solves: the figures come from
:mod:`reports`, the scores from the exact-value layer (:mod:`agents.engine.solver` and its
databases), the rules from :mod:`tournament.rules`. This package sits above :mod:`reports` and
:mod:`tournament`; only :mod:`connectx` imports it. ``docs/web.md`` is the user's guide.
"""
