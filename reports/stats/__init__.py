"""What a tournament's records add up to: the computing half of :mod:`reports`.

:mod:`~reports.stats.headtohead` holds the head-to-head statistics of cutechess-cli / fastchess (Elo,
error, LOS, pentanomial); :mod:`~reports.stats.tally` counts records into those values, and
:class:`reports.stats.results.Results` holds them, counted once per tournament, with its ratings
(:mod:`~reports.stats.ratings`: joint Bradley-Terry ratings, fitted by
:mod:`~reports.stats.likelihood`) and Elo progression (:mod:`~reports.stats.progress`).
:mod:`~reports.stats.sprt` is the SPRT on game pairs; :mod:`~reports.stats.standings` the standings
and crosstable, :mod:`~reports.stats.sections` the other sections of a report (colours, terminations,
time use, lengths), :mod:`~reports.stats.tables` the standings, crosstable and pairs as DataFrames;
:mod:`~reports.stats.frames` loads a tournament as pandas DataFrames; :mod:`~reports.stats.analysis`
holds every move judged against perfect play.

Nothing here writes a file or draws: that is :mod:`reports.render`.
"""
