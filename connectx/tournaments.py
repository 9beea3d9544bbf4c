"""Tournaments, SPRT matches and the move analysis from Python: :func:`tournament`, :func:`sprt`,
:func:`analyze`, each returning a :class:`~connectx.tournament_result.Result`.

They are ``connectx run``, ``connectx sprt`` and ``connectx analyze`` with the same options, defaults
and checks (:func:`connectx.runs.match_settings`), played by the same driver
(:func:`connectx.runs.opened`, :func:`connectx.runs.play`) in a process of their own
(:mod:`connectx.background`: a notebook's kernel is never forked), with a ``tqdm.auto`` bar.

* ``out=None`` keeps the run in a temporary folder, removed when its Result goes; ``out=FOLDER`` keeps
  it there, and a second call with the same arguments resumes it, playing only the games not stored
  (a folder holding another tournament is refused, unless ``overwrite=True``).
* Bad input raises :class:`~connectx.runs.TournamentError` (a ValueError), one sentence, before any game,
  with nothing written; an agent that cannot be played or sent into its sandbox (a callable referring
  to an open file, a lock, a socket...) raises :class:`~connectx.entrants.AgentError` (a ValueError)
  naming the object, likewise (:func:`connectx.entrants.entrant_specs`).
* Interrupting (Ctrl-C, the kernel's interrupt) stops the games in flight and raises
  :class:`~connectx.background.RunInterrupted` (a KeyboardInterrupt) once every process of the run is
  gone; the games finished are stored, its ``result`` shows them, and with ``out=`` the same call
  again plays only the rest.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, Literal

from agents.kit.clock import DEFAULT_ACT_TIMEOUT
from connectx.background import (
    GameNotStored,
    GamesJudged,
    GameStored,
    Job,
    Message,
    RunBegun,
    RunInterrupted,
    RunRefused,
    run,
)
from connectx.entrants import AgentError, entrant_specs
from connectx.runs import AGENT_LIMITS, TournamentError, match_settings
from connectx.tournament_result import Result
from tournament.limits import Limits
from tournament.store import StoreError

__all__ = ["AgentLike", "RunInterrupted", "Result", "TournamentError", "analyze", "sprt", "tournament"]

AgentLike = str | os.PathLike[str] | Callable[..., Any]
"""An agent as the API takes it: a spec string (``"negamax:depth=4"``, ``connectx agents`` lists
them), a ``.py`` file's path, or an ``agent(obs, config)`` callable (played sandboxed, as a file is)."""

_LIMITS = Limits()


def tournament(
    agents: Sequence[AgentLike] | None = None,
    *,
    games: int = 2,
    gauntlet: AgentLike | None = None,
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    rows: int = 6,
    columns: int = 7,
    inarow: int = 4,
    act_timeout: float = DEFAULT_ACT_TIMEOUT,
    hang_limit: float | None = None,
    openings: str | os.PathLike[str] = "auto",
    opening_plies: int | None = None,
    workers: int | None = None,
    backend: Literal["local", "ray"] = "local",
    address: str | None = None,
    agent_memory: int = _LIMITS.memory_mb or 0,
    agent_processes: int = _LIMITS.processes,
    agent_disk: int = _LIMITS.disk_mb,
    agent_shm: int = _LIMITS.shm_mb,
    overwrite: bool = False,
    allow_broken: bool = False,
    analyze: bool = False,
    progress: bool = True,
) -> Result:
    """Play a round-robin of ``agents`` (default: every built-in agent), ``games`` game pairs a
    pairing (one opening, colours swapped: ``2 * games`` games), or with ``gauntlet`` that agent
    against each of ``agents``; return its :class:`~connectx.tournament_result.Result`.

    The options are ``connectx run``'s: the board (``rows`` x ``columns``, ``inarow`` to win),
    ``act_timeout`` (Kaggle's actTimeout, seconds a move before the 60 s overage bank is drawn on),
    ``hang_limit`` (seconds after which a move is a TIMEOUT at once), ``openings`` (``"auto"``,
    ``"drawn"``, ``"none"`` or a file of move strings) or ``opening_plies`` (seeded random openings),
    ``workers`` (games at once; default the cores), ``backend``/``address`` (a Ray cluster), the agents'
    limits in MiB or processes (``agent_memory`` 0: none), ``overwrite``, ``allow_broken`` (play a
    file agent that does not load), ``analyze`` (judge every move after, on the 6x7 board only; a
    warning says why when the games cannot be judged);
    ``out``, the module docstring; ``progress``: a ``tqdm.auto`` bar of the games played.

    Raises :class:`~connectx.runs.TournamentError` before any game,
    :class:`~connectx.background.RunInterrupted` when interrupted (module docstring).

    >>> result = connectx.tournament(["leftmost", "random"], games=1)  # doctest: +SKIP
    >>> len(result.games), list(result.standings.agent)  # doctest: +SKIP
    (2, ['leftmost', 'random'])
    """
    if isinstance(gauntlet, bool):
        raise TournamentError("gauntlet= takes the agent that plays every other one (the rest do not meet)")
    if isinstance(agents, str | os.PathLike) or callable(agents):
        raise TournamentError("agents= takes a list of agents, such as ['negamax', 'random']")
    listed: list[AgentLike] = list(agents) if agents is not None else list(_default_entrants())
    if gauntlet is not None:
        listed.insert(0, gauntlet)
    return _play(
        listed,
        out,
        dict(games=games, gauntlet=gauntlet is not None),
        locals(),
    )


