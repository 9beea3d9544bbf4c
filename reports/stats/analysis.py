"""Every move of a tournament judged against perfect play: the judged moves and what adds up from them.

Connect Four on the standard 6x7 board is solved (Allis 1988; Tromp 1995), so every move can be
judged, not only every game. :mod:`reports.stats.judging` does the solving; this module holds its
result, ``RUN/moves.csv``, each game's and each agent's moves, and the move that decided a game;
what adds up from them for a report (each agent's :class:`AgentAccuracy`) is :mod:`reports.stats.accuracy`'s.

**Values** are Pons' scores (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/) from
the mover's point of view: 0 a draw; a win is positive, higher the sooner it comes (``22 - s`` on
6x7 when the mover wins with its ``s``-th stone), a loss the negative of the winner's. A move's
``value_before`` is the score of the best column in the position it was played from, its
``value_after`` the score of the column played.

**Verdicts.** ``best``: the move keeps the value. ``inaccuracy``: it keeps the outcome (win, draw or
loss) but not the value: a slower win or a faster loss. ``mistake``: it changes the outcome (a win
into a draw or a loss, a draw into a loss).

**Columns and plies** are as users see them everywhere: columns count from 1 (Pons' notation), and a
move's ply is its number in the game, from 1, the opening included. The referee's opening moves are
judged too, under the agent name :data:`OPENING`, and count for no agent.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from tournament.record import GameRecord

__all__ = [
    "MOVES_COLUMNS",
    "MOVES_FILE",
    "OPENING",
    "AgentAccuracy",
    "Analysis",
    "AnalysisError",
    "JudgedMove",
    "Verdict",
    "mover",
    "outcome",
]

MOVES_FILE = "moves.csv"
"""The file of a run's judged moves, in the run's directory."""
MOVES_COLUMNS = (
    "game",
    "ply",
    "agent",
    "position",
    "column",
    "value_before",
    "value_after",
    "best_columns",
    "verdict",
)
"""The columns of ``moves.csv``, in order: the fields of :class:`JudgedMove`. ``position`` is a
string of 1-based column digits (empty for the first move) and ``best_columns`` the best columns,
1-based, separated by spaces (read both as text, e.g. ``pandas.read_csv(..., dtype=str)``)."""
OPENING = "(opening)"
"""The ``agent`` of a move the referee played as part of the game's opening."""


def mover(index: int, opening: int, first: str, second: str) -> str:
    """Who made move ``index`` (from 0, the opening's ``opening`` moves included) of a game of ``first``
    against ``second``: :data:`OPENING` for an opening move, else the entrant whose turn it was."""
    return OPENING if index < opening else (first, second)[index % 2]


class AnalysisError(ValueError):
    """A ``moves.csv`` that cannot be read (the message names the file and the line)."""


class Verdict(StrEnum):
    """How a move compares with perfect play (see the module docstring)."""

    BEST = "best"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"

    @classmethod
    def of(cls, value_before: int, value_after: int) -> Verdict:
        """The verdict on a move from the best value and the played one (Pons scores, mover's side;
        ``value_after <= value_before``)."""
        if value_after == value_before:
            return cls.BEST
        return cls.INACCURACY if outcome(value_after) == outcome(value_before) else cls.MISTAKE


def outcome(score: int) -> int:
    """The outcome a Pons score means for its side: 1 a win, 0 a draw, -1 a loss."""
    return (score > 0) - (score < 0)


@dataclass(frozen=True, slots=True)
class JudgedMove:
    """One move judged against perfect play: a row of ``moves.csv``.

    Attributes:
        game: the game's id in its tournament.
        ply: the move's number in the game, from 1, the opening included.
        agent: the mover's entrant spec, or :data:`OPENING`.
        position: the moves before it, 1-based column digits (Pons' notation; ``connectx solve``
            reads it).
        column: the column played, 1-based.
        value_before: the best column's score, mover's side (Pons' scores).
        value_after: the played column's score, mover's side.
        best_columns: every column that scores ``value_before``, 1-based, ascending.
        verdict: :meth:`Verdict.of` the two values.
    """

    game: int
    ply: int
    agent: str
    position: str
    column: int
    value_before: int
    value_after: int
    best_columns: tuple[int, ...]
    verdict: Verdict

    @property
    def loss(self) -> int:
        """How much value the move gave away (0 for a best move), in Pons score points."""
        return self.value_before - self.value_after

    @property
    def mark(self) -> int:
        """The mover's Kaggle mark: 1 moves at odd plies, 2 at even ones."""
        return 2 - self.ply % 2

    @property
    def anchor(self) -> str:
        """The HTML id of the replay at this move: ``game-<game>-ply-<ply>``."""
        return f"game-{self.game}-ply-{self.ply}"

    def row(self) -> dict[str, str | int]:
        """The move as a ``moves.csv`` row (:data:`MOVES_COLUMNS`)."""
        best = " ".join(str(column) for column in self.best_columns)
        values: tuple[int | str, ...] = (self.game, self.ply, self.agent, self.position, self.column)
        values += (self.value_before, self.value_after, best, str(self.verdict))
        return dict(zip(MOVES_COLUMNS, values, strict=True))

    @classmethod
    def from_row(cls, row: dict[str, str]) -> JudgedMove:
        """The move of a ``moves.csv`` row; raises ValueError (or KeyError) on a malformed one."""
        return cls(
            game=int(row["game"]),
            ply=int(row["ply"]),
            agent=row["agent"],
            position=row["position"],
            column=int(row["column"]),
            value_before=int(row["value_before"]),
            value_after=int(row["value_after"]),
            best_columns=tuple(int(column) for column in row["best_columns"].split()),
            verdict=Verdict(row["verdict"]),
        )


