"""Hand-built game records for the tests: :func:`game_record` takes the task's fields and the outcome's
side by side, as a test writes them, and :func:`game_task` the task alone; :func:`synthetic_records` a
round robin of legal random games with openings, times and forfeits, :func:`settings_for` its settings,
and :func:`judged_moves` a made-up move analysis of them."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from reports.stats.analysis import OPENING, JudgedMove, Verdict
from tournament.record import GameRecord, Termination
from tournament.schedule import GameTask, Settings

_TASK = {field.name for field in dataclasses.fields(GameTask)}


def game_task(**fields: Any) -> GameTask:
    """A :class:`GameTask` of ``fields``; the rest are game 0 of pair 0, ``a`` against ``b`` on 6x7, 4 in a
    row, 2 s a move, Kaggle's own hang limit (None), seed 1."""
    task = {"game_id": 0, "pair_id": 0, "first": "a", "second": "b", "rows": 6, "columns": 7, "inarow": 4}
    return GameTask(**(task | {"act_timeout": 2.0, "hang_limit": None, "seed": 1} | fields))


def game_record(**fields: Any) -> GameRecord:
    """A :class:`GameRecord` from the fields of its task (``rows``, ``columns``, ``inarow`` default to
    6, 7, 4, ``act_timeout`` to 2 s, ``hang_limit`` to None) and of its outcome."""
    task = {"rows": 6, "columns": 7, "inarow": 4, "act_timeout": 2.0, "hang_limit": None, "seed": 0}
    task |= {name: fields.pop(name) for name in _TASK & fields.keys()}
    return GameRecord(task=GameTask(**task), **fields)


TRACEBACK = (
    "mark {mark} raised AttributeError: 'Struct' object has no attribute 'nothing'\n"
    "Traceback (most recent call last):\n"
    '  File "crashy.py", line 3, in agent\n'
    "    return obs.nothing\n"
    "AttributeError: 'Struct' object has no attribute 'nothing' </script><script>alert(1)</script>"
)


def _winner(board: list[list[int]], row: int, column: int, inarow: int) -> bool:
    mark = board[row][column]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while 0 <= r < len(board) and 0 <= c < len(board[0]) and board[r][c] == mark:
                count, r, c = count + 1, r + sign * dr, c + sign * dc
        if count >= inarow:
            return True
    return False


def synthetic_game(game_id: int, pair_id: int, first: str, second: str, opening: tuple[int, ...], seed: int,
                   rows: int = 6, columns: int = 7, inarow: int = 4) -> GameRecord:  # fmt: skip
    """A legal game of random moves after ``opening``: ``crashy`` raises at its 4th call, ``fullcol``
    plays into a full column, and ``slow`` takes 2.5 s a move (0.5 s of bank each)."""
    rng = random.Random(seed)
    board = [[0] * columns for _ in range(rows)]
    heights = [0] * columns
    moves: list[int] = []
    times: list[float] = []
    names = (first, second)
    termination, offender, result, detail = Termination.DRAW, None, 0.5, ""
    for ply in range(rows * columns):
        mark = ply % 2 + 1
        agent = names[mark - 1]
        if ply >= len(opening):
            times.append(2.5 if agent == "slow" else rng.uniform(0.0002, 0.02))
            calls = sum(1 for k in range(len(opening), ply + 1) if k % 2 == ply % 2)
            if agent == "crashy" and calls == 4:
                termination, offender, detail = Termination.ERROR, mark, TRACEBACK.format(mark=mark)
                result = 0.0 if mark == 1 else 1.0
                break
            full = [c for c in range(columns) if heights[c] == rows]
            if agent == "fullcol" and full:
                termination, offender, detail = (
                    Termination.INVALID,
                    mark,
                    f"mark {mark} returned {full[0]} (int)",
                )
                result = 0.0 if mark == 1 else 1.0
                break
        if ply < len(opening):
            column = opening[ply]
        elif agent == "fullcol":  # the centre: not full, or it would have forfeited above
            column = columns // 2
        else:
            column = rng.choice([c for c in range(columns) if heights[c] < rows])
        row = rows - 1 - heights[column]
        heights[column] += 1
        board[row][column] = mark
        moves.append(column)
        if _winner(board, row, column, inarow):
            termination, result = Termination.WIN, 1.0 if mark == 1 else 0.0
            break
    return game_record(
        game_id=game_id, pair_id=pair_id, first=first, second=second, rows=rows, columns=columns,
        inarow=inarow, act_timeout=2.0, seed=seed, moves=tuple(moves), move_times=tuple(times),
        result=result, termination=termination, offender=offender, detail=detail,
        duration=0.05 * len(moves),
        started_at=f"2026-01-02T{3 + game_id // 3600:02d}:{game_id // 60 % 60:02d}:{game_id % 60:02d}+00:00",
        opening=opening,
    )  # fmt: skip


