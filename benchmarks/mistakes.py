"""Mistake rates of agents on Pons' six test sets (AlphaZero.jl's definition), under Kaggle's clock.

A move is a mistake when its outcome class (win > draw > loss, from the side to move) is below the
best available. The best class is the sign of the position's score in Pons' file; the class the
move keeps is the negated :func:`child_outcome` of the position after it (in a lost position no
move is a mistake and nothing is checked). :func:`child_outcome` asks
:func:`agents.engine.solver.solve` (``weak=True``) about positions of at most
:data:`DATABASE_STONES` stones and the numba twin of the solver (:mod:`agents.engine.solver.fast`, or
the pure-Python solver without numba) about later ones, under ``--max-nodes`` (a position beyond it
is reported as unchecked). A move that raises, or returns anything but a legal column, loses the
game on Kaggle: a mistake unless the position was lost.

Each position is played by a fresh agent built from a ``--spec`` (no table or tree carried over
from earlier moves, the hardest case), called as Kaggle calls it (:mod:`benchmarks.kaggle_call`;
a ``.py`` file, e.g. a built submission, plays in an isolated process) with ``actTimeout``
``--act`` (2 s) and a fresh overage bank of ``--bank`` (60 s). Per move: the seconds of the call
and the bank drawn (seconds over ``actTimeout``). The time rules (:func:`time_rules`): at most one
move in ten over ``actTimeout``, none over 10 s, none that draws more than half the bank (each
position is a one-move game) or more than all of it (Kaggle's timeout).

A ``.py`` file plays twice by default (``--numba both``): with numba, as on Kaggle's image, where a
built file compiles its solver at its first move (once a worker: the file's modules run once a
process), and with numba and llvmlite hidden from it (``(numba hidden)``), where it searches in
pure Python; ``--numba with`` or ``--numba without`` plays one of them.

By default every position of the six sets (1,000 each); ``--per-set N`` plays a seeded sample of
N a set. ``--busy K`` runs ``K`` spinning processes beside the agents for the whole benchmark
(:func:`benchmarks.load.spinning`), as a busy machine would: ``--busy 2`` on 2 cores loads the agent's
core and the other one. The solver is compiled before the workers fork
(:func:`agents.engine.solver.warm_up`), so no move pays for numba's compilation.
Positions run in ``--workers`` processes (default: one per core this process may use),
each playing and then checking its position. Timing is fair only while each worker has a core
of its own: with 2 workers on 2 cores, anything else running on the machine slows the moves
measured (use fewer workers on a busy machine). ``--workers 0`` plays in this process.

    python -m benchmarks.mistakes --spec negamax
    python -m benchmarks.mistakes --spec negamax --spec network --spec mcts --json runs/mistakes.json
    python -m benchmarks.mistakes --spec path/to/main.py --sets L1_R3
    python -m benchmarks.mistakes --spec main.py --numba without --per-set 100
    python -m benchmarks.mistakes --spec network:search=none --sets L3_R1,L2_R1 --per-set 20
    python -m benchmarks.mistakes --spec negamax --sets L1_R3,L2_R2 --per-set 400 --workers 1 --busy 2

Reference mistake rates (%) on L3_R1 / L2_R1 / L2_R2 / L1_R1 / L1_R2 / L1_R3 (:data:`MINIMAX5`,
:data:`ALPHAZERO_JL`): depth-5 minimax 1.7 / 0.7 / 1.4 / 7.3 / 9.2 / 23.5; AlphaZero.jl's agent about
0 / 0 / 2.5 / 0 / 2 / 7 (AlphaZero.jl's Connect Four tutorial, benchmark section,
https://jonathan-laurent.github.io/AlphaZero.jl/stable/tutorial/connect_four/).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.engine.board import Board
from agents.engine.solver import SearchAborted, solve, warm_up
from agents.kit.adapter import observation
from agents.kit.clock import Clock
from agents.registry import AgentSpec, parse_spec
from benchmarks.kaggle_call import close_players, cores, play
from benchmarks.load import spinning
from benchmarks.pons import DATA, SETS, read_set

MINIMAX5 = {"L3_R1": 1.7, "L2_R1": 0.7, "L2_R2": 1.4, "L1_R1": 7.3, "L1_R2": 9.2, "L1_R3": 23.5}
ALPHAZERO_JL = {"L3_R1": 0.0, "L2_R1": 0.0, "L2_R2": 2.5, "L1_R1": 0.0, "L1_R2": 2.0, "L1_R3": 7.0}

DATABASE_STONES = 12
"""Positions with at most this many stones are checked by :func:`agents.engine.solver.solve` (backed
by the solved game's 12-ply opening databases), later ones by the numba solver."""
MAX_NODES = 400_000_000
"""Default node limit of one check by the numba solver (``--max-nodes``)."""
MAX_OVER_SHARE = 0.1
"""Time rule: at most this share of the moves may take longer than ``actTimeout``."""
MAX_MOVE_SECONDS = 10.0
"""Time rule: no move may take longer than this many seconds."""
MAX_BANK_SHARE = 0.5
"""Time rule: no game (here one position) may draw more than this share of the overage bank."""


HIDDEN = ("numba", "llvmlite")
"""What a file agent's process cannot import when it plays without numba."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A spec as played here: a ``.py`` file may have :data:`HIDDEN` made unimportable (``hidden``)."""

    spec: AgentSpec
    hidden: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return f"{self.spec.text} (numba hidden)" if self.hidden else self.spec.text


def entrants(specs: list[AgentSpec], numba: str) -> list[Entrant]:
    """What plays: each spec, a file once with numba, once without, or as ``numba`` says
    (``both``, ``with``, ``without``)."""
    modes = {"both": [(), HIDDEN], "with": [()], "without": [HIDDEN]}[numba]
    return [Entrant(spec, hidden) for spec in specs for hidden in (modes if spec.kind == "file" else [()])]


def outcome_sign(x: int) -> int:
    return (x > 0) - (x < 0)


def rate_interval(mistakes: int, checked: int) -> tuple[float, float]:
    """Exact (Clopper-Pearson) 95 % interval of a mistake rate, in percent; ``(0, 100)`` when nothing
    was checked. Computed by :func:`scipy.stats.binomtest`."""
    if checked == 0:
        return 0.0, 100.0
    from scipy.stats import binomtest

    ci = binomtest(mistakes, checked).proportion_ci(confidence_level=0.95, method="exact")
    return 100 * ci.low, 100 * ci.high


_checker: Any = None


def child_outcome(moves: str, *, max_nodes: int = MAX_NODES) -> int:
    """The weak value of the position ``moves`` (Pons' notation, 1-based column digits from the empty
    6x7 board; a game may have just ended) from the side to move there: 1 win, 0 draw, -1 loss.

    A position just won by the last move is -1, a full board 0. With at most
    :data:`DATABASE_STONES` stones: :func:`agents.engine.solver.solve` (no node limit). Later:
    :func:`training.solvers.weak_solver` (the numba ``FastSolver``, 2**24 table slots kept for the
    process, else the pure-Python solver), which raises :class:`~agents.engine.solver.SearchAborted`
    past ``max_nodes`` nodes.
    """
    global _checker
    board = Board.from_moves(moves)
    if board.winner() is not None:
        return -1
    if board.is_full():
        return 0
    if board.ply <= DATABASE_STONES:
        return outcome_sign(solve(moves, weak=True).score)
    if _checker is None:
        from training.solvers import weak_solver

        _checker = weak_solver(table_bits=24)
    value = _checker.solve_bits(board.position, board.mask, board.ply, weak=True, max_nodes=max_nodes)
    return outcome_sign(value)


def is_mistake(moves: str, column: int, best: int, *, max_nodes: int = MAX_NODES) -> bool | None:
    """Whether playing ``column`` (0-based) after ``moves`` lowers the outcome class below ``best``
    (1 win, 0 draw, -1 loss for the side to move: the sign of the position's score in Pons' file).
    False in a lost position (nothing is checked); None when the check exceeds ``max_nodes``."""
    if best < 0:
        return False
    try:
        return -child_outcome(moves + str(column + 1), max_nodes=max_nodes) < best
    except SearchAborted:
        return None


def run_position(
    entrant: Entrant, name: str, moves: str, score: int, act: float, bank: float, max_nodes: int, seed: int
) -> dict[str, Any]:
    """Play position ``moves`` of set ``name`` with a fresh agent of ``entrant`` (``actTimeout`` ``act``,
    a ``bank``-second overage bank) and check the move. The record: ``set``, ``moves``, ``score``,
    ``column`` (0-based; None on an error), ``seconds`` of the call, ``bank`` drawn (s), ``stage``,
    ``error``, ``leaks``, ``outcome`` (the :func:`child_outcome` of the move, None when not checked),
    ``mistake`` (True/False, None when unchecked), ``check_seconds`` and ``check_error`` (an
    exception of the checker, which leaves the move unchecked; None normally)."""
    board = Board.from_moves(moves)
    obs, config = observation(board, Clock(act_timeout=act, overage=bank))
    move = play(entrant.spec, obs, config, seed=seed, hidden=entrant.hidden)
    error = move.error
    if error is None and not (0 <= move.column < board.geo.columns and board.can_play(move.column)):
        error = f"column {move.column} is not a legal move"
    best = outcome_sign(score)
    start = time.perf_counter()
    outcome = mistake = check_error = None
    if error is not None:
        mistake = best >= 0  # an illegal move loses the game
    elif best < 0:
        mistake = False
    else:
        try:
            outcome = child_outcome(moves + str(move.column + 1), max_nodes=max_nodes)
            mistake = -outcome < best
        except SearchAborted:
            pass
        except Exception as failure:  # noqa: BLE001 - a broken checker leaves the move unchecked, said so
            check_error = f"{type(failure).__name__}: {failure}"
    return {
        "spec": entrant.text,
        "set": name,
        "moves": moves,
        "score": score,
        "column": None if error else move.column,
        "seconds": move.seconds,
        "bank": max(0.0, move.seconds - act),
        "stage": move.stage,
        "error": error,
        "leaks": list(move.leaks),
        "outcome": outcome,
        "mistake": mistake,
        "check_seconds": time.perf_counter() - start,
        "check_error": check_error,
    }


def time_rules(records: list[dict[str, Any]], act: float, bank: float) -> tuple[bool, str]:
    """Whether the moves of ``records`` keep the time rules (module docstring), and why not (or the
    rules kept): at most :data:`MAX_OVER_SHARE` of them over ``act`` seconds, none over
    :data:`MAX_MOVE_SECONDS`, none drawing more than :data:`MAX_BANK_SHARE` of the ``bank`` (s)."""
    n = len(records)
    over = sum(r["seconds"] > act for r in records)
    slowest = max((r["seconds"] for r in records), default=0.0)
    most_bank = max((r["bank"] for r in records), default=0.0)
    reasons = []
    if over > MAX_OVER_SHARE * n:
        reasons.append(f"{over} of {n} moves over {act:g} s, more than {MAX_OVER_SHARE:.0%}")
    if slowest > MAX_MOVE_SECONDS:
        reasons.append(f"a move took {slowest:.2f} s, over {MAX_MOVE_SECONDS:g} s")
    if most_bank > MAX_BANK_SHARE * bank:
        reasons.append(f"a position drew {most_bank:.2f} s of the {bank:g} s bank, over {MAX_BANK_SHARE:.0%}")
    timeouts = sum(r["bank"] > bank for r in records)
    if timeouts:
        reasons.append(f"{timeouts} moves ran out of bank (Kaggle's timeout)")
    if reasons:
        return False, "; ".join(reasons)
    return True, (
        f"at most {MAX_OVER_SHARE:.0%} of moves over {act:g} s, none over {MAX_MOVE_SECONDS:g} s, "
        f"no position over {MAX_BANK_SHARE:.0%} of the bank"
    )


HEADER = (
    f"{'set':6s} {'pos':>5s} {'checked':>7s} {'unchecked':>9s} {'mistakes':>8s} {'rate':>6s} {'95% CI':>12s} "
    f"{'>act':>6s} {'slowest':>7s} {'bank':>6s} {'AZ.jl':>6s} {'minimax5':>8s}  stages"
)
"""Columns of a set's row: positions played, checked, unchecked (node limit), mistakes, the rate
and its exact 95 % interval (%), the share of moves over ``actTimeout``, the slowest move (s), the
most bank one position drew (s), AlphaZero.jl's and depth-5 minimax's rates (%), the agent's stages."""


def set_row(name: str, records: list[dict[str, Any]], act: float) -> str:
    """The table row of set ``name`` (:data:`HEADER`)."""
    checked = [r for r in records if r["mistake"] is not None]
    mistakes = sum(bool(r["mistake"]) for r in checked)
    rate = 100 * mistakes / max(len(checked), 1)
    low, high = rate_interval(mistakes, len(checked))
    over = 100 * sum(r["seconds"] > act for r in records) / max(len(records), 1)
    slowest = max((r["seconds"] for r in records), default=0.0)
    most_bank = max((r["bank"] for r in records), default=0.0)
    stages = dict(Counter(r["stage"] for r in records).most_common())
    return (
        f"{name:6s} {len(records):5d} {len(checked):7d} {len(records) - len(checked):9d} {mistakes:8d} "
        f"{rate:5.1f}% {f'{low:.1f}-{high:.1f}%':>12s} {over:5.1f}% {slowest:7.2f} {most_bank:6.2f} "
        f"{ALPHAZERO_JL.get(name, float('nan')):5.1f}% {MINIMAX5.get(name, float('nan')):7.1f}%  {stages}"
    )


def final_line(spec: str, records: list[dict[str, Any]], act: float, bank: float) -> str:
    """The summary of a spec over every set it played: mistakes, moves over ``act``, slowest move,
    most bank, errors, and the verdict of :func:`time_rules`."""
    checked = sum(r["mistake"] is not None for r in records)
    mistakes = sum(bool(r["mistake"]) for r in records)
    over = sum(r["seconds"] > act for r in records)
    ok, why = time_rules(records, act, bank)
    extra = ""
    if errors := sum(r["error"] is not None for r in records):
        extra += f"; {errors} failed moves"
    if broken := sum(r["check_error"] is not None for r in records):
        extra += f"; {broken} checks failed (unchecked; --verbose or --json shows why)"
    if leaks := sorted({m for r in records for m in r["leaks"]}):
        extra += f"; project modules reached the file agent: {', '.join(leaks)}"
    return (
        f"{spec}: {mistakes} mistakes in {checked} checked ({len(records) - checked} unchecked); "
        f"moves over {act:g} s: {over} of {len(records)} ({100 * over / max(len(records), 1):.1f}%); "
        f"slowest {max((r['seconds'] for r in records), default=0.0):.2f} s; "
        f"most bank {max((r['bank'] for r in records), default=0.0):.2f} s{extra}; "
        f"time rules: {'yes' if ok else 'no'} ({why})"
    )


def samples(names: list[str], per_set: int | None, seed: int, data: Path) -> dict[str, list[tuple[str, int]]]:
    """The positions played of each set: all of them, or a sample of ``per_set`` drawn with
    ``random.Random(seed)`` (the same for every spec)."""
    out = {}
    for name in names:
        cases = read_set(name, data)
        if per_set is not None and per_set < len(cases):
            cases = random.Random(seed).sample(cases, per_set)
        out[name] = cases
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mistakes", description=__doc__.split("\n")[0])
    parser.add_argument("--spec", action="append", help="agent spec or .py file (repeatable; negamax)")
    parser.add_argument(
        "--numba",
        choices=("both", "with", "without"),
        default="both",
        help="a .py file plays with numba, "
        "without (numba and llvmlite hidden from it), or both (the default)",
    )
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated sets (default all six)")
    parser.add_argument("--per-set", type=int, default=None, help="seeded sample a set (default all 1,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--act", type=float, default=2.0, help="actTimeout, seconds")
    parser.add_argument("--bank", type=float, default=60.0, help="overage bank of each position, seconds")
    parser.add_argument("--max-nodes", type=int, default=MAX_NODES, help="node limit of a check")
    parser.add_argument("--workers", type=int, default=cores(), help="processes (0: this one)")
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside the agents (0)")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, help="write the per-position results here")
    parser.add_argument("--verbose", action="store_true", help="print every mistake and failed move")
    args = parser.parse_args(argv)

    specs = entrants([parse_spec(text) for text in args.spec or ["negamax"]], args.numba)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    positions = samples(names, args.per_set, args.seed, args.data)
    tasks = [
        (spec, name, moves, score, args.act, args.bank, args.max_nodes, args.seed + i)
        for spec in specs
        for name in names
        for i, (moves, score) in enumerate(positions[name])
    ]
    print(
        f"act {args.act:g} s, bank {args.bank:g} s a position, "
        f"{'all' if args.per_set is None else args.per_set} positions a set (seed {args.seed}), "
        f"{args.workers or 'no'} workers on {cores()} cores (fair timing needs a core a worker), "
        f"{args.busy} busy processes, node limit {args.max_nodes:,}",
        flush=True,
    )
    warm_up()  # compiled once here, inherited by the workers: no move pays for it
    started = time.perf_counter()
    results: list[dict[str, Any] | None] = [None] * len(tasks)
    printed = 0  # tasks whose set's row is printed (tasks come spec by spec, set by set)

    def report() -> None:
        nonlocal printed
        while printed < len(tasks):
            spec, name = tasks[printed][:2]
            end = printed + len(positions[name])
            if any(r is None for r in results[printed:end]):
                return
            if printed == 0 or tasks[printed - 1][0] is not spec:
                size = f", {Path(spec.spec.name).stat().st_size:,} bytes" if spec.spec.kind == "file" else ""
                print(f"\n{spec.text}{size}\n{HEADER}")
            for r in results[printed:end] if args.verbose else ():
                errors = [e.strip().splitlines()[-1] for e in (r["error"], r["check_error"]) if e]
                if r["mistake"] or errors:
                    played = [f"played {r['column'] + 1}"] if r["column"] is not None else []
                    print(f"  {r['moves']} (score {r['score']}): {', '.join(played + errors)}")
            print(set_row(name, results[printed:end], args.act), flush=True)
            printed = end
            if printed == len(tasks) or tasks[printed][0] is not spec:
                mine = [r for task, r in zip(tasks, results, strict=True) if task[0] is spec]
                print(final_line(spec.text, mine, args.act, args.bank), flush=True)

    try:
        with spinning(args.busy):
            if args.workers <= 0:
                for k, task in enumerate(tasks):
                    results[k] = run_position(*task)
                    report()
            else:
                with ProcessPoolExecutor(max_workers=args.workers) as pool:
                    futures = {pool.submit(run_position, *task): k for k, task in enumerate(tasks)}
                    try:
                        for future in as_completed(futures):
                            results[futures[future]] = future.result()
                            report()
                    except BaseException:
                        for future in futures:
                            future.cancel()
                        raise
    finally:
        close_players()
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            keys = ("act", "bank", "per_set", "seed", "workers", "busy", "max_nodes", "numba")
            out = {k: getattr(args, k) for k in keys} | {"specs": [s.text for s in specs], "sets": names}
            out["results"] = [r for r in results if r is not None]
            args.json.write_text(json.dumps(out))
    print(f"\n{len(tasks)} positions in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
