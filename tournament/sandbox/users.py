"""The agents' users: when the runner is root, each host runs as an unprivileged user of its own, one
per game slot and mark, and the run directory is kept from them.

A game slot is one of the games a runner plays at once (a worker); :func:`claim_slots` hands out
slots no other runner on the machine holds, so no two agents playing at once on the machine share a
user (and could signal each other). Without root the hosts run as the runner's user
(:func:`isolating` is False). Sources: ``credentials(7)``, ``unix(7)`` (Linux man-pages).
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator

AGENT_UID_BASE = 61000
"""Hosts run as uid ``AGENT_UID_BASE + 2 * slot + mark - 1`` (and the same gid) when the runner is root."""

MAX_SLOTS = 2000
"""Game slots a machine hands out at once (uids up to ``AGENT_UID_BASE + 2 * MAX_SLOTS - 1``)."""


def isolating() -> bool:
    """True when hosts get users of their own (the runner is root); else they run as the runner's user."""
    return os.geteuid() == 0


def agent_uid(slot: int, mark: int) -> int:
    """The uid (and gid) of the host of ``mark`` (1 or 2) in game slot ``slot`` (0, 1, ...)."""
    return AGENT_UID_BASE + 2 * slot + mark - 1


@contextlib.contextmanager
def claim_slots(count: int) -> Iterator[list[int]]:
    """Claim ``count`` game slots no other runner on this machine holds; yield their numbers.

    Every runner claims its slots here, so games played at once on one machine (two ``connectx
    run``, or the games of a Ray node, each its own runner) never give their agents the same users.
    A slot is held by binding a Unix socket in the abstract namespace, ``connectx-slot-N``: the
    kernel releases it when the socket closes, even when the runner is killed, and no file is left
    behind. A name bound by anyone else (an agent, say) is skipped. Raises ``RuntimeError`` when
    fewer than ``count`` of :data:`MAX_SLOTS` are free. Source: ``unix(7)``, "Abstract sockets".
    """
    held: list[tuple[int, socket.socket]] = []
    try:
        for slot in range(MAX_SLOTS):
            if len(held) == count:
                break
            claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                claim.bind(f"\0connectx-slot-{slot}")
            except OSError:
                claim.close()
                continue
            held.append((slot, claim))
        if len(held) < count:
            raise RuntimeError(f"only {len(held)} of {count} game slots are free on this machine")
        yield [slot for slot, _ in held]
    finally:
        for _, claim in held:
            claim.close()


def protect_directory(path: os.PathLike[str] | str) -> None:
    """Make a run directory private (mode 0700) when hosts run as other users, so no agent can list,
    read or write the store in it. Does nothing otherwise."""
    if isolating():
        os.chmod(path, 0o700)
