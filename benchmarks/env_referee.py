"""``ConnectXEnv`` against kaggle-environments' referee: the same games, the same results.

``python -m benchmarks.env_referee --games 1000 --opponent negamax`` plays ``--games`` episodes of
:class:`training.envs.ConnectXEnv` in which the learner plays uniformly random columns -- full ones
too, so some episodes end on the learner's invalid move -- against the opponent, the learner's colour
alternating, from the empty board (or from random openings of ``--opening-plies`` plies, which the
referee then plays first for both sides, as a tournament plays its openings).

Each game is then played again by kaggle-environments' referee (``kaggle_environments.make("connectx")
.run``) between a scripted agent that returns the learner's columns and a fresh copy of the opponent,
made with the same seed and called by the referee itself. The referee's game must have the same moves
(so the opponent answered the environment as it answers the referee) and give the learner the same
result (its final status and reward: a win, a loss, a draw, or its forfeit by INVALID). Prints the
games that differ, and the count.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.engine.board import Board, Geometry, geometry
from agents.registry import parse_spec
from training.envs import ConnectXEnv
from training.envs.opponent import kaggle_callable

__all__ = ["Game", "compare", "play_random_games", "referee_game"]


@dataclass(frozen=True, slots=True)
class Game:
    """A game as the environment or the referee ended it.

    ``moves``: the 0-based columns played, the opening's included, the learner's invalid one not;
    ``learner``: its mark; ``result``: 1.0 win, 0.5 draw, 0.0 loss, for the learner; ``termination``:
    ``win``, ``draw``, ``invalid``, ...; ``seed``: the opponent's; ``last``: the learner's invalid
    column, if it forfeited; ``opening``: the opening's plies."""

    moves: tuple[int, ...]
    learner: int
    result: float
    termination: str
    seed: int
    last: int | None = None
    opening: int = 0


def random_opening(rng: np.random.Generator, geo: Geometry, plies: int) -> list[int]:
    """``plies`` uniformly random moves (drawn from ``rng``) after which the game goes on."""
    while True:
        board = Board(geo.rows, geo.columns, geo.inarow)
        while board.ply < plies and not board.is_game_over():
            legal = board.legal_moves()
            board.push(legal[int(rng.integers(len(legal)))])
        if not board.is_game_over():
            return list(board.moves)


def play_random_games(
    games: int,
    opponent: str,
    *,
    seed: int = 0,
    opening_plies: int = 0,
    rows: int = 6,
    columns: int = 7,
    inarow: int = 4,
) -> Iterator[Game]:
    """``games`` episodes of a uniformly random learner against ``opponent`` (a spec), colours
    alternating, from random openings of ``opening_plies`` plies, each ending in a :class:`Game`."""
    geo = geometry(rows, columns, inarow)
    openings = (lambda rng: random_opening(rng, geo, opening_plies)) if opening_plies else None
    env = ConnectXEnv(rows, columns, inarow, opponent=opponent, mark="alternate", openings=openings)
    seeds: list[int] = []
    original = env.opponent.new_game

    def remember(game_seed: int, mark: int = 2) -> None:  # the seed the environment gives the opponent
        seeds.append(game_seed)
        original(game_seed, mark)

    env.opponent.new_game = remember  # type: ignore[method-assign]
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for n in range(games):
        if n:
            env.reset()
        done, info, action = False, {}, 0
        while not done:
            action = int(rng.integers(columns))
            _, _, done, _, info = env.step(action)
        last = action if info["offender"] == "learner" else None
        result, termination = info["result"], info["termination"]
        yield Game(info["moves"], info["mark"], result, termination, seeds[-1], last, opening_plies)


def referee_game(game: Game, opponent: str, *, rows: int = 6, columns: int = 7, inarow: int = 4) -> Game:
    """``game`` played again by kaggle-environments' referee: the learner's columns scripted, the
    opponent a fresh agent of the spec made with the game's seed."""
    from tournament.environments import make  # kaggle_environments

    learner_moves = [
        m for ply, m in enumerate(game.moves) if ply >= game.opening and ply % 2 == game.learner - 1
    ]
    if game.last is not None:
        learner_moves.append(game.last)
    script = iter(learner_moves)

    def learner(obs: Any, config: Any) -> int:
        return next(script)

    agent = kaggle_callable(parse_spec(opponent), game.seed)
    agents = [learner, agent] if game.learner == 1 else [agent, learner]
    env = make("connectx", configuration={"rows": rows, "columns": columns, "inarow": inarow})
    for ply, column in enumerate(game.moves[: game.opening]):  # as tournament.game plays an opening
        actions: list[int | None] = [None, None]
        actions[ply % 2] = column
        env.step(actions)
    steps = env.run(agents)  # every step since the reset, the opening's too
    moves = []
    for before, after in zip(steps, steps[1:], strict=False):
        changed = [
            i
            for i, (a, b) in enumerate(
                zip(before[0].observation.board, after[0].observation.board, strict=True)
            )
            if a != b
        ]
        moves.extend(i % columns for i in changed)
    final = steps[-1][game.learner - 1]
    if final.status == "INVALID":
        result, termination = 0.0, "invalid"
    elif final.status == "DONE" and final.reward == 0:
        result, termination = 0.5, "draw"
    else:
        result, termination = (1.0 if final.reward == 1 else 0.0), f"{final.status} {final.reward}"
        termination = "win" if final.status == "DONE" else termination
    return Game(tuple(moves), game.learner, result, termination, game.seed, game.last, game.opening)


def compare(games: Sequence[Game], opponent: str, **board: int) -> list[tuple[Game, Game]]:
    """The games whose replay by the referee differs in moves, result or termination: pairs
    ``(environment's, referee's)``."""
    differ = []
    for game in games:
        replay = referee_game(game, opponent, **board)
        if (replay.moves, replay.result, replay.termination) != (game.moves, game.result, game.termination):
            differ.append((game, replay))
    return differ


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.env_referee", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--opponent", default="negamax")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opening-plies", type=int, default=0, help="random openings of this many plies")
    args = parser.parse_args(argv)
    games = list(
        play_random_games(args.games, args.opponent, seed=args.seed, opening_plies=args.opening_plies)
    )
    differ = compare(games, args.opponent)
    for game, replay in differ:
        print(f"differs: environment {game} / referee {replay}")
    kinds: dict[str, int] = {}
    for game in games:
        kinds[game.termination] = kinds.get(game.termination, 0) + 1
    learner_wins = sum(game.result == 1.0 for game in games)
    print(
        f"{len(games)} games against {args.opponent} (endings {kinds}, learner won {learner_wins}): "
        f"{len(games) - len(differ)} the same through the referee, {len(differ)} different"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
