"""What adds up from a run's judged moves (:class:`reports.stats.analysis.Analysis`), each figure
counted once for a report: the move that decided each game (:func:`deciding`), each agent's accuracy
(:func:`accuracy`), the entrant that stands for perfect play (:func:`perfect_reference`), all of them
together with each agent's worst moves in :func:`figures`.

Plies count from 1, the opening included; an agent's opening moves (the referee's) count for no agent.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reports.stats.analysis import AgentAccuracy, Analysis, JudgedMove, Verdict
from tournament.record import FORFEITS, GameRecord, Termination

__all__ = ["WORST", "MoveFigures", "accuracy", "deciding", "figures", "perfect_reference"]

WORST = 5
"""How many of its worst moves are kept for each agent."""


@dataclass(frozen=True, slots=True)
class MoveFigures:
    """The figures of a run's move analysis (:func:`figures`).

    Attributes:
        accuracy: every agent's accuracy, best first (:func:`accuracy`).
        deciding: the move that decided each game that has one, by game id (:func:`deciding`).
        worst: each agent's worst moves, at most :data:`WORST`
            (:meth:`~reports.stats.analysis.Analysis.worst`).
        reference: the entrant that stands for perfect play (:func:`perfect_reference`), or None.
        games: how many of the run's games were judged.
    """

    accuracy: list[AgentAccuracy]
    deciding: dict[int, JudgedMove]
    worst: dict[str, list[JudgedMove]]
    reference: str | None
    games: int


def deciding(analysis: Analysis, records: Sequence[GameRecord]) -> dict[int, JudgedMove]:
    """The move that decided each of the games ``records`` that has one
    (:meth:`~reports.stats.analysis.Analysis.decisive`), by game id."""
    found = {record.game_id: analysis.decisive(record) for record in records}
    return {game: move for game, move in found.items() if move is not None}


def accuracy(
    analysis: Analysis, records: Sequence[GameRecord], decided: Mapping[int, JudgedMove] | None = None
) -> list[AgentAccuracy]:
    """Every agent's :class:`~reports.stats.analysis.AgentAccuracy`, best first (fewest mistakes per
    move, then most best moves per move); ``records`` are the run's games (for who lost which) and
    ``decided`` the move that decided each (:func:`deciding`; found here when not given)."""
    decided = deciding(analysis, records) if decided is None else decided
    return _ranked(analysis, {record.game_id: record for record in records}, decided)


def _ranked(
    analysis: Analysis, records_by_id: Mapping[int, GameRecord], decided: Mapping[int, JudgedMove]
) -> list[AgentAccuracy]:
    """:func:`accuracy`, from the games by game id."""
    tallies = [_accuracy(agent, own, records_by_id, decided) for agent, own in analysis.by_agent.items()]
    return sorted(tallies, key=lambda a: (a.mistakes / a.moves, -a.best_share, a.agent))


def _accuracy(
    agent: str,
    own: Sequence[JudgedMove],
    records_by_id: Mapping[int, GameRecord],
    decided: Mapping[int, JudgedMove],
) -> AgentAccuracy:
    """The accuracy of ``agent`` from its judged moves ``own``."""
    firsts: dict[int, int] = {}
    for move in own:
        if move.verdict is Verdict.MISTAKE:
            firsts.setdefault(move.game, move.ply)
    games = {move.game for move in own}
    lost = by_mistake = 0
    for game in games:
        record = records_by_id.get(game)
        if record is None or record.termination is not Termination.WIN:
            continue
        if record.score_of(agent) == 0.0 and record.first != record.second:
            lost += 1
            by_mistake += game in decided and decided[game].agent == agent
    return AgentAccuracy(
        agent=agent,
        moves=len(own),
        best=sum(move.verdict is Verdict.BEST for move in own),
        inaccuracies=sum(move.verdict is Verdict.INACCURACY for move in own),
        mistakes=sum(move.verdict is Verdict.MISTAKE for move in own),
        games=len(games),
        first_mistake_ply=statistics.median(firsts.values()) if firsts else None,
        lost=lost,
        lost_by_own_mistake=by_mistake,
    )


def perfect_reference(
    accuracy: Sequence[AgentAccuracy],
    played: Mapping[str, object],
    forfeited: Mapping[tuple[str, Termination], int],
) -> str | None:
    """The entrant that stands for perfect play, to measure the others' Elo from: one that made no
    mistake in the analysis (its ``accuracy``, :func:`accuracy`), played the others (is in ``played``,
    e.g. :attr:`reports.stats.results.Results.totals`) and forfeited no game (``forfeited``, keyed
    ``(name, Termination)``: a forfeit is no perfect play); of several, the one with the most judged
    moves (the most evidence), then by name. None when there is none."""
    moves = {line.agent: line.moves for line in accuracy}
    perfect = [
        line.agent
        for line in accuracy
        if line.moves
        and not line.mistakes
        and line.agent in played
        and not any(forfeited[line.agent, kind] for kind in FORFEITS)
    ]
    return min(perfect, key=lambda agent: (-moves[agent], agent), default=None)


def figures(
    analysis: Analysis,
    records: Sequence[GameRecord],
    played: Mapping[str, object],
    forfeited: Mapping[tuple[str, Termination], int],
) -> MoveFigures:
    """The :class:`MoveFigures` of ``analysis``, the judged moves of the games ``records``, in one pass
    over the games; ``played`` and ``forfeited`` as :func:`perfect_reference` reads them."""
    judged, by_id, decided, games = analysis.by_game, {}, {}, 0
    for record in records:
        by_id[record.game_id] = record
        if record.game_id in judged:
            games += 1
            if (move := analysis.decisive(record)) is not None:
                decided[record.game_id] = move
    lines = _ranked(analysis, by_id, decided)
    return MoveFigures(
        accuracy=lines,
        deciding=decided,
        worst={line.agent: analysis.worst(line.agent, WORST) for line in lines},
        reference=perfect_reference(lines, played, forfeited),
        games=games,
    )
