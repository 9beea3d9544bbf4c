"""The solver's verdict on every game an agent did not win: did it start lost, or did it err?

Reads a tournament directory written by ``connectx run`` (:class:`tournament.store.Store`). Each
played-out game (no forfeit) in which ``--agent`` scored less than 1 is replayed with the numba
solver (:class:`agents.engine.solver.fast.FastSolver`, needs numba; four in a row, boards of at most 64
bits): the weak value (1 win, 0 draw, -1 loss) of the position the opening left, from the agent's
side, and every move of either side that lowered its mover's outcome class -- a *mistake* in
AlphaZero.jl's sense (:mod:`benchmarks.mistakes`). A game with no mistake of the agent's was lost or
drawn by the opening and the opponent's play, and a perfect player would have done no better
against the same moves. Forfeits are counted apart, not replayed. Positions of the first few plies
take the solver minutes each (games from the empty board, ``--openings none``); after the 6-8-ply
suite openings a game takes a second or two, some up to 15 s::

    python -m benchmarks.verdicts runs/my-gauntlet --agent network

Prints a line per game and a summary: the games not won by their starting value for the agent, and
the agent's and its opponents' mistakes with their plies. Exits 2 with one line for a missing or
unreadable store, an agent that played no game, or a board the solver cannot take.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from agents.engine.board import Board
from benchmarks.mistakes import outcome_sign
from tournament.record import GameRecord
from tournament.store import Store, StoreError

OUTCOME = {1: "won", 0: "drawn", -1: "lost"}


@dataclass(frozen=True)
class Mistake:
    """A move that lowered its mover's outcome class: 0-based ``ply`` and ``column``, the mover's
    ``mark`` (1 or 2), and the weak values (mover's side) ``before`` and ``after`` it."""

    ply: int
    column: int
    mark: int
    before: int
    after: int


def weak_value(solver, board: Board) -> int:
    """The weak value (1, 0, -1) of ``board`` (game on) for the side to move."""
    return outcome_sign(solver.solve_bits(board.position, board.mask, board.ply, weak=True))


def replay(record: GameRecord, solver) -> tuple[int, list[Mistake]]:
    """``(start, mistakes)`` of a played-out game: the weak value of the position after the opening
    for mark 1, and every move after the opening that lowered its mover's outcome class."""
    task = record.task
    board = Board(task.rows, task.columns, task.inarow)
    for column in record.opening:
        board.play(column)
    value = weak_value(solver, board)  # for the side to move
    start = value if board.mark == 1 else -value
    mistakes = []
    for ply in range(len(record.opening), len(record.moves)):
        mark, column = board.mark, record.moves[ply]
        board.play(column)
        outcome = board.outcome()
        after = -weak_value(solver, board) if outcome is None else outcome.reward(mark)
        if after < value:
            mistakes.append(Mistake(ply, column, mark, value, after))
        value = -after
    return start, mistakes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a tournament directory (connectx run --out)")
    parser.add_argument("--agent", required=True, help="the entrant's spec, as the standings show it")
    args = parser.parse_args(argv)
    try:
        with Store.open(args.run) as store:
            records = store.records()
    except StoreError as error:
        print(f"verdicts: {error}", file=sys.stderr)
        return 2
    played = [r for r in records if args.agent in (r.first, r.second)]
    if not played:
        print(f"verdicts: {args.agent!r} played no game in {args.run}", file=sys.stderr)
        return 2
    from agents.engine.solver.fast import FastSolver

    task = played[0].task
    try:
        solver = FastSolver(task.rows, task.columns, task.inarow, table_bits=24)
    except ValueError as error:
        print(f"verdicts: {error}", file=sys.stderr)
        return 2
    starts: Counter[str] = Counter()
    own: list[Mistake] = []
    theirs: list[Mistake] = []
    forfeits = 0
    not_won = [r for r in played if r.score_of(args.agent) < 1]
    for record in not_won:
        mark = 1 if record.first == args.agent else 2
        opponent = record.second if mark == 1 else record.first
        head = f"game {record.game_id} (pair {record.pair_id}) as mark {mark} vs {opponent}"
        if record.termination.is_forfeit:
            forfeits += 1
            print(f"{head}: {record.termination.value} by mark {record.offender}, not replayed")
            continue
        start, mistakes = replay(record, solver)
        start = start if mark == 1 else -start
        starts[OUTCOME[start]] += 1
        own += [m for m in mistakes if m.mark == mark]
        theirs += [m for m in mistakes if m.mark != mark]
        result = OUTCOME[outcome_sign(2 * record.score_of(args.agent) - 1)]
        notes = [
            f"{'its' if m.mark == mark else 'opponent'} mistake at ply {m.ply} (column {m.column + 1}): "
            f"{OUTCOME[m.before]} -> {OUTCOME[m.after]}"
            for m in mistakes
        ]
        print(f"{head}: {result}; started {OUTCOME[start]}" + "".join(f"; {note}" for note in notes))
    print(
        f"{args.agent}: {len(not_won)} of {len(played)} games not won"
        + (f" ({forfeits} forfeits)" if forfeits else "")
        + "; started won / drawn / lost: "
        + " / ".join(str(starts[k]) for k in ("won", "drawn", "lost"))
    )
    print(f"  its mistakes: {len(own)}" + (f", at plies {sorted(m.ply for m in own)}" if own else ""))
    print(f"  its opponents' mistakes: {len(theirs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