@dataclass(frozen=True, slots=True)
class AgentAccuracy:
    """One agent's moves against perfect play, its opening moves excluded as the referee made them
    (:func:`reports.stats.accuracy.accuracy` counts it).

    ``games`` counts the games it moved in; ``first_mistake_ply`` is the median ply of its first
    mistake over the games in which it made one (None: it made none); ``lost`` counts its lost games
    that were played out (forfeits excluded: a forfeit decides its game), ``lost_by_own_mistake``
    those among them that it turned from a draw or a win into a loss itself (the others were lost
    when it first moved: a lost opening, or the second player's move against perfect play).
    """

    agent: str
    moves: int
    best: int
    inaccuracies: int
    mistakes: int
    games: int
    first_mistake_ply: float | None
    lost: int
    lost_by_own_mistake: int

    @property
    def best_share(self) -> float:
        """Share of its moves that kept the value, 0..1."""
        return self.best / self.moves if self.moves else 0.0

    @property
    def decided_by_own_mistake(self) -> float | None:
        """Share of its lost games decided by its own mistake, 0..1; None when it lost none."""
        return self.lost_by_own_mistake / self.lost if self.lost else None


class Analysis:
    """The judged moves of one tournament (``RUN/moves.csv``), by game and by agent.

    ``Analysis(moves)`` from :class:`JudgedMove` values (any order); :meth:`read` loads a run's file.
    """

    def __init__(self, moves: Iterable[JudgedMove]) -> None:
        self.moves: list[JudgedMove] = sorted(moves, key=lambda move: (move.game, move.ply))

    @classmethod
    def read(cls, run: Path | str) -> Analysis | None:
        """The analysis in ``run``'s :data:`MOVES_FILE`; None when the run has not been analysed.

        Raises :class:`AnalysisError` for a file that is not a ``moves.csv`` of this layout.
        """
        path = Path(run) / MOVES_FILE
        if not path.is_file():
            return None
        with path.open(newline="", encoding="utf-8") as file:
            reader = csv.DictReader(file)
            if tuple(reader.fieldnames or ()) != MOVES_COLUMNS:
                raise AnalysisError(f"{path}: expected the columns {', '.join(MOVES_COLUMNS)}")
            moves = []
            for row in reader:
                try:
                    moves.append(JudgedMove.from_row(row))
                except (ValueError, KeyError, AttributeError) as error:
                    raise AnalysisError(f"{path}, line {reader.line_num}: {error}") from None
        return cls(moves)

    def write(self, path: Path) -> None:
        """Write the moves to ``path`` as ``moves.csv`` (:data:`MOVES_COLUMNS`), in game and ply order."""
        with Path(path).open("w", newline="", encoding="utf-8") as file:
            writer = csv.DictWriter(file, MOVES_COLUMNS)
            writer.writeheader()
            writer.writerows(move.row() for move in self.moves)

    def of(self, records: Iterable[GameRecord]) -> Analysis:
        """The judged moves of the games of ``records`` that this analysis judged as they were played:
        every move, in order, by the agent who made it. A game stored anew since (a tournament that
        ``--overwrite`` replaced, whose ``moves.csv`` stayed) keeps no judgement of another game's moves."""
        kept: list[JudgedMove] = []
        for record in records:
            judged = self.by_game.get(record.game_id, [])
            opening = len(record.opening)
            if [move.column - 1 for move in judged] == list(record.moves) and all(
                move.agent == mover(k, opening, record.first, record.second) for k, move in enumerate(judged)
            ):
                kept.extend(judged)
        return Analysis(kept)

    @cached_property
    def by_game(self) -> dict[int, list[JudgedMove]]:
        """Each analysed game's moves, in ply order, by game id."""
        games: dict[int, list[JudgedMove]] = defaultdict(list)
        for move in self.moves:
            games[move.game].append(move)
        return dict(games)

    def decisive(self, record: GameRecord) -> JudgedMove | None:
        """The move that decided the game of ``record``, or None.

        In a game with a loser: the loser's last move that turned its position from a draw or a win
        into a loss (None when it was lost from its first move on). In a draw: the last move that
        gave a win away. None for a game that was not analysed.
        """
        moves = self.by_game.get(record.game_id, [])
        if record.result == 0.5:
            thrown = [m for m in moves if m.value_before > 0 and m.value_after == 0]
        else:
            loser = 2 if record.result == 1.0 else 1
            thrown = [m for m in moves if m.mark == loser and m.value_before >= 0 > m.value_after]
        return thrown[-1] if thrown else None

    @cached_property
    def by_agent(self) -> dict[str, list[JudgedMove]]:
        """Each agent's judged moves (its opening moves excluded), in game and ply order, agents sorted."""
        agents: dict[str, list[JudgedMove]] = defaultdict(list)
        for move in self.moves:
            if move.agent != OPENING:
                agents[move.agent].append(move)
        return dict(sorted(agents.items()))

    def agents(self) -> list[str]:
        """The agents whose moves were judged, sorted."""
        return list(self.by_agent)

    def worst(self, agent: str, n: int = 5) -> list[JudgedMove]:
        """The ``n`` worst moves of ``agent``: mistakes first, then by value given away (ties: the
        earliest game and ply first); best moves never."""
        own = [m for m in self.by_agent.get(agent, []) if m.verdict is not Verdict.BEST]
        rank = {Verdict.MISTAKE: 0, Verdict.INACCURACY: 1}
        return sorted(own, key=lambda m: (rank[m.verdict], -m.loss, m.game, m.ply))[:n]

    def perfect(self, agent: str) -> bool:
        """Whether ``agent`` played perfectly in the weak sense: it moved, and never made a mistake."""
        own = self.by_agent.get(agent, [])
        return bool(own) and all(move.verdict is not Verdict.MISTAKE for move in own)
