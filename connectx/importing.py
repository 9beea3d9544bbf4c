"""``connectx import FILE.json ... --out RUN``: store games played on Kaggle as the games of a run.

Each FILE is one episode: the JSON that the ConnectX leaderboard's replay download gives, or that
kaggle-environments' ``env.toJSON()`` returns (:mod:`tournament.episodes` reads and checks it). Each
episode becomes one game of ``RUN``, so ``connectx report RUN`` reports and replays them as it does a
tournament's.

* **Names.** An agent is named by its team, ``info.TeamNames`` of a leaderboard download, so the
  same team has the same name in every episode and the ratings join its games up. An episode without
  them (``env.toJSON()`` at home) takes ``--names FIRST SECOND``: FIRST played mark 1 (moved
  first). Episodes with the colours the other way round are imported by a second command with the
  names swapped. An episode whose two agents have one name (Kaggle's validation episode, a
  submission against itself) cannot be rated, and is skipped with a line saying so.
* **Adding to a run.** Importing into ``RUN`` that holds an import adds the new episodes after its
  games (new agents join its entrants: :meth:`~tournament.store.Store.add_entrants`); an episode
  already stored (the same ``EpisodeId``, or for one without it the same environment, moves and
  statuses: :attr:`~tournament.episodes.Episode.key`) is skipped, with a line saying so. One run
  holds one board and ``actTimeout``.
* **Nothing half done.** Every file is read and checked before anything is written: a file that
  cannot be read, is not JSON, is not a ConnectX episode, is cut short or does not add up, episodes
  of different boards, or a ``RUN`` that holds a tournament other than an import, is one line (the
  file named) and exit status 2, and the store is not touched. The games are then added one by one,
  each committed: should a write fail half-way (a full disk), the games stored stay and the same
  command adds the rest.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from connectx.options import out_option
from reports.words import plural
from tournament.episodes import (
    IMPORTED,
    Episode,
    EpisodeError,
    describe_rules,
    import_settings,
    read_episode,
)
from tournament.record import GameRecord
from tournament.schedule import HUMAN, Settings
from tournament.store import DB_NAME, Store, StoreError

MAX_BYTES = 64 << 20
"""Largest episode file read, in bytes (a ConnectX episode is tens of kilobytes)."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``import`` to the subcommands ``commands``."""
    command = commands.add_parser(
        "import",
        help="store episodes played on Kaggle (replay JSON) as the games of a run, for `connectx report`",
        description="Store each FILE, a ConnectX episode as the Kaggle leaderboard's replay download or "
        "kaggle-environments' env.toJSON() writes it, as a game of RUN; `connectx report RUN` then "
        "reports and replays them. Agents are named by the episode's info.TeamNames, else by --names. "
        "Importing into a run of imported games adds the new episodes and skips those already stored. "
        "Every file is checked before anything is written: a bad one stops the import, storing nothing.",
    )
    command.add_argument("files", nargs="+", type=Path, metavar="FILE", help="episode JSON files")
    out_option(command, "the run directory the games are added to", required=True, metavar="RUN")
    command.add_argument(
        "--names",
        nargs=2,
        metavar=("FIRST", "SECOND"),
        default=None,
        help="names of the agents of episodes without info.TeamNames: FIRST played mark 1 (moved "
        "first), SECOND mark 2",
    )
    command.set_defaults(handler=_import)


def _names(episode: Episode, names: tuple[str, str] | None) -> tuple[str, str]:
    """The names of ``episode``'s agents (mark 1, mark 2): its TeamNames, else ``names``. Raises
    :class:`EpisodeError` when it has neither, or one is the reserved :data:`HUMAN`."""
    chosen = episode.names or names
    if chosen is None:
        raise EpisodeError("has no info.TeamNames: name its agents with --names FIRST SECOND")
    if HUMAN in chosen:
        raise EpisodeError(
            f"an agent named {HUMAN!r} would be taken for a person playing at the terminal "
            "(connectx play); it cannot be imported under that name"
        )
    return chosen


Fail = Callable[[str], NoReturn]
"""The command's ``parser.error``: one line, exit status 2."""
Item = tuple[Path, Episode, tuple[str, str]]
"""A file, its episode and the names of its agents (mark 1, mark 2)."""


def _read(paths: list[Path], names: tuple[str, str] | None, fail: Fail) -> list[Item]:
    """Every file's episode and names, in order; ``fail(message)`` at the first bad file, or at an
    episode on another board or time control than the first's."""
    episodes: list[Item] = []
    for path in paths:
        try:
            with path.open("rb") as file:
                text = file.read(MAX_BYTES + 1)
        except OSError as error:
            fail(f"{path}: cannot read it: {error.strerror or error}")
        try:
            if len(text) > MAX_BYTES:
                raise EpisodeError(f"is over {MAX_BYTES >> 20} MB: not a ConnectX episode")
            episode = read_episode(text)
            agents = _names(episode, names)
        except EpisodeError as error:
            fail(f"{path}: {error}")
        if episodes and episode.rules != episodes[0][1].rules:
            fail(
                f"{path} is a game on {describe_rules(episode.rules)}, {episodes[0][0]} on "
                f"{describe_rules(episodes[0][1].rules)}: one run holds one board and time control; "
                "import them into separate runs"
            )
        episodes.append((path, episode, agents))
    return episodes