def synthetic_records(agents: tuple[str, ...], pairs_per_pairing: int, seed: int = 1) -> list[GameRecord]:
    """A round robin of game pairs (same opening, colours swapped), as :func:`tournament.schedule.schedule`
    plays them."""
    rng = random.Random(seed)
    records = []
    pair_id = 0
    for _ in range(pairs_per_pairing):
        for i, a in enumerate(agents):
            for b in agents[i + 1 :]:
                opening = tuple(rng.randrange(7) for _ in range(rng.choice((0, 2, 4))))
                game_seed = rng.getrandbits(32)
                for first, second in ((a, b), (b, a)):
                    records.append(synthetic_game(len(records), pair_id, first, second, opening, game_seed))
                pair_id += 1
    return records


AGENTS = ("alpha", "beta", "crashy", "fullcol", "slow")


def settings_for(agents: tuple[str, ...], games: int, **changes) -> Settings:
    return Settings(entrants=agents, games=games, opening_source="test openings", workers=2, cores=2,
                    toolkit="0.1.0 (git test)", **changes)  # fmt: skip


def judged_moves(records: list[GameRecord], perfect: tuple[str, ...] = ()) -> list[JudgedMove]:
    """Every move of ``records`` judged, as ``connectx analyze`` would write them but made up (no
    solver): a draw or a forfeited game is level throughout; a game won by N in a row is level until
    the loser's last move after the opening, its mistake (draw -> loss), then won, the winner's every
    other move an inaccuracy (a slower win). A loser in ``perfect`` never errs: its game was lost from
    the start. A mistake's or an inaccuracy's best column is the leftmost other legal one."""
    judged = []
    for record in records:
        rows, columns = record.task.rows, record.task.columns
        opening, moves = len(record.opening), record.moves
        loser = None
        if record.termination == Termination.WIN:
            loser = 2 if record.result == 1.0 else 1
        losers_moves = [ply for ply in range(opening + 1, len(moves) + 1) if 2 - ply % 2 == loser]
        lost_from_start = loser is not None and ((record.first, record.second)[loser - 1] in perfect
                                                 or not losers_moves)  # fmt: skip
        deciding = None if loser is None or lost_from_start else losers_moves[-1]
        heights = [0] * columns
        value = 0  # the mover's value before its move
        if lost_from_start:
            value = -3 if loser == 1 else 3
        for ply, column in enumerate(moves, start=1):
            mark = 2 - ply % 2
            before, after = value, value
            if ply == deciding:
                after = -3
            elif value > 0 and ply > opening and ply % 4 in (0, 1):
                after = value - 1 if value > 1 else value
            verdict = Verdict.of(before, after)
            legal = [c for c in range(columns) if heights[c] < rows and c != column]
            best = (column + 1,) if verdict is Verdict.BEST or not legal else (legal[0] + 1,)
            agent = OPENING if ply <= opening else (record.first, record.second)[mark - 1]
            position = "".join(str(c + 1) for c in moves[: ply - 1])
            move = JudgedMove(record.game_id, ply, agent, position, column + 1, before, after, best, verdict)
            judged.append(move)
            heights[column] += 1
            value = -after
    return judged