def sprt(
    a: AgentLike,
    b: AgentLike,
    *,
    elo0: float = 0.0,
    elo1: float = 10.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 20000,
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    rows: int = 6,
    columns: int = 7,
    inarow: int = 4,
    act_timeout: float = DEFAULT_ACT_TIMEOUT,
    hang_limit: float | None = None,
    openings: str | os.PathLike[str] = "auto",
    opening_plies: int | None = None,
    workers: int | None = None,
    backend: Literal["local", "ray"] = "local",
    address: str | None = None,
    agent_memory: int = _LIMITS.memory_mb or 0,
    agent_processes: int = _LIMITS.processes,
    agent_disk: int = _LIMITS.disk_mb,
    agent_shm: int = _LIMITS.shm_mb,
    overwrite: bool = False,
    allow_broken: bool = False,
    analyze: bool = False,
    progress: bool = True,
) -> Result:
    """Play game pairs of ``a`` against ``b`` until the generalized SPRT on the pentanomial counts
    accepts H0 (``a`` at most ``elo0`` Elo stronger than ``b``) or H1 (at least ``elo1``), with false
    positive rate ``alpha`` and false negative rate ``beta``, as fastchess does, or ``max_games`` are
    played; return the :class:`~connectx.tournament_result.Result` (``.decision``: ``"H0"``, ``"H1"``
    or None). Elo is logistic Elo. The other options are :func:`tournament`'s; the bar shows the
    games played and the log-likelihood ratio between its bounds.

    Raises as :func:`tournament` does (TournamentError for Elo bounds, alpha or beta out of range too).

    >>> connectx.sprt("negamax", "random", elo1=200).decision  # doctest: +SKIP
    'H1'
    """
    return _play([a, b], out, dict(games=1, gauntlet=False, sprt=(elo0, elo1, alpha, beta),
                                   max_games=max_games), locals())  # fmt: skip


def analyze(
    result: Result | str | os.PathLike[str], *, workers: int | None = None, progress: bool = True
) -> Result:
    """Judge every move of a stored run (a :class:`~connectx.tournament_result.Result` or its
    folder) against perfect play, writing its ``moves.csv`` as ``connectx analyze`` does; return the
    run's Result again, now with :attr:`~connectx.tournament_result.Result.moves` (6x7 boards with
    4 in a row only; a Result read before keeps what it read). ``workers``: processes judging games
    (default the cores).

    Raises :class:`~connectx.runs.TournamentError` when there is no run there, no game yet, or the games
    cannot be judged (another board); :class:`~connectx.background.RunInterrupted` when interrupted.

    >>> connectx.analyze(result).moves.verdict.value_counts()  # doctest: +SKIP
    """
    keep = result._keep if isinstance(result, Result) else None
    path = result.path if isinstance(result, Result) else Path(result)
    if workers is not None and not 1 <= workers <= 256:
        raise TournamentError(f"workers must be >= 1 and <= 256, got {workers!r}")
    shown = _Bar(progress)
    try:
        ended = run(Job("analyze", path, workers=workers, path=tuple(sys.path)), shown)
    finally:
        shown.close()
    if isinstance(ended, RunRefused):
        raise TournamentError(_keywords(ended.text))
    return Result(path, keep=keep)


def _default_entrants() -> tuple[str, ...]:
    from agents.registry import DEFAULT_ENTRANTS

    return tuple(DEFAULT_ENTRANTS)


