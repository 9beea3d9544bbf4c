"""How many game pairs a ladder's ``add`` needs to rate a newcomer to ±E Elo, by matchmaking rule and
by the newcomer's strength, in a world of known ratings; and how often its interval then holds the
truth.

The field is the members of a seeded ladder (``--ladder``, made by ``connectx ladder init
--builtins``: the 14 agents of the default round robin). Their true ratings are the maximum-likelihood
ratings of every game of the ladders ``--truth`` names (by default ``--ladder`` alone). An agent with
an unbounded rating (it won or lost every game) keeps winning (losing) every game against the
others, as negamax, a perfect player, does; it is put 150 Elo beyond its one-sided bound for games
among its kind. The newcomers' true ratings (``--offsets``) run from below ``random`` to above every
finitely rated member: -1000, -400, 0, +400 and +1000 Elo relative to the mean of the rated members
(the ladder's scale). Two worlds:

* ``real``: the ladder's own games, and the newcomer's games drawn from the true ratings;
* ``synthetic``: the seeding round robin drawn too (as many game pairs a pairing as the ladder's, or
  ``--seed-pairs``), so that every game comes from the truth and the final interval's coverage can be
  counted.

Each run adds a newcomer as :class:`tournament.ladder.driver.Ladder.add` does: ``--at-once`` game
pairs planned at once (the ladder's workers; two on two cores), each game drawn from the trinomial of
BayesElo's draw model at the true difference (:func:`chance`; the two games of a pair independently,
so that pairs follow the pentanomial they make), planned by :func:`tournament.ladder.matchmaking.choose`
from :class:`reports.stats.ladder.LadderRater`'s outlook and stopped by the same rule on the same
fit (the 95 % interval of the joint fit within ±E, at most ``--max-pairs`` pairs). ``information``
is the ladder's rule, ``uniform`` a gauntlet against every member in turn. Printed per rule and true
rating: the game pairs to stop (median and quartiles over the runs), the runs that hit the cap, the
median reach of the final interval, and (synthetic world) the share of runs whose final interval
held the newcomer's true rating relative to the true mean of the rated pool.

    python -m benchmarks.ladder_matchmaking --ladder ladder [--runs 20] [--until 60] [--max-pairs 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.special import expit

from reports.stats.ladder import LadderRater
from reports.stats.ratings import ELO_PER_NAT, rate
from reports.stats.tally import head_to_head, pentanomials
from tournament.ladder import Ladder
from tournament.ladder.driver import reach
from tournament.ladder.matchmaking import choose
from tournament.record import GameRecord, Termination
from tournament.schedule import GameTask

NEWCOMER = "newcomer@1"
OFFSETS = (-1000.0, -400.0, 0.0, 400.0, 1000.0)
"""True ratings of the newcomers, Elo on the ladder's scale (pool mean 0): from below ``random`` to
above every finitely rated member."""
DRAW_ELO = 10.0
"""The draw margin of the trinomial game model (BayesElo's ``drawelo``): a game between equals is drawn
3 % of the time, fewer between unequal players (3 of the built-in seeding's 364 games were drawn)."""


def truth_of(records: list[GameRecord], members: list[str]) -> tuple[dict[str, float], dict[str, int]]:
    """The true ratings of ``members``, the mean of the finite ones at 0 as the ladder's scale has it,
    and the side each is on: 0 for a finite ML rating, +1 (-1) for an agent that won (lost) every game
    against the rated members, which keeps doing so against every agent of another side (negamax
    plays perfectly; the logistic curve would let it lose now and then); its rating, 150 Elo beyond
    its one-sided bound, counts only against agents of its own side."""
    truth, side = {}, {}
    for r in rate(head_to_head(records), pentanomials(records)):
        side[r.name] = 0 if r.is_finite else int(math.copysign(1, r.elo))
        truth[r.name] = r.elo if r.is_finite else (r.low + 150) if r.elo > 0 else (r.high - 150)
    centre = np.mean([truth[name] for name in members if side[name] == 0])
    return {name: truth[name] - centre for name in members}, {name: side[name] for name in members}


def chance(a: float, b: float, side_a: int = 0, side_b: int = 0) -> tuple[float, float]:
    """The chances that an agent rated ``a`` on side ``side_a`` wins and draws a game against one rated
    ``b`` on ``side_b`` (:func:`truth_of`): the trinomial of BayesElo's draw model, ``win = F(d -
    DRAW_ELO)``, ``loss = F(-d - DRAW_ELO)`` with ``F`` the logistic Elo curve (Coulom, BayesElo)."""
    if side_a != side_b:
        return (1.0, 0.0) if side_a > side_b else (0.0, 0.0)
    win, loss = (float(expit((d - DRAW_ELO) / ELO_PER_NAT)) for d in (a - b, b - a))
    return win, 1.0 - win - loss


def gathered(ladders: list[Path]) -> list[GameRecord]:
    """The games of every ladder of ``ladders`` (copies of one seeded ladder: a game they share counts
    once), the pairs of each numbered apart so that no two ladders' pairs count as one."""
    out: list[GameRecord] = []
    seen: set[tuple] = set()
    for ladder in ladders:
        base = 1 + max((r.pair_id for r in out), default=-1)
        for r in Ladder(ladder).records():
            if (r.task, r.moves) not in seen:
                seen.add((r.task, r.moves))
                out.append(dataclasses.replace(r, task=dataclasses.replace(r.task, pair_id=r.pair_id + base)))
    return out


def pair(
    game_id: int, a: str, b: str, chances: tuple[float, float], rng: np.random.Generator
) -> list[GameRecord]:
    """A game pair of ``a`` against ``b``, each game won by ``a`` and drawn with the ``chances``
    (:func:`chance`), the two independently: the pair's score follows the pentanomial they make."""
    win, draw = chances
    out = []
    for k, (first, second) in enumerate(((a, b), (b, a))):
        u = rng.random()
        points = 1.0 if u < win else 0.5 if u < win + draw else 0.0
        result = points if first == a else 1.0 - points
        task = GameTask(
            game_id=game_id + k,
            pair_id=game_id // 2,
            first=first,
            second=second,
            rows=6,
            columns=7,
            inarow=4,
            act_timeout=2.0,
            hang_limit=None,
            seed=0,
        )
        termination = Termination.DRAW if result == 0.5 else Termination.WIN
        out.append(GameRecord(task=task, moves=(), move_times=(), result=result, termination=termination))
    return out


def seeding(
    truth: dict[str, float], side: dict[str, int], pairs: int, rng: np.random.Generator
) -> list[GameRecord]:
    """A round robin of ``pairs`` game pairs a pairing drawn from ``truth`` and ``side``."""
    names = sorted(truth)
    records: list[GameRecord] = []
    for _ in range(pairs):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                records += pair(len(records), a, b, chance(truth[a], truth[b], side[a], side[b]), rng)
    return records


def add(
    records: list[GameRecord], truth: dict[str, float], side: dict[str, int], rating: float, rule: str,
    until: float, cap: int, rng: np.random.Generator, at_once: int = 2,
) -> tuple[int, float, float, float]:  # fmt: skip
    """One add as the ladder plays it, of a newcomer rated ``rating`` in truth: the games it played,
    and its final Elo and 95 % interval (low, high)."""
    rater = LadderRater()
    members = sorted(truth)
    games: list[GameRecord] = []
    met: Counter[str] = Counter()
    while True:
        everything = records + games
        margin = reach(*rater.standing(everything, NEWCOMER)) if games else math.inf
        if margin <= until or len(games) // 2 >= cap:
            break
        outlook = rater.outlook(everything, NEWCOMER) if rule == "information" else None
        for opponent in choose(
            outlook, NEWCOMER, members, min(at_once, cap - len(games) // 2), rule=rule, pairs=met
        ):
            p = chance(rating, truth[opponent], 0, side[opponent])
            games += pair(len(everything) + len(games), NEWCOMER, opponent, p, rng)
            met[opponent] += 1
    final = next(
        r for r in rate(head_to_head(records + games), pentanomials(records + games)) if r.name == NEWCOMER
    )
    return len(games), final.elo, final.low, final.high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ladder", type=Path, default=Path("ladder"))
    parser.add_argument("--truth", type=Path, nargs="+", default=None, metavar="LADDER")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--until", type=float, default=60.0)
    parser.add_argument("--max-pairs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--at-once", type=int, default=2, metavar="N", help="pairs planned at once (workers)")
    parser.add_argument("--worlds", nargs="+", default=["real", "synthetic"])
    parser.add_argument("--offsets", type=float, nargs="+", default=list(OFFSETS), metavar="ELO")
    parser.add_argument("--rules", nargs="+", default=["information", "uniform"])
    parser.add_argument(
        "--seed-pairs",
        type=int,
        default=None,
        metavar="N",
        help="synthetic seeding pairs (default: the ladder's)",
    )
    args = parser.parse_args()
    ladder = Ladder(args.ladder)
    real = ladder.records()
    members = ladder.roster().ids
    truth, side = truth_of(gathered(args.truth) if args.truth else real, members)
    seed_pairs = args.seed_pairs or ladder.roster().sessions[0].pairs
    print(f"field: {', '.join(f'{n} {e:+.0f}' for n, e in sorted(truth.items(), key=lambda kv: -kv[1]))}")
    stop = f"95 % interval within ±{args.until:g} Elo, at most {args.max_pairs} pairs"
    print(f"stop: {stop}; {args.runs} runs each")
    rng = np.random.default_rng(args.seed)
    for world in args.worlds:
        for offset in args.offsets:
            for rule in args.rules:
                began, counts, margins, capped, covered = time.perf_counter(), [], [], 0, 0
                for _ in range(args.runs):
                    records = real if world == "real" else seeding(truth, side, seed_pairs, rng)
                    games, elo, low, high = add(
                        records, truth, side, offset, rule, args.until, args.max_pairs, rng, args.at_once
                    )
                    counts.append(games // 2)
                    margins.append(max(elo - low, high - elo) if math.isfinite(elo) else math.inf)
                    capped += games // 2 >= args.max_pairs
                    if world == "synthetic":  # the truth on the fit's scale: minus the true mean of its pool
                        pool = [r.name for r in rate(head_to_head(records)) if r.is_finite] + [NEWCOMER]
                        centre = np.mean([truth.get(name, offset) for name in pool])
                        covered += low <= offset - centre <= high
                q1, median, q3 = np.percentile(counts, [25, 50, 75])
                world_name = world if world == "real" else f"{world} ({seed_pairs} pairs)"
                line = (f"{world_name:9s} newcomer {offset:+5.0f}  {rule:11s} pairs median {median:3.0f} "
                        f"(quartiles {q1:.0f}-{q3:.0f}), capped {capped}/{args.runs}, "
                        f"final ±{np.median(margins):.0f} median")  # fmt: skip
                if world == "synthetic":
                    line += f", interval held the truth {covered}/{args.runs}"
                print(f"{line}  [{time.perf_counter() - began:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
