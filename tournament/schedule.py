"""Who plays whom: round-robin and gauntlet schedules of colour-swapped game pairs.

Every pairing is played as *game pairs*: one opening played twice with the colours swapped (game
``2k``: A first, game ``2k+1``: B first, both with the same opening and seed), so each pair is one
pentanomial sample. The r-th pair of every pairing plays the same opening
(:func:`tournament.openings.pair_openings`). Pairs are interleaved across pairings, so a tournament
stopped half-way is still balanced.
"""

from __future__ import annotations

import itertools
import os
import random
from dataclasses import dataclass, field

from tournament.openings import pair_openings

HUMAN = "human"
"""The entrant that is a person playing at the terminal (``connectx play``), not an agent spec. A store
of such games has the entrants ``(HUMAN, agent spec)``, ``games`` 1 and no openings; each finished game
is added as it is played, as a pair of its own (``pair_id`` equal to ``game_id``), so no pentanomial
is counted from them."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything that defines a tournament; two runs with equal settings play the same games.

    ``games`` is the number of games per colour per pairing, i.e. game pairs per pairing;
    ``act_timeout`` is seconds per move (Kaggle's ``actTimeout``); ``hang_limit`` optionally caps one
    move in seconds (None: Kaggle's own limit, ``actTimeout`` plus the remaining overage bank).
    ``openings`` are the openings the pairs draw from (0-based columns; empty: the empty board) and
    ``opening_source`` says where they came from (:func:`tournament.openings.resolve`). They are
    stored resolved, so a resumed run plays the same openings even if a file changed. ``sprt`` is
    ``(elo0, elo1, alpha, beta)`` for an SPRT match (``games`` is then its most pairs), else
    None.

    ``workers``, ``cores`` and ``toolkit`` (version and git commit, e.g. ``0.1.0 (git c61f79a)``) say
    how the run that created the tournament played it, for its report (on a Ray cluster: the games
    played at once there and the cluster's CPUs). They take no part in
    equality: a run resumed with other workers, on another machine or a newer toolkit plays the same
    tournament. Tournaments stored before these fields existed read them as None / "".
    """

    entrants: tuple[str, ...]
    games: int
    rows: int = 6
    columns: int = 7
    inarow: int = 4
    act_timeout: float = 2.0
    hang_limit: float | None = None
    seed: int = 1
    gauntlet: bool = False
    openings: tuple[tuple[int, ...], ...] = ()
    opening_source: str = "none"
    sprt: tuple[float, float, float, float] | None = None
    workers: int | None = field(default=None, compare=False)
    cores: int | None = field(default=None, compare=False)
    toolkit: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameTask:
    """One game to play: ``first`` (a spec) plays mark 1 against ``second``, from ``opening``
    (0-based columns the referee plays before the agents take over). Built by keyword only.

    ``game_id`` is the game's index in the schedule; games ``2k`` and ``2k+1`` of a pairing are one
    *game pair* ``pair_id = k`` (same opening and ``seed``, colours swapped). ``act_timeout`` and
    ``hang_limit`` are seconds (:class:`Settings`); ``seed`` seeds the game's random generators
    (a scheduled game's is :func:`pair_seed`).
    """

    game_id: int
    pair_id: int
    first: str
    second: str
    rows: int
    columns: int
    inarow: int
    act_timeout: float
    hang_limit: float | None
    seed: int
    opening: tuple[int, ...] = ()


def pair_seed(run_seed: int, pair_id: int) -> int:
    """The seed of game pair ``pair_id`` of a run seeded ``run_seed`` (:attr:`Settings.seed`), which
    both its games play with: 32 bits, in ``[0, 2**32)``, drawn from ``random.Random`` seeded with
    the string ``"run_seed:pair_id"``.

    A function of the pair's id alone, so a schedule is prefix-stable (:func:`schedule`), a ladder's
    adds (:mod:`tournament.ladder.driver`) and ``connectx play``'s games (each a pair of its own) go
    on where the stored games end, and a resumed run plays the same games.
    """
    return random.Random(f"{run_seed}:{pair_id}").getrandbits(32)


def single_game_settings(
    entrants: tuple[str, ...],
    *,
    rows: int,
    columns: int,
    inarow: int,
    act_timeout: float,
    toolkit: str = "",
    imported_from: str | None = None,
) -> Settings:
    """The settings of a run whose games are added one at a time, nothing scheduled (``games`` 1, no
    openings, each game a pair of its own): between ``entrants`` on a ``rows`` x ``columns`` board,
    ``inarow`` to win, ``act_timeout`` seconds a move, ``toolkit`` the toolkit that stores them.

    With ``imported_from`` None the games are played here, one at a time: ``connectx play`` (the
    entrants are :data:`HUMAN` and the agent) and the board page (:mod:`web.saving`); the run is a
    gauntlet seeded 1 (:func:`pair_seed` of a game's id seeds ``connectx play``'s games) on this
    machine's cores. Otherwise the games were played elsewhere and ``imported_from`` names where
    (its ``opening_source``, :data:`tournament.episodes.IMPORTED`): a round robin seeded 0, no workers
    or cores. Equal arguments give equal settings, so a run made before resumes with them.
    """
    here = imported_from is None
    return Settings(
        entrants=entrants,
        games=1,
        rows=rows,
        columns=columns,
        inarow=inarow,
        act_timeout=act_timeout,
        seed=1 if here else 0,
        gauntlet=here,
        opening_source="none" if imported_from is None else imported_from,
        workers=1 if here else None,
        cores=os.cpu_count() if here else None,
        toolkit=toolkit,
    )


def pairings(settings: Settings) -> list[tuple[str, str]]:
    """Round-robin: every unordered pair of entrants. Gauntlet: the first entrant against each other."""
    entrants = settings.entrants
    if settings.gauntlet:
        return [(entrants[0], other) for other in entrants[1:]]
    return list(itertools.combinations(entrants, 2))


def schedule(settings: Settings) -> list[GameTask]:
    """All games of the tournament, ``2 * games * len(pairings)`` of them, ids 0, 1, 2, ...

    Prefix-stable in ``games``: the pairs run round by round (every pairing's r-th pair before any
    (r+1)-th), a pair's seed depends on its id only and its opening on its round only
    (:func:`tournament.openings.pair_openings`), so the schedule of a larger ``games`` begins with
    that of a smaller one, game for game; :meth:`tournament.store.Store.create` extends a stored
    tournament on that.
    """
    tasks: list[GameTask] = []
    openings = pair_openings(settings.openings, settings.games, settings.seed)
    rounds = itertools.product(range(settings.games), pairings(settings))
    shared = ("rows", "columns", "inarow", "act_timeout", "hang_limit")  # every game plays by these
    rules = {name: getattr(settings, name) for name in shared}
    for pair_id, (round_, (a, b)) in enumerate(rounds):
        seed = pair_seed(settings.seed, pair_id)
        for first, second in ((a, b), (b, a)):
            tasks.append(
                GameTask(
                    game_id=len(tasks),
                    pair_id=pair_id,
                    first=first,
                    second=second,
                    seed=seed,
                    opening=openings[round_],
                    **rules,
                )
            )
    return tasks
