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

:func:`read_episode` checks all of it -- every move is replayed on
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
import math
from dataclasses import dataclass
from typing import Any

from agents.engine.board import Board, BoardError, geometry
from tournament.record import Forfeit, GameRecord, Termination
from tournament.schedule import GameTask, Settings

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

LOCAL_KEYS = 1 << 62
"""Keys of episodes without ``info.EpisodeId`` are ``LOCAL_KEYS`` and up; Kaggle's episode ids, below
it, are keys of their own."""

_FORFEITS = {"ERROR": Termination.ERROR, "TIMEOUT": Termination.TIMEOUT, "INVALID": Termination.INVALID}
"""Kaggle's statuses of a forfeiting agent (``kaggle_environments/core.py``, ``Environment.step``)."""
_TURN = ("ACTIVE", "INACTIVE")


class EpisodeError(ValueError):
    """An episode that cannot be imported; the message says why in one line (the caller names the
    file)."""


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
    statuses: tuple[str, str]
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
            game_id, game_id, first, second, self.rows, self.columns, self.inarow, self.act_timeout,
            hang_limit=None, seed=self.key,
        )  # fmt: skip
        forfeit = None
        if self.offender is not None:
            forfeit = Forfeit(self.offender, self.termination, self.detail, self.statuses[self.offender - 1])
        return GameRecord.ended(task, self.moves, forfeit=forfeit)


