"""A tournament's settings from its options, and its opening and play: the one way of ``connectx
run``, ``connectx sprt`` and the Python API (:mod:`connectx.tournaments`).

:func:`match_settings` checks the options and builds the :class:`~tournament.schedule.Settings`
(raising :class:`TournamentError`, one sentence, before anything is written); :func:`opened` refuses a file
agent that does not load (:mod:`connectx.preflight`), joins the backend and opens or resumes the store
(:class:`tournament.driver.Tournament`); :func:`play` plays it, the solver compiled first when an
entrant uses it. The command line prints around them, the API runs them in a process of its own
(:mod:`connectx.background`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from agents.registry import SpecError, parse_spec, uses_solver
from connectx.options import AGENT_LIMITS, BOUNDS, MAX_SECONDS, flag, playable_board, range_error
from tournament.driver import Backend, BackendError, Event, Stop, Summary, Tournament
from tournament.openings import OpeningError, resolve
from tournament.schedule import Settings
from tournament.signals import sigterm_raises

__all__ = ["LIMITS", "MAX_GAMES", "TournamentError", "match_settings", "opened", "play"]

MAX_GAMES = 1_000_000
"""Most games one tournament may schedule (its schedule is built in memory: about 0.3 KB a game)."""

LIMITS: dict[str, tuple[float, float]] = {
    # destination: (lowest, highest) value; a lowest of 0.0 (a float) means "positive"
    **BOUNDS,  # act_timeout, workers, seed
    "games": (1, MAX_GAMES // 2),
    "max_games": (2, MAX_GAMES),
    "rows": (1, 100),
    "columns": (1, 100),
    "inarow": (1, 100),
    "hang_limit": (0.0, MAX_SECONDS),
    "opening_plies": (0, 100 * 100),
    **AGENT_LIMITS,  # agent_memory, agent_processes, agent_disk, agent_shm
}
"""Sane bounds of the numeric options, checked before anything is written; an SPRT's Elo, alpha and
beta are checked by :class:`reports.stats.sprt.Sprt` (finite, in range)."""

STANDARD = (6, 7, 4)
"""The only board the move analysis judges (the solved databases hold no other)."""


class TournamentError(ValueError):
    """A tournament that cannot be played as asked, in one sentence, raised before any game is played
    and with nothing written: an unknown agent, an option out of range, an impossible board, a file
    agent that does not load, a folder holding another tournament or held by another run."""


def match_settings(
    agents: Sequence[str],
    *,
    games: int,
    gauntlet: bool,
    rows: int,
    columns: int,
    inarow: int,
    act_timeout: float,
    hang_limit: float | None,
    seed: int,
    openings: str,
    opening_plies: int | None,
    sprt: tuple[float, float, float, float] | None = None,
    max_games: int | None = None,
    analyze: bool = False,
    numbers: Mapping[str, float | None] | None = None,
    name: Callable[[str], str] = flag,
) -> Settings:
    """The settings of a round-robin (or with ``gauntlet``, the first of ``agents`` against each
    other) of ``games`` game pairs a pairing, or with ``sprt`` (elo0, elo1, alpha, beta) an SPRT
    match of the two ``agents`` over at most ``max_games`` games; ``openings`` is ``auto``, ``drawn``,
    ``none`` or a file, ``opening_plies`` random openings instead; ``analyze`` asks for the move
    analysis, which needs the standard board. ``numbers`` holds further options to check against
    :data:`LIMITS` (the agents' limits, workers); ``name(dest)`` is how an option is spelt in a
    message (``--agent-memory`` by default).

    Raises :class:`TournamentError` (one sentence) when an agent is unknown or listed twice, an option is out
    of range, the board is impossible, the openings cannot be made, or too many games are asked.
    """
    values = {
        "games": games, "rows": rows, "columns": columns, "inarow": inarow, "act_timeout": act_timeout,
        "hang_limit": hang_limit, "seed": seed, "opening_plies": opening_plies, "max_games": max_games,
        **(numbers or {}),
    }  # fmt: skip
    why = range_error(values, LIMITS, name)
    if why is not None:
        raise TournamentError(why)
    try:
        specs = [parse_spec(text).text for text in agents]
    except SpecError as error:
        raise TournamentError(str(error)) from None
    geo = playable_board(rows, columns, inarow, name)
    if isinstance(geo, str):
        raise TournamentError(geo)
    if len(set(specs)) != len(specs):
        raise TournamentError("an entrant is listed twice")
    if len(specs) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    if sprt is not None:
        from reports.stats.sprt import Sprt

        try:
            Sprt(*sprt)
        except ValueError as error:
            raise TournamentError(str(error)) from None
        assert max_games is not None, "an SPRT stops after max_games"
        games, gauntlet = max_games // 2, False
    pairings = len(specs) - 1 if gauntlet else len(specs) * (len(specs) - 1) // 2
    if 2 * games * pairings > MAX_GAMES:
        raise TournamentError(
            f"{len(specs)} entrants with {name('games')} {games:,} make {2 * games * pairings:,} games; "
            f"at most {MAX_GAMES:,} a tournament"
        )
    source = openings
    if opening_plies is not None:
        if source != "auto":
            raise TournamentError(f"{name('opening_plies')} and {name('openings')} exclude each other")
        source = f"plies={opening_plies}"
    try:
        description, chosen = resolve(source, geo, pairs=games, seed=seed)
    except OpeningError as error:
        raise TournamentError(str(error)) from None
    if analyze and (rows, columns, inarow) != STANDARD:
        raise TournamentError(
            f"{name('analyze')} needs the standard 6x7 board with 4 in a row (the solved databases hold no "
            f"other), not {rows}x{columns} with {inarow} in a row"
        )
    return Settings(
        entrants=tuple(specs), games=games, rows=rows, columns=columns, inarow=inarow,
        act_timeout=act_timeout, hang_limit=hang_limit, seed=seed, gauntlet=gauntlet,
        openings=chosen, opening_source=description, sprt=sprt,
    )  # fmt: skip


@contextlib.contextmanager
def opened(
    out: Path, settings: Settings, backend: Backend, *, overwrite: bool, allow_broken: bool
) -> Iterator[Tournament]:
    """The tournament of ``settings`` in ``out``, open for :func:`play` within the block: each file
    agent loaded first as Kaggle loads it (refused unless ``allow_broken``), the backend joined, the
    store created or resumed (``overwrite`` replaces another tournament stored there).

    Raises :class:`TournamentError` (a file agent that does not load, a backend that cannot play) or
    :class:`tournament.store.StoreError` (the folder cannot hold this run), before any game."""
    from connectx.preflight import refusal
    from reports.provenance import toolkit_version

    if not allow_broken:
        why = refusal(settings, backend.limits)
        if why is not None:
            raise TournamentError(why)
    settings = dataclasses.replace(settings, toolkit=toolkit_version())  # for the report, as workers
    try:
        tournament = Tournament(out, settings, backend, overwrite=overwrite).__enter__()
    except BackendError as error:
        raise TournamentError(str(error)) from None
    try:
        yield tournament
    finally:
        tournament.__exit__(None, None, None)


def play(tournament: Tournament, stop: Stop | None, on_event: Callable[[Event], None]) -> Summary:
    """Play ``tournament`` until its schedule or ``stop`` ends it, telling ``on_event`` of each game
    (:meth:`tournament.driver.Tournament.play`), the exact solver compiled first when an entrant uses
    it on this machine. SIGTERM raises :class:`tournament.signals.Terminated` meanwhile, as Ctrl-C
    raises ``KeyboardInterrupt``; either way the games stored stay."""
    with sigterm_raises():  # Tournament.play's own covers the games; this, the compile too
        if tournament.backend.name == "local" and any(
            uses_solver(spec) for spec in tournament.settings.entrants
        ):
            from connectx.solving import compile_solver

            compile_solver()  # after the first lines, and before the bar, whose clock it would stop
        return tournament.play(stop, on_event)
