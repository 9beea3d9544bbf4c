"""What :func:`connectx.tournament`, :func:`connectx.sprt` and :func:`connectx.analyze` return: a
stored run read as pandas DataFrames and drawn as HTML in a notebook.

A :class:`Result` is a view of the run folder :attr:`Result.path` (its ``tournament.db`` and, once the
moves are judged, its ``moves.csv``), read once on first use and assembled into the one
:class:`reports.report.Report` that ``connectx report`` writes (:func:`reports.report.assemble`).
A run kept in a temporary folder (``out=None``) lives as long as its :class:`Result`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from reports.report import Report
    from reports.stats.analysis import Analysis
    from tournament.record import GameRecord
    from tournament.schedule import Settings

__all__ = ["GameView", "Result"]


class Result:
    """A stored tournament or SPRT match (see the module docstring).

    Tables (pandas DataFrames, columns as in the report's CSV files, :mod:`reports.stats.tables`):

    * :attr:`standings`: one row an agent, best first: ``agent, games, wins, draws, losses, score,
      invalid, timeouts, errors, elo, elo_low, elo_high, score_pct`` (Elo with its 95 % interval);
    * :attr:`crosstable`: agents x agents, the row agent's points per game (0..1) against the column
      agent, NaN where they never met;
    * :attr:`pairs`: one row a pairing, head to head: W/D/L, Elo difference and error, LOS, the
      pentanomial counts of its game pairs;
    * :attr:`games`: one row a game, by ``game_id``: ``pair_id, first, second, ..., opening, moves,
      plies, result`` (first player's score 1, 0.5, 0), ``winner, termination`` (``win draw invalid
      timeout error``), ``offender, detail, move_times`` (seconds), ``duration, started_at``;
    * :attr:`moves`: one row a judged move (after :func:`connectx.analyze`), else ValueError.

    Agents are named as the report names them: a spec as given, a callable from a cell by its name
    (``my_agent``, not the path of its pickle ``.../agents/my_agent.pkl``).

    In a notebook it draws itself (standings, Elo plot, crosstable) and :meth:`game` replays a game;
    on a terminal its ``repr`` is the standings table.

    >>> result = connectx.tournament(["leftmost", "random"], games=1)  # doctest: +SKIP
    >>> result.standings[["agent", "wins", "losses"]]  # doctest: +SKIP
    >>> connectx.Result("runs/latest").games.groupby("termination").size()  # doctest: +SKIP
    """

    def __init__(self, path: Path | str, *, keep: TemporaryDirectory[str] | None = None) -> None:
        """The run stored in the folder ``path`` (any run: ``connectx run``'s too), read now; ``keep``
        is the temporary folder holding it, removed when the last Result of it goes. Raises
        :class:`tournament.store.StoreError` when no run is stored there."""
        from tournament.store import Store

        self.path = Path(path)
        """The run folder, holding ``tournament.db`` (and ``moves.csv`` once judged)."""
        self._keep = keep
        with Store.open(self.path, read_only=True) as store:
            self._stored: tuple[list[GameRecord], Settings] = (store.records(), store.settings())

    @property
    def settings(self) -> Settings:
        """The run's :class:`~tournament.schedule.Settings` (entrants, games, board, seed, openings)."""
        return self._stored[1]

    @functools.cached_property
    def _analysis(self) -> Analysis | None:
        from reports.stats.analysis import Analysis

        analysis = Analysis.read(self.path)
        return analysis.of(self._stored[0]) if analysis is not None else None  # these games' only

    @functools.cached_property
    def _report(self) -> Report | None:
        from reports.report import assemble

        records, settings = self._stored
        name = "temporary run" if self._keep is not None else self.path.resolve().name  # not tmp's name
        return assemble(records, settings, name=name, analysis=self._analysis)

    @property
    def report(self) -> Report:
        """The run's :class:`reports.report.Report`, as ``connectx report`` assembles it. Raises
        ValueError while no two different agents have met."""
        if self._report is None:
            raise ValueError(f"no game between two different agents stored in {self.path} yet")
        return self._report

    @property
    def standings(self) -> pd.DataFrame:
        """One row an agent, best first (class docstring); ValueError as :attr:`report`."""
        return _named(self.report.tables.standings, "agent")

    @property
    def crosstable(self) -> pd.DataFrame:
        """Points per game (0..1) of the row agent against the column agent, best first; NaN where
        they never met; ValueError as :attr:`report`."""
        from reports.entrants import shown

        return self.report.tables.crosstable.rename(index=shown, columns=shown)

    @property
    def pairs(self) -> pd.DataFrame:
        """One row a pairing that played, ``agent_a`` ranked above ``agent_b``: ``games, wins, draws,
        losses, score, score_pct`` (``agent_a``'s), ``elo_diff, elo_error, los`` (trinomial, 95 %),
        ``pairs, ll, ld, dd_wl, wd, ww`` (the game pairs' pentanomial counts), ``penta_elo_error,
        penta_los``; ValueError as :attr:`report`."""
        return _named(self.report.tables.pairs, "agent_a", "agent_b")

    @property
    def games(self) -> pd.DataFrame:
        """One row a stored game, indexed by ``game_id`` (class docstring); empty before any game."""
        from reports.stats.tables import games

        return _named(games(self._stored[0]).set_index("game_id"), "first", "second", "winner")

    @property
    def moves(self) -> pd.DataFrame:
        """One row a judged move: ``game, ply, agent, position`` (the columns played before, 1-based
        digits), ``column`` (1-based), ``value_before, value_after`` (Pons scores, the mover's side),
        ``best_columns, verdict`` (``best inaccuracy mistake``). Raises ValueError when the moves
        have not been judged: ``connectx.analyze(result)`` judges them."""
        import pandas as pd

        from reports.stats.analysis import MOVES_COLUMNS

        if self._analysis is None:
            raise ValueError(
                f"no move analysis of {self.path} yet: connectx.analyze(result) judges the moves"
            )
        frame = pd.DataFrame([move.row() for move in self._analysis.moves], columns=list(MOVES_COLUMNS))
        return _named(frame, "agent")

    @property
    def decision(self) -> str | None:
        """An SPRT's decision, ``"H0"`` or ``"H1"``; None while undecided or for a tournament."""
        if self.settings.sprt is None:
            return None
        from reports.stats.stopping import SprtStop

        stop = SprtStop(self.settings)
        stop.add(self._stored[0])
        return stop.decision

    def game(self, game_id: int) -> GameView:
        """GameView ``game_id`` (the ``games`` frame's index): its record, drawn in a notebook as the
        report's replay with each move's verdict. Raises KeyError when no such game is stored."""
        for record in self._stored[0]:
            if record.game_id == game_id:
                return GameView(self, record)
        raise KeyError(f"no game {game_id} stored in {self.path}")

    def _repr_html_(self) -> str:
        from reports.render.inline import result_html

        if self._report is None:
            return f"<p>{_empty(self.path)}</p>"
        return result_html(self._report)

    def __repr__(self) -> str:
        from reports.render.terminal import format_standings

        if self._report is None:
            return _empty(self.path)
        review = self._report.review
        return format_standings(self._report.standings, review.versus if review is not None else None)


def _named(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """``frame`` with its ``columns`` of agent specs named as the report names them: a callable from a
    cell by its name (:func:`reports.entrants.shown`: ``.../agents/my_agent.pkl`` -> ``my_agent``)."""
    from reports.entrants import shown

    return frame.assign(**{column: frame[column].map(shown, na_action="ignore") for column in columns})


def _empty(path: Path) -> str:
    return f"no game between two different agents stored in {path} yet"


class GameView:
    """One stored game of a :class:`Result`: :attr:`record` (:class:`tournament.record.GameRecord`),
    drawn in a notebook as a replay (:func:`reports.render.inline.replay_html`)."""

    def __init__(self, result: Result, record: GameRecord) -> None:
        self.result, self.record = result, record

    def _repr_html_(self) -> str:
        from reports.render.inline import replay_html

        return replay_html(self.result.report, self.record.game_id)

    def __repr__(self) -> str:
        record = self.record
        return (
            f"game {record.game_id}: {record.first} - {record.second} {record.result:g}, "
            f"{record.termination}, moves {record.board().notation()}"
        )