def _stored_import(out: Path, rules: tuple[int, int, int, float], fail: Fail) -> Settings | None:
    """The settings of the import stored in ``out``, None when ``out`` holds no store;
    ``fail(message)`` when it holds something else (a tournament, games on other ``rules``) or
    cannot be read."""
    if not (out / DB_NAME).exists():
        return None
    try:
        with Store.open(out) as store:
            settings = store.settings()
    except StoreError as error:
        fail(str(error))
    if settings.opening_source != IMPORTED:
        what = "games of connectx play" if HUMAN in settings.entrants else "a tournament"
        fail(f"{out} holds {what}, not imported episodes; import into another --out")
    stored = (settings.rows, settings.columns, settings.inarow, settings.act_timeout)
    if stored != rules:
        fail(
            f"{out} holds games on {describe_rules(stored)}, these are on {describe_rules(rules)}: "
            "one run holds one board and time control; import them into another --out"
        )
    return settings


def _line(game_id: int, episode: Episode, first: str, second: str) -> str:
    """``game 3: Alice v Bob, 1-0 (win, 23 moves), episode 123``; a forfeit names its offender."""
    score = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[episode.result]
    how = str(episode.termination)
    if episode.offender is not None:
        how += f" by {(first, second)[episode.offender - 1]}"
    which = "" if episode.episode_id is None else f", episode {episode.episode_id}"
    return f"game {game_id}: {first} v {second}, {score} ({how}, {plural(len(episode.moves), 'move')}){which}"


def _import(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``connectx import``: 0 done (every episode stored or skipped), 2 bad input or an unusable RUN."""
    from reports.provenance import toolkit_version

    names = None
    if args.names is not None:
        first, second = (" ".join(name.split()) for name in args.names)
        if not first or not second or first == second:
            parser.error(f"--names needs two different, non-empty names, got {args.names!r}")
        names = (first, second)
    episodes = _read(args.files, names, parser.error)
    todo = _distinct(episodes)
    settings = _stored_import(args.out, episodes[0][1].rules, parser.error)
    if settings is None:
        if not todo:
            print(f"nothing to import; {args.out} is left as it was")
            return 0
        entrants = tuple(dict.fromkeys(name for _, _, agents in todo for name in agents))
        settings = import_settings(todo[0][1], entrants, toolkit_version())
    try:
        store = Store.create(args.out, settings)  # its lock: no other import or run meanwhile
    except StoreError as error:
        parser.error(str(error))
    with store:
        records = store.records()
        added = _add(store, todo, records)
        entrants = store.settings().entrants
    skipped = len(episodes) - added
    print(
        f"imported {plural(added, 'episode')}"
        + (f", skipped {skipped}" if skipped else "")
        + f"; {args.out} holds {plural(len(records), 'game')} of {plural(len(entrants), 'agent')}: "
        f"`connectx report {args.out}` reports {'it' if len(records) == 1 else 'them'}"
    )
    groups = _groups(records)
    if len(groups) > 1:
        print(
            f"warning: the agents of {args.out} fall into {len(groups)} groups that never met ("
            + "; ".join(", ".join(group) for group in groups)
            + "): Elo cannot compare players that no chain of games links, and the report's "
            "ratings need one connected pool",
            file=sys.stderr,
        )
    return 0


def _distinct(episodes: list[Item]) -> list[Item]:
    """The episodes to import: each once, and none of an agent against itself (a line for each
    skipped)."""
    todo: list[Item] = []
    seen: dict[int, Path] = {}
    for path, episode, agents in episodes:
        if episode.key in seen:
            print(f"{path}: the same episode as {seen[episode.key]}; skipped")
        elif agents[0] == agents[1]:
            print(
                f"{path}: both agents are {agents[0]!r}, a game against itself, which no rating uses; skipped"
            )
        else:
            seen[episode.key] = path
            todo.append((path, episode, agents))
    return todo


def _add(store: Store, todo: list[Item], records: list[GameRecord]) -> int:
    """Add the episodes of ``todo`` that ``store`` does not hold yet (its ``records``, to which they
    are appended), one game each after its games, with a line for each; how many were added."""
    stored = {record.task.seed: record.game_id for record in records}
    fresh = [(path, episode, agents) for path, episode, agents in todo if episode.key not in stored]
    store.add_entrants([name for _, _, agents in fresh for name in agents])
    game_id = max(stored.values(), default=-1) + 1
    added = 0
    for path, episode, (first, second) in todo:
        if episode.key in stored:
            print(f"{path}: already stored as game {stored[episode.key]}; skipped")
            continue
        record = episode.record(game_id, first, second)
        store.add(record)
        records.append(record)
        stored[episode.key] = game_id
        print(f"{path}: {_line(game_id, episode, first, second)}")
        added, game_id = added + 1, game_id + 1
    return added


def _groups(records: list[GameRecord]) -> list[list[str]]:
    """The agents of ``records`` in groups linked by games (connected components), each in the
    order first met, the groups in the order of their first agent.

    >>> from tournament.record import Termination
    >>> moves = (0, 1, 0, 1, 0, 1, 0)  # mark 1 wins in column 1
    >>> won = Episode(1, None, None, 6, 7, 4, 2.0, moves, 1.0, Termination.WIN, None, ("DONE",) * 2, (1, -1))
    >>> _groups([won.record(0, "a", "b"), won.record(1, "c", "d"), won.record(2, "b", "e")])
    [['a', 'b', 'e'], ['c', 'd']]
    """
    group: dict[str, int] = {}  # agent -> the index of its group's first agent (union-find, flattened)
    order: list[str] = []
    for record in records:
        for name in (record.first, record.second):
            if name not in group:
                group[name] = len(order)
                order.append(name)
        a, b = group[record.first], group[record.second]
        if a != b:
            low, high = min(a, b), max(a, b)
            for name, root in group.items():
                if root == high:
                    group[name] = low
    groups: dict[int, list[str]] = {}
    for name in order:
        groups.setdefault(group[name], []).append(name)
    return list(groups.values())