def import_settings(episode: Episode, entrants: tuple[str, ...], toolkit: str = "") -> Settings:
    """The settings of a store of imported games on ``episode``'s board and time control, between
    ``entrants`` (module docstring); ``toolkit`` names the toolkit that imports them."""
    return Settings(
        entrants=entrants,
        games=1,
        rows=episode.rows,
        columns=episode.columns,
        inarow=episode.inarow,
        act_timeout=episode.act_timeout,
        seed=0,
        opening_source=IMPORTED,
        toolkit=toolkit,
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


def parse_episode(data: Any) -> Episode:
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
    rows, columns, inarow, act_timeout = _configuration(data.get("configuration"))
    names, episode_id = _info(data.get("info"))
    steps = data["steps"]
    if not isinstance(steps, list) or len(steps) < 2:
        count = len(steps) if isinstance(steps, list) else 0
        raise EpisodeError(f"has {count} step{'' if count == 1 else 's'}: no move was played (cut short?)")
    states = [_step(step, index, rows * columns) for index, step in enumerate(steps)]

    board = Board(rows, columns, inarow)
    first = states[0]
    if first[0]["board"] != board.to_kaggle():
        raise EpisodeError("step 0: the board is not empty")
    if (first[0]["status"], first[1]["status"]) != _TURN:
        raise EpisodeError(
            f"step 0: statuses {first[0]['status']}, {first[1]['status']}, not mark 1 to move "
            "(ACTIVE, INACTIVE)"
        )
    last = len(states) - 1
    forfeit: tuple[int, Any] | None = None  # (mark, the action it sent)
    for index in range(1, len(states)):
        before, after = states[index - 1], states[index]
        actor = [state["status"] for state in before].index("ACTIVE")  # one: step 0 and the loop check
        mark = actor + 1
        action, status = after[actor]["action"], after[actor]["status"]
        if status in _FORFEITS:
            if after[0]["board"] != before[0]["board"]:
                raise EpisodeError(f"step {index}: the board changed, yet mark {mark} forfeited ({status})")
            if index != last:
                raise EpisodeError(f"step {index}: mark {mark} forfeited ({status}), yet the episode goes on")
            forfeit = (mark, action)
            break
        if isinstance(action, bool) or not isinstance(action, int):
            raise EpisodeError(f"step {index}: mark {mark} played {action!r}, not a column, yet is {status}")
        try:
            board.push(action)
        except BoardError as error:
            raise EpisodeError(
                f"step {index}: mark {mark} played column {action}, an illegal move ({error}) that "
                "Kaggle's referee would have forfeited"
            ) from None
        if after[0]["board"] != board.to_kaggle():
            raise EpisodeError(
                f"step {index}: the board is not the moves' (mark {mark} played column {action})"
            )
        statuses = (after[0]["status"], after[1]["status"])
        if board.is_game_over() or index == last:
            if index != last:
                raise EpisodeError(f"step {index}: the game is over, yet the episode goes on")
            break
        if statuses != _TURN[:: 1 if actor else -1]:
            raise EpisodeError(
                f"step {index}: statuses {statuses[0]}, {statuses[1]} after a move of mark {mark} in a "
                "game still going on"
            )

    final = states[last]
    statuses = (final[0]["status"], final[1]["status"])
    rewards = (final[0]["reward"], final[1]["reward"])
    for field, ours in (("statuses", list(statuses)), ("rewards", list(rewards))):
        if field in data and data[field] != ours:
            raise EpisodeError(
                f'its "{field}" {data[field]!r} are not those of its last step, {ours!r} '
                "(steps cut short, or edited?)"
            )
    moves = board.moves
    offenders = [mark for mark, status in ((1, statuses[0]), (2, statuses[1])) if status in _FORFEITS]
    if len(offenders) == 2:
        raise EpisodeError(f"both agents forfeited ({statuses[0]}, {statuses[1]}); a game has one offender")
    if offenders:
        offender = offenders[0]
        if board.is_game_over():
            raise EpisodeError(
                f"mark {offender} forfeited ({statuses[offender - 1]}) after the game was over"
            )
        action = forfeit[1] if forfeit is not None and forfeit[0] == offender else None
        termination, detail = _forfeit(offender, statuses[offender - 1], action, final, board)
        ended = Forfeit(offender, termination, detail, statuses[offender - 1])
        if (statuses, rewards) != (ended.statuses, ended.rewards):
            raise EpisodeError(
                f"its final statuses {list(statuses)} and rewards {list(rewards)} are not those of a "
                f"forfeit of mark {offender}, {list(ended.statuses)} and {list(ended.rewards)}"
            )
        result = 0.0 if offender == 1 else 1.0
    else:
        offender = None
        outcome = board.outcome()
        if outcome is None:
            if "ACTIVE" in statuses:
                raise EpisodeError(
                    f"the game is unfinished after {len(moves)} moves: mark {statuses.index('ACTIVE') + 1} "
                    "is still to move (steps cut short?)"
                )
            raise EpisodeError(
                f"the episode ended after {len(moves)} moves ({statuses[0]}, {statuses[1]}) with no line, "
                "no full board and no forfeit (its episodeSteps ran out?)"
            )
        if statuses != ("DONE", "DONE") or rewards != (outcome.reward(1), outcome.reward(2)):
            said = "a draw" if outcome.winner is None else f"mark {outcome.winner} wins"
            raise EpisodeError(
                f"its final statuses {list(statuses)} and rewards {list(rewards)} are not those of its "
                f"board, where {said}"
            )
        termination = Termination.DRAW if outcome.winner is None else Termination.WIN
        result, detail = outcome.result, ""
    key = episode_id if episode_id is not None else _local_key(data.get("id"), moves, statuses)
    return Episode(
        key, episode_id, names, rows, columns, inarow, act_timeout, moves, result, termination,
        offender, statuses, rewards, detail,
    )  # fmt: skip


def _kind(value: Any) -> str:
    return {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _configuration(configuration: Any) -> tuple[int, int, int, float]:
    """``(rows, columns, inarow, actTimeout)`` of an episode's configuration."""
    if not isinstance(configuration, dict):
        raise EpisodeError('it has no "configuration" object')
    values = []
    for name in ("rows", "columns", "inarow"):
        value = configuration.get(name)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        values.append(value)
    try:
        geometry(*values)
    except BoardError as error:
        raise EpisodeError(f"configuration: {error}") from None
    act_timeout = configuration.get("actTimeout", configuration.get("timeout", 2))
    if isinstance(act_timeout, bool) or not isinstance(act_timeout, int | float):
        raise EpisodeError(f"configuration: actTimeout {act_timeout!r} is not a number of seconds")
    if not (math.isfinite(act_timeout) and act_timeout > 0):
        raise EpisodeError(f"configuration: actTimeout {act_timeout!r} is not a positive number of seconds")
    return values[0], values[1], values[2], float(act_timeout)


def _info(info: Any) -> tuple[tuple[str, str] | None, int | None]:
    """``(TeamNames, EpisodeId)`` of an episode's ``info``, each None when absent."""
    if info is None:
        return None, None
    if not isinstance(info, dict):
        raise EpisodeError('its "info" is not an object')
    names = info.get("TeamNames")
    if names is not None:
        if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
            raise EpisodeError(f"info.TeamNames {names!r} is not two names")
        names = tuple(" ".join(name.split()) for name in names)
        if not all(names):
            raise EpisodeError(f"info.TeamNames {info['TeamNames']!r} has an empty name")
    episode_id = info.get("EpisodeId")
    if episode_id is not None:
        if isinstance(episode_id, str) and episode_id.isdecimal():
            episode_id = int(episode_id)
        if (
            isinstance(episode_id, bool)
            or not isinstance(episode_id, int)
            or not 0 <= episode_id < LOCAL_KEYS
        ):
            raise EpisodeError(f"info.EpisodeId {info['EpisodeId']!r} is not an episode number")
    return names, episode_id


def _step(step: Any, index: int, cells: int) -> list[dict[str, Any]]:
    """The two agents' states of step ``index``: ``status``, ``action``, ``reward``, and agent 0's
    ``board`` (checked to be ``cells`` cells of 0, 1 or 2) and each one's ``remaining`` overage."""
    if not (isinstance(step, list) and len(step) == 2 and all(isinstance(agent, dict) for agent in step)):
        raise EpisodeError(f"step {index} is not the states of two agents")
    states = []
    for agent, state in enumerate(step):
        observation = state.get("observation")
        status, reward = state.get("status"), state.get("reward", 0)
        if not isinstance(observation, dict) or not isinstance(status, str):
            raise EpisodeError(f"step {index}: agent {agent} has no observation or status")
        if reward is not None and (isinstance(reward, bool) or not isinstance(reward, int | float)):
            raise EpisodeError(f"step {index}: agent {agent}'s reward {reward!r} is not a number")
        mark = observation.get("mark", agent + 1)
        if mark != agent + 1:
            raise EpisodeError(f"step {index}: agent {agent} plays mark {mark!r}, not {agent + 1}")
        remaining = observation.get("remainingOverageTime")
        states.append(
            {
                "status": status,
                "action": state.get("action"),
                "reward": reward,
                "remaining": remaining if isinstance(remaining, int | float) else None,
            }
        )
    board = step[0]["observation"].get("board")
    if not (isinstance(board, list) and len(board) == cells and all(v in (0, 1, 2) for v in board)):
        raise EpisodeError(f"step {index}: the board is not {cells} cells of 0, 1 or 2")
    if any(isinstance(v, bool) for v in board):
        raise EpisodeError(f"step {index}: the board is not {cells} cells of 0, 1 or 2")
    states[0]["board"] = board
    statuses = (states[0]["status"], states[1]["status"])
    if "ACTIVE" in statuses and statuses not in (_TURN, _TURN[::-1]):
        raise EpisodeError(f"step {index}: statuses {statuses[0]}, {statuses[1]}: not one agent to move")
    return states


def _forfeit(
    offender: int, status: str, action: Any, final: list[dict[str, Any]], board: Board
) -> tuple[Termination, str]:
    """The termination and detail of ``offender``'s forfeit with Kaggle ``status``, sending
    ``action`` (None when the episode does not keep it), on ``board`` (before the offending call)."""
    termination = _FORFEITS[status]
    remaining = final[offender - 1]["remaining"]
    if termination is Termination.ERROR:
        return (
            termination,
            f"mark {offender} raised an error (Kaggle status ERROR; the episode keeps no traceback)",
        )
    if termination is Termination.TIMEOUT:
        return termination, f"mark {offender} ran out of time (Kaggle status TIMEOUT)"
    if remaining is not None and remaining < 0:  # Termination: INVALID once the bank is overdrawn
        return Termination.TIMEOUT, f"mark {offender} overdrew its overage bank (Kaggle status INVALID)"
    if isinstance(action, int) and not isinstance(action, bool) and board.mark == offender:
        from tournament.rules import invalid_action  # the runner's words

        return termination, invalid_action(offender, action, board)
    columns = board.geo.columns
    return termination, (
        f"mark {offender} returned something other than a column 0-{columns - 1}, which the episode "
        "does not keep (Kaggle status INVALID: e.g. a str or a negative number)"
    )


def _local_key(environment_id: Any, moves: tuple[int, ...], statuses: tuple[str, str]) -> int:
    """The key of an episode without ``EpisodeId``: :data:`LOCAL_KEYS` plus a 62-bit hash of its
    environment's ``id`` (a uuid; one environment plays episode after episode under it), its moves
    and its final statuses."""
    text = json.dumps([environment_id if isinstance(environment_id, str) else None, moves, statuses])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return LOCAL_KEYS + int.from_bytes(digest, "big") % LOCAL_KEYS
