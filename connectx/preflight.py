"""Entrants checked before the first game: a file agent that does not load is refused, not played.

A typo in an entrant's file makes every one of its games an ``ERROR``, and a long run is wasted.
So before ``connectx run`` and ``connectx sprt`` play, each file agent plays one first move as Kaggle
would play it: in a sandboxed host of its own (:class:`tournament.sandbox.AgentProcess`, the same
confinement as in a game, so the file's code never runs in this process), loaded by Kaggle's own
loader (``kaggle_environments.agent.build_agent``, which executes the file at the first move and
plays its last callable), as first player on the empty board of the run's configuration
(:func:`tournament.game.configuration`), one file after another.

A file *does not load* when Kaggle's loader fails on it -- a syntax error, an import that fails, an
exception at module level, no callable defined -- which kaggle-environments reports as
``InvalidArgument: Invalid raw Python: ...``, or when the file raises through the loader
(``sys.exit()`` at module level: ``SystemExit`` is no ``Exception``, which is all the loader
catches). :func:`refusal` then names the file, the line of it where the failure arose (from the
traceback the host sends; none for a file without a callable) and the error, in one line. A pickled
callable (``.pkl``, :mod:`connectx.entrants`) is refused likewise when it does not unpickle in its
host (:class:`tournament.sandbox.loading.UnpicklingFailed`: a module it names is not importable
there, say).
Anything else the first move does (a move that raises, an invalid answer, a time-out) is the
games' business, scored as Kaggle scores it: the file loaded. A broken file
refuses in about a second (the hosts' start), a loading one takes its first move (``actTimeout`` at
most, unless it draws on its bank).
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

from agents.registry import parse_spec
from connectx.progress import Ticking, bar
from tournament.limits import Limits
from tournament.schedule import GameTask, Settings

if TYPE_CHECKING:
    from tournament.sandbox import AgentProcess

__all__ = ["LOAD_FAILURE", "diagnose", "refusal"]

LOAD_FAILURE = "raised InvalidArgument: Invalid raw Python: "
"""What a proxy's note says when Kaggle's loader failed on a file (``get_last_callable``)."""

_LOADER = ", in get_last_callable\n"
"""A frame of Kaggle's loader in a note's traceback: what the file raised, it raised while loading.
The loader turns an ``Exception`` into :data:`LOAD_FAILURE` and lets any other through (``SystemExit``
from ``sys.exit()`` at module level), which the note then names itself."""

_UNPICKLING = "raised UnpicklingFailed: "
"""What a proxy's note says when a pickled callable did not unpickle in its host
(:class:`tournament.sandbox.loading.UnpicklingFailed`; named here, not imported, as the sandbox is
imported only to play): the pickle is refused as a file that does not load is."""

_FRAME = re.compile(r'^\s*File "(?P<path>.+)", line (?P<line>\d+)', re.MULTILINE)
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:"


def refusal(settings: Settings, limits: Limits = Limits()) -> str | None:  # noqa: B008 - immutable
    """Load every file agent of ``settings`` as Kaggle does, each in a sandboxed host (module
    docstring): None when all load, else one line on the first that does not, for ``connectx run:
    error: ...``. Agents' resources are ``limits``, as in the games."""
    files = [spec for spec in settings.entrants if parse_spec(spec).kind == "file"]
    if not files:
        return None
    from tournament import sandbox
    from tournament.environments import make
    from tournament.game import configuration

    task = GameTask(game_id=0, pair_id=0, first=files[0], second=files[0], rows=settings.rows,
                    columns=settings.columns, inarow=settings.inarow, act_timeout=settings.act_timeout,
                    hang_limit=settings.hang_limit, seed=settings.seed)  # fmt: skip
    env = make("connectx", configuration=configuration(task))
    obs, config = env.state[0].observation, env.configuration
    sandbox.protect_runner()
    sandbox.become_subreaper()  # what a file starts as it loads is killed with its host
    others = set(sandbox.children())
    shown = bar(desc="loading", bar_format="{desc} [{elapsed}]", leave=False)
    with sandbox.claim_slots(1) as (slot,), shown, Ticking(shown):
        for spec in files:
            shown.set_description_str(f"loading {spec} as Kaggle does")
            proxy = sandbox.AgentProcess(spec, 1, seed=settings.seed, global_seed=settings.seed, slot=slot,
                                         limits=limits, hang_limit=settings.hang_limit)  # fmt: skip
            try:
                note = _first_move(proxy, obs, config)
            finally:
                proxy.close()
                sandbox.kill_descendants(spare=others)
            if note is not None:
                return diagnose(spec, parse_spec(spec).name, note)
    return None


def _first_move(proxy: AgentProcess, obs: Any, config: Any) -> str | None:
    """Ask ``proxy`` for its first move; the proxy's note when Kaggle's loader failed (or the file
    raised through it: ``sys.exit()`` at module level), else None."""
    with contextlib.suppress(Exception):  # the move raised, or its host died: the note says which
        proxy(obs, config)
    first, _, trace = proxy.note.partition("\n")
    return proxy.note if LOAD_FAILURE in first or _LOADER in trace or _UNPICKLING in first else None


def diagnose(spec: str, path: str, note: str) -> str:
    """The line refusing the file agent ``spec`` (at ``path``, absolute) from its proxy's ``note``
    (:data:`LOAD_FAILURE` on its first line, then the host's traceback): the file, the line of it where
    loading failed, the error, and what to do.
    """
    first, _, trace = note.partition("\n")
    if _UNPICKLING in first:  # a pickled callable: the reason is on the first line
        why = first.split(_UNPICKLING, 1)[1]
        return f"{why}: every game of it would be an ERROR; fix it, or --allow-broken plays it anyway"
    if LOAD_FAILURE not in first:  # raised through the loader (SystemExit): the traceback is the cause
        cause = trace.rstrip()
    else:
        cause = trace.split(_CONTEXT)[0].rstrip() if _CONTEXT in trace else ""
    lines = [frame["line"] for frame in _FRAME.finditer(cause) if frame["path"] == path]
    error = cause.splitlines()[-1].strip() if cause else first.split(LOAD_FAILURE, 1)[1]
    if error.startswith("IndexError") and not lines:  # get_last_callable's [-1] of no callable
        where, error = spec, "defines no function or other callable, which Kaggle would play"
    else:
        where = f"{spec}, line {lines[-1]}" if lines else spec
    return (
        f"{where}: {error}: it does not load as Kaggle loads it, so every game of it would be an ERROR; "
        "fix it, or --allow-broken plays it anyway"
    )
