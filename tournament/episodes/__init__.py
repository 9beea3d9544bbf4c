"""Games played on Kaggle, read from their episode JSON: what ``connectx import`` stores.

An episode is the JSON that kaggle-environments' ``Environment.toJSON()`` returns
(``kaggle_environments/core.py``), which is also what the ConnectX leaderboard's replay download
holds: ``name`` (``"connectx"``), ``configuration`` (``rows``, ``columns``, ``inarow``,
``actTimeout``; episodes of older releases have only ``timeout``), ``steps``, and the final
``rewards`` and ``statuses``; a leaderboard download also has ``info`` with ``EpisodeId`` and
``TeamNames`` (the teams of agent 0 and agent 1). ``steps[0]`` is the empty board, agent 0 (mark 1)
``ACTIVE`` and agent 1 ``INACTIVE``; each later step is the agents' states after one call of the agent
that was ``ACTIVE`` the step before: its ``action`` (the other agent's reads 0, Kaggle's default,
and means nothing), ``status``, ``reward`` and ``observation``, whose ``board`` (flat, row 0 on top;
agent 0's observation only: the board is shared) shows the stone it dropped
(``kaggle_environments/envs/connectx/connectx.py``). A forfeit ends the episode at once: the agent's
status is ``ERROR`` (it raised), ``TIMEOUT`` or ``INVALID`` (an action that is not a legal column; the
interpreter's ``Invalid column: N`` is reported as ``INVALID``), its reward None, and the board is
left as it was.

:func:`read_episode` checks all of it -- each part of the JSON (:mod:`~tournament.episodes.fields`),
then the game (:mod:`~tournament.episodes.replay`): every move is replayed on
:class:`~agents.engine.board.Board` and must give the board the step shows, the final statuses and
rewards must be those the board, or the forfeit, calls for -- and returns an :class:`Episode`, or
raises :class:`EpisodeError` saying in one line what is wrong. :meth:`Episode.record` makes it a
:class:`~tournament.record.GameRecord` (:meth:`~tournament.record.GameRecord.ended`, as every game
is recorded), with the termination and offender of
:class:`~tournament.record.Termination` (a forfeit is a loss of the offender and a win of its
opponent, though Kaggle gives the opponent 0).

What an episode does not hold, its record leaves empty: ``move_times`` is ``()`` (the seconds of
each call are in Kaggle's agent logs, not in the episode), ``duration`` 0 and ``started_at`` "" (not
recorded), and a forfeit's ``detail`` says what the statuses and the board show, since the
exception is not kept either (an INVALID column is, and is described as the runner describes it:
:func:`tournament.rules.invalid_action`).

How imported games are stored (:func:`import_settings`, ``connectx import``):

* **One pair per game.** Kaggle pairs agents by rating, each episode from the empty board, not as
  colour-swapped game pairs from one opening; two episodes of the same agents are two independent
  games. So each game is a pair of its own (``pair_id`` equal to ``game_id``), as the games of
  ``connectx play`` are (:data:`~tournament.schedule.HUMAN`): no pentanomial is counted from them,
  which would otherwise pretend that two unrelated games were one opening played both ways.
* **The episode's key in the task's seed.** Kaggle's games have no seed of ours, and the record has no
  field for where a game came from, so ``GameTask.seed`` holds the episode's :attr:`Episode.key`:
  ``info.EpisodeId`` itself when the episode has one (so the ``seed`` column of ``games.csv`` names
  the episode on Kaggle), else
  :data:`LOCAL_KEYS` plus a hash of the episode's ``id`` (the environment's uuid), its moves and its
  statuses. An episode whose key is already stored is the same game, imported again.
* **The run's settings** say only what all its games share: the entrants (names in the order first
  met), the board and ``actTimeout``, ``games`` 1 (nothing is scheduled: games are added as they
  are imported), no openings, and :data:`IMPORTED` as ``opening_source``, which marks a store as an
  import.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from agents.engine.board import Board
from tournament.episodes.fields import LOCAL_KEYS, EpisodeError, configuration, info, steps
from tournament.episodes.replay import ending, replay
from tournament.record import Forfeit, GameRecord, Status, Termination
from tournament.schedule import GameTask, Settings, single_game_settings

__all__ = [
    "IMPORTED",
    "LOCAL_KEYS",
    "Episode",
    "EpisodeError",
    "describe_rules",
    "import_settings",
    "parse_episode",
    "read_episode",
]

IMPORTED = "kaggle episodes"
"""``Settings.opening_source`` of a store of imported episodes (its games start from the empty board)."""


@dataclass(frozen=True, slots=True)
class Episode:
    """One ConnectX game read from Kaggle's episode JSON.

    Attributes:
        key: the episode's identity, stored as its task's seed (module docstring): ``episode_id``,
            else :data:`LOCAL_KEYS` plus a hash; the same game imported twice has the same key.
        episode_id: Kaggle's ``info.EpisodeId``, or None (an episode played with kaggle-environments
            at home).
        names: ``info.TeamNames``, the teams of mark 1 and mark 2, or None when the episode has none.
        rows, columns, inarow: the board (``configuration``).
        act_timeout: seconds per move before the overage bank is drawn on (``actTimeout``).
        moves: the columns played, 0-based, in order, each checked against the step's board.
        result: score of mark 1: 1.0 win, 0.5 draw, 0.0 loss (forfeits included).
        termination: how it ended (:class:`~tournament.record.Termination`).
        offender: the mark that forfeited, else None.
        statuses: Kaggle's final statuses (mark 1, mark 2).
        rewards: Kaggle's final rewards (mark 1, mark 2); None for a forfeiting agent.
        detail: on a forfeit, what the episode shows of it (one line), else "".
    """

    key: int
    episode_id: int | None
    names: tuple[str, str] | None
    rows: int
    columns: int
    inarow: int
    act_timeout: float
    moves: tuple[int, ...]
    result: float
    termination: Termination
    offender: int | None
    statuses: tuple[Status, Status]
    rewards: tuple[float | None, float | None]
    detail: str = ""

    @property
    def rules(self) -> tuple[int, int, int, float]:
        """``(rows, columns, inarow, act_timeout)``: what every game of one run shares."""
        return (self.rows, self.columns, self.inarow, self.act_timeout)

    def record(self, game_id: int, first: str, second: str) -> GameRecord:
        """This game as game ``game_id`` of a store, ``first`` (mark 1) against ``second``; a pair of
        its own (``pair_id`` = ``game_id``) whose seed is :attr:`key` (module docstring)."""
        task = GameTask(
            game_id=game_id, pair_id=game_id, first=first, second=second, rows=self.rows,
            columns=self.columns, inarow=self.inarow, act_timeout=self.act_timeout, hang_limit=None,
            seed=self.key,
        )  # fmt: skip
        forfeit = None
        if self.offender is not None:
            forfeit = Forfeit(self.offender, self.termination, self.detail, self.statuses[self.offender - 1])
        return GameRecord.ended(task, self.moves, forfeit=forfeit)


def import_settings(episode: Episode, entrants: tuple[str, ...], toolkit: str = "") -> Settings:
    """The settings of a store of imported games on ``episode``'s board and time control, between
    ``entrants`` (module docstring); ``toolkit`` names the toolkit that imports them."""
    return single_game_settings(
        entrants,
        rows=episode.rows,
        columns=episode.columns,
        inarow=episode.inarow,
        act_timeout=episode.act_timeout,
        toolkit=toolkit,
        imported_from=IMPORTED,
    )


def describe_rules(rules: tuple[int, int, int, float]) -> str:
    """``6x7, 4 in a row, actTimeout 2 s``."""
    rows, columns, inarow, act_timeout = rules
    return f"{rows}x{columns}, {inarow} in a row, actTimeout {act_timeout:g} s"


def read_episode(text: str | bytes) -> Episode:
    """The episode in ``text`` (episode JSON); raises :class:`EpisodeError` for anything else, JSON or
    not (:func:`parse_episode`)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise EpisodeError(f"not JSON ({reason})") from None
    return parse_episode(data)


