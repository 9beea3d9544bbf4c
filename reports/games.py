"""The games of a tournament report: each pairing's list of games (:func:`pairings`) and the compact
replay data the page's player reads (:func:`replay_data`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reports.review import MoveLink
from reports.stats.analysis import Analysis, JudgedMove
from tournament.record import GameRecord, Termination

__all__ = ["GameRow", "Pairing", "pairings", "replay_data"]


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game in a pairing's list. ``opening`` and ``moves`` (the opening included) are in Pons'
    notation (:meth:`agents.engine.board.Board.notation`; ``-`` for no opening); ``result`` is
    ``1-0``, ``½-½`` or ``0-1`` from ``first``'s side; ``ending`` says how it ended in words (``4 in a
    row``, ``draw``, ``middle invalid``); ``deciding`` the move that decided it, when the move analysis
    names one."""

    game_id: int
    pair_id: int
    first: str
    second: str
    opening: str
    result: str
    ending: str
    plies: int
    moves: str
    deciding: MoveLink | None = None


@dataclass(frozen=True, slots=True)
class Pairing:
    """The games of two agents, by game id."""

    a: str
    b: str
    games: list[GameRow]


def replay_data(
    records: Sequence[GameRecord],
    analysis: Analysis | None = None,
    deciding: Mapping[int, JudgedMove] | None = None,
) -> dict[str, Any]:
    """The games as the page's replay player reads them: JSON-ready, a few bytes a move.

    ``{"agents": [names], "games": {"<game id>": game}}`` where a game is ``{"p": [first, second]``
    (indices into ``agents``), ``"b": [rows, columns, inarow]``, ``"m"``: the moves (0-based columns,
    the opening included), ``"o"``: how many of them are the opening, ``"t"``: each agent call's time
    in tenths of a millisecond (from the first call after the opening), ``"r"``: ``first``'s score
    times 2 (2, 1, 0), ``"e"``: the termination, ``"x"``: the offending mark (0 if none), and
    ``"d"``: the forfeit's message, only when there is one``}``.

    With the run's ``analysis`` (and ``deciding``, the move that decided each game that has one, by
    game id: :func:`reports.stats.accuracy.deciding`), a game whose every move was judged as it was
    played (:meth:`reports.stats.analysis.Analysis.of`) also has ``"j"``: ``{"v0"``: the value of
    the starting position, ``"v"``: the value after each move (Pons scores, both from the first
    player's side), ``"q"``: each move's verdict as one letter (``b`` best, ``i`` inaccuracy, ``m``
    mistake), ``"c"``: each move's best columns as 1-based digits (``"34"``), and ``"k"``: the ply
    of the move that decided the game (0 if none)``}``.
    """
    names = sorted({name for record in records for name in (record.first, record.second)})
    index = {name: k for k, name in enumerate(names)}
    played = analysis.of(records) if analysis is not None else None  # its games judged as played
    games: dict[str, Any] = {}
    for record in records:
        game: dict[str, Any] = {
            "p": [index[record.first], index[record.second]],
            "b": [record.task.rows, record.task.columns, record.task.inarow],
            "m": list(record.moves),
            "o": len(record.opening),
            "t": [round(seconds * 10_000) for seconds in record.move_times],
            "r": round(2 * record.result),
            "e": str(record.termination),
            "x": record.offender or 0,
        }
        if record.detail:
            game["d"] = record.detail
        judged = played.by_game.get(record.game_id) if played is not None else None
        if judged:
            game["j"] = _judgements(judged, (deciding or {}).get(record.game_id))
        games[str(record.game_id)] = game
    return {"agents": names, "games": games}


def _judgements(moves: Sequence[JudgedMove], deciding: JudgedMove | None) -> dict[str, Any]:
    """The ``"j"`` of a game's replay data (see :func:`replay_data`); ``moves`` in ply order."""

    def first(value: int, mark: int) -> int:
        return value if mark == 1 else -value

    return {
        "v0": first(moves[0].value_before, moves[0].mark),
        "v": [first(move.value_after, move.mark) for move in moves],
        "q": "".join(str(move.verdict)[0] for move in moves),
        "c": ["".join(map(str, move.best_columns)) for move in moves],
        "k": 0 if deciding is None else deciding.ply,
    }


def _ending(record: GameRecord) -> str:
    if record.termination == Termination.WIN:
        return f"{record.task.inarow} in a row"
    if record.termination == Termination.DRAW:
        return "draw (board full)"
    assert record.offender is not None  # neither won nor drawn: forfeited
    return f"{(record.first, record.second)[record.offender - 1]} {record.termination}"


def pairings(
    records: Sequence[GameRecord], order: Sequence[str], deciding: Mapping[int, MoveLink] | None = None
) -> list[Pairing]:
    """The games ``records`` (by game id) of every pairing, self-play included, pairings in ``order``
    (the standings'; unrated entrants last); ``deciding``: the move that decided a game, by game id
    (:attr:`reports.review.Review.deciding`)."""
    deciding = deciding or {}
    rank = {name: k for k, name in enumerate(order)}
    groups: dict[tuple[str, str], list[GameRow]] = defaultdict(list)
    for record in records:
        a, b = sorted((record.first, record.second), key=lambda name: rank.get(name, len(rank)))
        result = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[record.result]
        groups[a, b].append(
            GameRow(
                record.game_id,
                record.pair_id,
                record.first,
                record.second,
                record.notation(len(record.opening)) or "-",
                result,
                _ending(record),
                len(record.moves),
                record.notation(),
                deciding.get(record.game_id),
            )  # fmt: skip
        )
    keys = sorted(groups, key=lambda key: (rank.get(key[0], len(rank)), rank.get(key[1], len(rank))))
    return [Pairing(a, b, groups[a, b]) for a, b in keys]
