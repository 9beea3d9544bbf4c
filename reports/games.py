"""The games of a tournament report: each pairing's list of games (:func:`pairings`) and the compact
replay data the page's player reads (:func:`replay_data`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reports.stats.frames import notation
from reports.stats.results import Results
from reports.stats.sections import sides
from tournament.record import GameRecord, Termination

__all__ = ["GameRow", "Pairing", "pairings", "replay_data"]


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game in a pairing's list. ``result`` is ``1-0``, ``½-½`` or ``0-1`` from ``first``'s side;
    ``ending`` says how it ended in words (``4 in a row``, ``draw``, ``middle invalid``)."""

    game_id: int
    pair_id: int
    first: str
    second: str
    opening: str
    result: str
    ending: str
    plies: int


@dataclass(frozen=True, slots=True)
class Pairing:
    """The games of two agents, by game id."""

    a: str
    b: str
    games: list[GameRow]


def replay_data(records: Sequence[GameRecord]) -> dict[str, Any]:
    """The games as the page's replay player reads them: JSON-ready, a few bytes a move.

    ``{"agents": [names], "games": {"<game id>": game}}`` where a game is ``{"p": [first, second]``
    (indices into ``agents``), ``"b": [rows, columns, inarow]``, ``"m"``: the moves (0-based columns,
    the opening included), ``"o"``: how many of them are the opening, ``"t"``: each agent call's time
    in tenths of a millisecond (from the first call after the opening), ``"r"``: ``first``'s score
    times 2 (2, 1, 0), ``"e"``: the termination, ``"x"``: the offending mark (0 if none), and
    ``"d"``: the forfeit's message, only when there is one``}``.
    """
    names = sorted({name for record in records for name in (record.first, record.second)})
    index = {name: k for k, name in enumerate(names)}
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
        games[str(record.game_id)] = game
    return {"agents": names, "games": games}


def _ending(record: GameRecord) -> str:
    if record.termination == Termination.WIN:
        return f"{record.task.inarow} in a row"
    if record.termination == Termination.DRAW:
        return "draw (board full)"
    return f"{sides(record, record.offender)[0]} {record.termination}"


def pairings(results: Results) -> list[Pairing]:
    """The games of every pairing, self-play included, pairings in standings order."""
    rank = {name: k for k, name in enumerate(results.order)}
    groups: dict[tuple[str, str], list[GameRow]] = defaultdict(list)
    for record in results.records:
        a, b = sorted((record.first, record.second), key=lambda name: rank.get(name, len(rank)))
        result = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[record.result]
        groups[a, b].append(
            GameRow(
                record.game_id,
                record.pair_id,
                record.first,
                record.second,
                notation(record.opening, record.task.columns) or "-",
                result,
                _ending(record),
                len(record.moves),
            )  # fmt: skip
        )
    keys = sorted(groups, key=lambda key: (rank.get(key[0], len(rank)), rank.get(key[1], len(rank))))
    return [Pairing(a, b, groups[a, b]) for a, b in keys]