def parse_episode(data: object) -> Episode:
    """The ConnectX episode ``data`` (decoded JSON, module docstring), every move checked.

    Raises :class:`EpisodeError` when ``data`` is not a ConnectX episode (another game, another JSON),
    is cut short (steps missing, a game still going on), or does not add up: a move that is not a
    column, an illegal move the referee let stand, a board that is not the moves', final statuses or
    rewards other than the board's.

    >>> from agents.engine.board import Board
    >>> def step(board, actor, action, statuses, rewards=(0, 0)):
    ...     mine = {"observation": {"board": board.to_kaggle(), "mark": 1}}
    ...     agents = [dict(mine), {"observation": {"mark": 2}}]
    ...     for k in (0, 1):
    ...         agents[k] |= {"action": action if k == actor else 0, "status": statuses[k]}
    ...         agents[k]["reward"] = rewards[k]
    ...     return agents
    >>> board, steps = Board(), []
    >>> steps.append(step(board, None, 0, ("ACTIVE", "INACTIVE")))
    >>> for ply, column in enumerate([3, 3, 2, 2, 1, 1]):
    ...     board.push(column)
    ...     steps.append(step(board, ply % 2, column, ("INACTIVE", "ACTIVE")[:: 1 - 2 * (ply % 2)]))
    >>> board.push(0)
    >>> steps.append(step(board, 0, 0, ("DONE", "DONE"), (1, -1)))
    >>> episode = parse_episode({"name": "connectx", "configuration": {"rows": 6, "columns": 7,
    ...     "inarow": 4, "actTimeout": 2}, "steps": steps, "info": {"EpisodeId": 42}})
    >>> episode.moves, episode.result, str(episode.termination), episode.key
    ((3, 3, 2, 2, 1, 1, 0), 1.0, 'win', 42)
    """
    if not isinstance(data, dict):
        raise EpisodeError(f"not a kaggle-environments episode (a JSON {_kind(data)}, not an object)")
    name = data.get("name")
    if name is None or "steps" not in data:
        raise EpisodeError('not a kaggle-environments episode (it has no "name" and "steps")')
    if name != "connectx":
        raise EpisodeError(f"an episode of {name!r}, not of connectx")
    rows, columns, inarow, act_timeout = configuration(data.get("configuration"))
    names, episode_id = info(data.get("info"))
    played = steps(data["steps"], rows * columns)
    board = Board(rows, columns, inarow)
    sent = replay(played, board)
    final = played[-1]
    for field, ours in (("statuses", list(final.statuses)), ("rewards", list(final.rewards))):
        if field in data and data[field] != ours:
            raise EpisodeError(
                f'its "{field}" {data[field]!r} are not those of its last step, {ours!r} '
                "(steps cut short, or edited?)"
            )
    end = ending(final, board, sent)
    statuses = (Status(final.statuses[0]), Status(final.statuses[1]))  # checked by ending
    moves = board.moves
    key = episode_id if episode_id is not None else _local_key(data.get("id"), moves, statuses)
    return Episode(
        key, episode_id, names, rows, columns, inarow, act_timeout, moves, end.result, end.termination,
        end.offender, statuses, final.rewards, end.detail,
    )  # fmt: skip


def _kind(value: object) -> str:
    return {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _local_key(environment_id: object, moves: tuple[int, ...], statuses: tuple[str, str]) -> int:
    """The key of an episode without ``EpisodeId``: :data:`LOCAL_KEYS` plus a 62-bit hash of its
    environment's ``id`` (a uuid; one environment plays episode after episode under it), its moves
    and its final statuses."""
    text = json.dumps([environment_id if isinstance(environment_id, str) else None, moves, statuses])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return LOCAL_KEYS + int.from_bytes(digest, "big") % LOCAL_KEYS
