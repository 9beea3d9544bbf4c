"""What ``connectx ladder init`` and ``add`` print as they play: the seeding's progress bar, a line a
batch of an add (where the newcomer stands, whom it plays next), its last line, and why its interval
stayed wider than asked."""

from __future__ import annotations

import math
import sys
from typing import Any

from tournament.driver import Event, Started
from tournament.ladder import Added, Planned
from tournament.record import GameRecord

__all__ = ["SeedingBar", "add_progress", "added_line", "why_wider"]


class SeedingBar:
    """The terminal's view of a seeding round robin: a progress bar (tqdm) over its games."""

    def __init__(self) -> None:
        self.bar: Any = None  # tqdm has no type information

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread in a process that forks
            self.bar = tqdm(total=event.scheduled, initial=event.stored, unit="game", desc="seeding")
        elif isinstance(event, GameRecord):
            self.bar.update()
        else:
            print(f"warning: {event}", file=sys.stderr)

    def close(self) -> None:
        """Close the bar (again: nothing)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _elo(elo: float) -> str:
    """``+123``, ``+∞`` or ``-∞``."""
    return f"{elo:+.0f}" if math.isfinite(elo) else "+∞" if elo > 0 else "-∞"


def _standing(elo: float, low: float, high: float, margin: float) -> str:
    """Where a newcomer stands, as its progress lines and its last line say it: ``Elo -380 (-458 to
    -310, ±78)``, the Elo and 95 % interval that the rating list shows for it and how far the
    interval reaches (what ``--until`` is compared with)."""
    if math.isnan(elo):
        return "not rated yet (it met only members outside the rated pool)"
    if math.isinf(elo):
        bound = low if elo > 0 else high
        side = ("≥ " if elo > 0 else "≤ ") + f"{bound:+.0f}; " if math.isfinite(bound) else ""
        beyond = bound < 0 if elo > 0 else bound > 0  # as the list's Elo column: no estimate yet
        return f"Elo {'—' if beyond else _elo(elo)} ({side}no finite interval yet)"
    return f"Elo {elo:+.0f} ({low:+.0f} to {high:+.0f}, ±{margin:.0f})"


def add_progress(event: Event | Planned) -> None:
    """One line a batch an add plans: where the newcomer stands and whom it plays next."""
    if isinstance(event, Planned):
        where = _standing(event.elo, event.low, event.high, event.margin) if event.pairs else "no games yet"
        print(f"after {event.pairs} pairs: {where}; next: {', '.join(event.opponents)}", flush=True)
    elif not isinstance(event, Started | GameRecord):
        print(f"warning: {event}", file=sys.stderr)


def added_line(added: Added) -> str:
    why = {
        "pairs": "it has played its game pairs",
        "until": "its interval is narrow enough",
        "alone": "no other member takes part",
        "failed": "games failed",
    }[added.why]
    joined = "resumed" if added.resumed else "played on"
    if added.new:
        joined = "joined" if added.member.version == 1 else f"joined as version {added.member.version}"
    where = _standing(added.elo, added.low, added.high, added.margin) if added.pairs else "no games"
    played = f"{added.played} games played, {added.pairs} pairs in all"
    return f"{added.member.id} {joined}: {played}; {where} (stopped: {why})"


def why_wider(added: Added, until: float, entries: list, records: list[GameRecord]) -> str:
    """Why an add stopped at its cap with its interval wider than ``±until``, in a few lines: the
    members it played are rated only so closely, and its games against them measure its distance
    to each, not their own ratings."""
    me = added.member.id
    met = {name for r in records if me in (r.first, r.second) for name in (r.first, r.second)} - {me}
    reaches = sorted(
        max(e.rating.elo - e.rating.low, e.rating.high - e.rating.elo)
        for e in entries
        if e.member.id in met and e.rating is not None and e.rating.is_finite and math.isfinite(e.rating.low)
    )
    known = f"±{reaches[len(reaches) // 2]:.0f}" if reaches else "no finite interval"
    return (
        f"its interval reaches ±{added.margin:.0f}, not ±{until:g}: it is rated against the {len(met)} "
        f"members it played, whose own ratings the ladder knows to {known} (the median of their 95 % "
        "intervals),\nand its games measure its distance to each of them, not their ratings; more pairs "
        f"(`--pairs {2 * added.pairs}`) narrow it slowly, a ladder seeded with more pairs a pairing "
        "(`ladder init --pairs N`) knows its members closer"
    )
