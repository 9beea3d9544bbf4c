"""How long a move may think, in seconds: Kaggle's clock split between exact solving and a search.

Kaggle's clock (kaggle-environments 1.33.2, the version installed here; read through
:class:`agents.kit.clock.Clock`): each call may take ``configuration.actTimeout`` seconds (2 for
ConnectX, ``envs/connectx/connectx.json``); ``core.py``'s ``Environment.__loop_through_interpreter``
then takes what a call spent beyond it from the player's ``observation.remainingOverageTime`` (60 s at
the start of a game), and ``agent.py``'s ``Agent.act`` answers ``DeadlineExceeded`` (the game is
lost) for a call longer than ``actTimeout`` plus what is left in that bank.

The first move has no allowance of its own. ``configuration.agentTimeout`` (60) is "obsolete, kept
for backwards compatibility" (``envs/connectx/connectx.json``) and no code of 1.33.2 reads it
(earlier releases added it to the limit of an agent's first call; this one does not). The first
call even pays for loading the submission: ``agent.py``'s ``build_agent`` returns a
``callable_agent`` that runs the file (``get_last_callable``, with ``exec``) at its first call, and
``Agent.act`` starts its timer before that call. Imports, data read at import and the module-level
``agent = make_agent()`` all count as the first move's time, and what exceeds ``actTimeout`` is
drawn from the bank (a file that sleeps 3 s at import has 59 s of bank left after its first move).
``main.py``'s ``action_act``, which plays one agent a call, builds that ``Agent`` at the first call
too. So :func:`move_budget` gives the first move what it gives any other; the ``reserve`` of the bank
it never spends is what pays for a slow load.

:func:`charged` is the clock left after work done once before a move's search (compiling the
solver at the first move). :func:`collector_paused` keeps Python's garbage collector off while a
move thinks: a collection in the middle of a search would stall the clock.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from agents.kit.clock import Clock

__all__ = ["Budget", "charged", "collector_paused", "move_budget"]


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds for one move from its start: exact solving stops at ``solve``; the heuristic search
    then runs until ``total``, and at least ``fallback`` seconds when exact solving used the bank."""

    solve: float
    total: float
    fallback: float

    def search_deadline(self, start: float, after_solving: bool) -> float:
        """When the search that follows exact solving must stop (``time.perf_counter()`` seconds;
        ``start`` the move's): at ``start + total``, but no sooner than ``fallback`` seconds from now
        when exact solving ran and failed (``after_solving``), 0.05 s otherwise."""
        now = time.perf_counter()
        return now + max(self.fallback if after_solving else 0.05, start + self.total - now)


def move_budget(
    clock: Clock,
    ply: int,
    size: int,
    *,
    margin: float = 0.15,
    reserve: float = 3.0,
    share: float = 0.3,
    longest: float = 4.0,
    bank_fallback: bool = False,
) -> Budget:
    """Split this move's time (all in seconds).

    ``base = actTimeout - margin`` is always available. Exact solving may use half of it plus, from
    the overage bank, ``extra``: a ``share`` of what exceeds ``reserve`` seconds in the first two
    thirds of the game (where exact solving costs most), a third of that share later, and never more
    than ``longest - actTimeout``. The heuristic fallback gets the rest of ``base``, and at least half
    of ``base`` after a failed exact solve (a shallow heuristic search is where early mistakes come
    from). A move thus takes at most ``base + extra <= max(base, longest - margin)`` seconds plus the
    call's overhead, and ``extra <= share * (bank - reserve)``: the bank is never overdrawn. The first
    move is no exception (Kaggle grants it nothing more, see the module docstring).

    ``bank_fallback``: the bank, rather than exact solving's half of ``base``, pays for the fallback's
    other half: up to half of ``base`` moves from ``solve`` to ``fallback``, so that a failed solve
    leaves the fallback search the whole of ``base`` when ``extra`` covers it. The move's longest time
    stays ``base + extra``. For searches that play much better with a whole move than with half of one
    (the network's PUCT), where the solver's 1 s less out of many matters little.
    """
    base = max(0.05, clock.act_timeout - margin)
    spare = max(0.0, clock.overage - reserve)
    extra = spare * (share if ply < size * 2 // 3 else share / 3)
    extra = min(extra, max(0.0, longest - clock.act_timeout))
    moved = min(extra, 0.5 * base) if bank_fallback else 0.0
    return Budget(solve=0.5 * base + extra - moved, total=base, fallback=0.5 * base + moved)


def charged(clock: Clock, seconds: float) -> Clock:
    """``clock`` after ``seconds`` spent before the move's search began (compiling the solver at the
    first move, :meth:`agents.kit.solved.SolvedPositions.prepare`), all drawn from the overage bank
    (never below 0): the search then gets its whole budget from the moment it starts, so a move
    that compiles takes at most ``seconds`` more than any other, and since the whole of ``seconds``
    is taken from the bank rather than from ``actTimeout`` first, the bank is never overdrawn."""
    return Clock(clock.act_timeout, max(0.0, clock.overage - max(0.0, seconds)))


@contextmanager
def collector_paused() -> Iterator[None]:
    """The garbage collector off, then as it was (on again only if it was on): a collection inside a
    search would stall the clock. Exceptions pass through."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