def _play(agents: list[AgentLike], out: str | os.PathLike[str] | None, kind: dict[str, Any],
          options: dict[str, Any]) -> Result:  # fmt: skip
    """Play the tournament or SPRT of ``agents`` with the ``options`` of :func:`tournament` or
    :func:`sprt` (their locals) and the ``kind`` (games, gauntlet, sprt, max_games)."""
    from tournament.driver import Backend

    keep = TemporaryDirectory(prefix="connectx-") if out is None else None
    folder = Path(keep.name if keep is not None else out).absolute()  # type: ignore[arg-type]
    limits = {dest: options[dest] for dest in AGENT_LIMITS}
    with _undone_on_error(folder):
        specs = entrant_specs(agents, folder)
        settings = match_settings(
            specs, **kind, rows=options["rows"], columns=options["columns"], inarow=options["inarow"],
            act_timeout=options["act_timeout"], hang_limit=options["hang_limit"], seed=options["seed"],
            openings=os.fspath(options["openings"]), opening_plies=options["opening_plies"],
            analyze=options["analyze"], numbers={"workers": options["workers"], **limits}, name=str,
        )  # fmt: skip
        if options["address"] is not None and options["backend"] != "ray":
            raise TournamentError("address needs backend='ray'")
        backend = Backend(options["backend"], options["workers"], options["address"],
                          Limits(limits["agent_memory"] or None, limits["agent_processes"],
                                 limits["agent_disk"], limits["agent_shm"]))  # fmt: skip
        job = Job("play", folder, settings, backend, overwrite=options["overwrite"],
                  allow_broken=options["allow_broken"], analyze=options["analyze"],
                  path=tuple(sys.path))  # fmt: skip
        shown = _Bar(options["progress"])
        try:
            ended = run(job, shown)
        except RunInterrupted as stop:
            again = "; the same call again plays the rest" if out is not None else ""
            interrupted = RunInterrupted(
                f"interrupted: {stop.stored} games stored in {folder}{again}", stop.stored
            )
            with contextlib.suppress(StoreError):  # none when stopped before the store was made
                interrupted.result = Result(folder, keep=keep)
            raise interrupted from None
        finally:
            shown.close()
        if isinstance(ended, RunRefused):
            raise TournamentError(_keywords(ended.text))
    if ended.note is not None:
        warnings.warn(f"no move analysis: {ended.note}", stacklevel=3)
    return Result(folder, keep=keep)


_KEYWORDS = {"--overwrite": "overwrite=True", "--out": "out=", "--allow-broken": "allow_broken=True"}


def _keywords(text: str) -> str:
    """``text``, a refusal that the store or the preflight words for the command line, with the
    command's options named as this API's keyword arguments."""
    return re.sub(r"--(?:overwrite|out|allow-broken)\b", lambda flag: _KEYWORDS[flag[0]], text)


@contextlib.contextmanager
def _undone_on_error(folder: Path) -> Iterator[None]:
    """Within the block, a TournamentError or AgentError removes what the block wrote in ``folder``:
    the folder itself when it did not exist, else the new files of its ``agents/`` (pickled callables)."""
    existed = folder.exists()
    agents = folder / "agents"
    before = set(agents.iterdir()) if agents.is_dir() else set()
    try:
        yield
    except (TournamentError, AgentError):
        if not existed:
            shutil.rmtree(folder, ignore_errors=True)
        elif agents.is_dir():
            for path in set(agents.iterdir()) - before:
                shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        raise


class _Bar:
    """The progress a run shows: a ``tqdm.auto`` bar (a widget in a notebook) of the games played out
    of those scheduled, or an SPRT's count with its live line; the referee's failures as lines under
    it; nothing when not ``enabled``."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.judging: Any = None

    def __call__(self, message: Message) -> None:
        if not self.enabled:
            return
        if isinstance(message, RunBegun):
            from tqdm.auto import tqdm

            total = None if message.sprt is not None else message.scheduled
            self.bar = tqdm(total=total, initial=message.stored, unit="game", desc="games", file=sys.stderr)
            self.bar.write(message.isolation, file=sys.stdout)  # news, not an error (no red block)
            if message.sprt is not None:
                self.bar.set_postfix_str(message.sprt, refresh=False)
        elif isinstance(message, GameStored) and self.bar is not None:
            if message.sprt is not None:
                self.bar.set_postfix_str(message.sprt, refresh=False)
            self.bar.update()
        elif isinstance(message, GamesJudged):
            if self.judging is None:
                from tqdm.auto import tqdm

                self.judging = tqdm(total=message.total, unit="game", desc="judging moves", file=sys.stderr)
            self.judging.update(message.done - self.judging.n)
        elif isinstance(message, GameNotStored) and self.bar is not None:
            self.bar.write(f"warning: {message.text}", file=sys.stderr)

    def close(self) -> None:
        """Close the bars shown."""
        for shown in (self.bar, self.judging):
            if shown is not None:
                shown.close()
