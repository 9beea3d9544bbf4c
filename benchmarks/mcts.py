"""Speed and strength of ``mcts`` (the PUCT search of :mod:`agents.engine.puct` with random rollouts).

Usage: ``python -m benchmarks.mcts [--seconds 1] [--pairs 0]``

Prints the simulations (one random rollout each, unless they end in a proven position) a second from
a few 6x7 positions, then, with ``--pairs N``, plays N game pairs against ``one_step`` (each pair:
one opening of the built-in balanced suite, colours swapped) in-process through
:func:`agents.kit.player.play_game`, with ``mcts`` given ``--seconds`` a move, and prints its score.
Tournaments through the referee measure the same with ``connectx run --agents mcts one_step``.
"""

from __future__ import annotations

import argparse
import time

from agents.engine.board import Board, geometry
from agents.kit.adapter import as_player
from agents.kit.clock import Clock
from agents.kit.player import play_game
from agents.mcts import Mcts
from agents.registry import load_agent, parse_spec
from tournament.openings import check, pair_openings, resolve

POSITIONS = {
    "empty board": "",
    "ply 6": "444355",
    "ply 15": "274552224131661",
    "ply 18": "274552224131661457",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mcts", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds a move for mcts")
    parser.add_argument("--pairs", type=int, default=0, help="game pairs against one_step (default none)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{'position':14s} {'simulations':>11s} {'per second':>11s}")
    for name, moves in POSITIONS.items():
        player = Mcts(seconds=args.seconds, seed=args.seed)
        move = player.play(Board.from_moves(moves), Clock())
        done, seconds = move.simulations, move.seconds
        print(f"{name:14s} {done:11,d} {done / seconds:11,.0f}", flush=True)
    if args.pairs:
        geo = geometry(6, 7, 4)
        _, suite = resolve("auto", geo, pairs=args.pairs, seed=args.seed)
        score = 0.0
        began = time.perf_counter()
        for k, opening in enumerate(pair_openings(suite, args.pairs, args.seed)):
            for mcts_first in (True, False):
                mcts = Mcts(seconds=args.seconds, seed=args.seed + k)
                other = as_player(load_agent(parse_spec(f"one_step:seed={args.seed + k}")))
                players = [mcts, other] if mcts_first else [other, mcts]
                result = play_game(players, check(opening, geo)).result
                score += result if mcts_first else 1.0 - result
        games = 2 * args.pairs
        print(
            f"mcts ({args.seconds:g} s a move) vs one_step: {score:g} / {games} "
            f"({100 * score / games:.1f} %) in {time.perf_counter() - began:.0f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
