"""Play games on a Ray cluster: Ray schedules one task per game, the local runner plays it on its node.

:func:`run_games_ray` keeps the contract of :func:`tournament.runner.run_games`: it yields a
:class:`~tournament.record.GameRecord` (or :class:`~tournament.record.GameFailed`) per task, in
completion order, and closing it stops the games in flight. Each game is a Ray task
(``num_cpus=1``) that calls ``run_games([task], 1, limits)`` on its worker, so a game keeps all
its isolation there: agents in sandboxed host processes, Kaggle's time limits enforced by the
proxies on that node, the stall watchdog. Only finished records come back; the driver (the
caller) writes the store.

* **Window.** At most ``workers`` games are submitted at once (default twice the cluster's CPUs:
  every CPU busy, one game queued behind each), and the next is submitted as one ends
  (``ray.wait``): memory stays flat however many games the tournament has, and an interruption
  cancels few games.
* **Cancelling.** Closing the iterator (Ctrl-C, an SPRT decision) force-cancels the games in
  flight (``ray.cancel(force=True)`` kills their worker processes; their game and agent processes
  die with them, ``PR_SET_PDEATHSIG``) and returns once Ray has ended them all, cancelling again a
  game whose cancel Ray lost (:func:`_cancel`).
* **Retries.** A game whose worker process or node dies is re-run by Ray, up to
  :data:`RETRIES` times (games are seeded: agents that do not budget by the clock replay the same
  game); a game that still fails, or a task that raises, is a ``GameFailed``: not stored, played
  again on resume.
* **Files.** The files an agent spec reads (a ``.py`` agent, a ``weights=`` file:
  :func:`agents.registry.files_of`) are read on the driver, put in Ray's object store once each,
  and written on the worker into a private temporary directory for the game; the game plays specs
  pointing there (:func:`agents.registry.with_paths`) and its record carries the original task, so
  the store is the one a local run writes. A file the driver cannot read is not shipped: the
  agent then fails to load, its ``ERROR``, as in a local run.

The runner forks its game process from the Ray worker, a process with threads of Ray's own; the
child only plays the game and touches nothing of Ray's, so the fork is safe.
Each runner claims its game slot from the node (:func:`tournament.sandbox.claim_slots`), so games
played at once on one node give their agents different users. Workers need the same toolkit
installed with its ``[ray]`` extra (``docs/cluster.md``). Source: Ray's documentation of tasks,
``ray.wait``, ``ray.cancel`` and fault tolerance (docs.ray.io).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import socket
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path

import ray

from agents.registry import SpecError, files_of, with_paths
from tournament.limits import Limits
from tournament.record import Finished, GameFailed, GameRecord
from tournament.runner import run_games
from tournament.schedule import GameTask
from tournament.scratch import Scratch

RETRIES = 3
"""Times Ray re-runs a game whose worker process or node died (Ray's default for tasks)."""

CANCEL_CHECK = 1.0
"""Seconds between cancels of a game that closing the iterator has not yet ended (:func:`_cancel`)."""

Shipped = dict[str, tuple[str, ray.ObjectRef]]
"""The files of a game's specs: ``{as written in the spec: (file name, object holding its bytes)}``."""


@contextlib.contextmanager
def connected(address: str | None = None) -> Iterator[int]:
    """Join the Ray cluster at ``address`` (``"auto"``: the one ``ray start`` runs here; ``HOST:PORT``)
    or, for None, start a local one on this machine's cores; yield its number of CPUs.

    Quiet: no dashboard, no worker logs on the terminal, Ray's own messages from errors up. A
    cluster started here is stopped on exit; an existing one is left running. When this process is
    already connected, that connection is used and left open. Raises ``ConnectionError`` when no
    cluster answers at ``address``.
    """
    started = not ray.is_initialized()
    if started:
        if address not in (None, "auto"):
            _check_reachable(address)
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        yield int(ray.cluster_resources().get("CPU", 0))
    finally:
        if started:
            ray.shutdown()


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Raise ``ConnectionError`` unless something accepts a TCP connection at ``[ray://]HOST:PORT``
    within ``timeout`` seconds (``ray.init`` itself retries an unreachable address for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except (OSError, ValueError) as error:
        raise ConnectionError(f"nothing answers at {address} ({error})") from None


class _Files:
    """The files each spec reads (:func:`agents.registry.files_of`), each put in Ray's object store once."""

    def __init__(self) -> None:
        self.objects: dict[str, ray.ObjectRef] = {}  # absolute path -> its bytes
        self.by_spec: dict[str, Shipped] = {}

    def of(self, task: GameTask) -> Shipped:
        """The files the two specs of ``task`` read."""
        shipped: Shipped = {}
        for spec in (task.first, task.second):
            if spec not in self.by_spec:
                self.by_spec[spec] = self._ship(spec)
            shipped.update(self.by_spec[spec])
        return shipped

    def _ship(self, spec: str) -> Shipped:
        try:
            files = files_of(spec)
        except SpecError:  # e.g. the file is gone: the worker's load fails, the agent's ERROR
            return {}
        shipped: Shipped = {}
        for written, path in files.items():
            if path not in self.objects:
                try:
                    self.objects[path] = ray.put(Path(path).read_bytes())
                except OSError:
                    continue
            shipped[written] = (os.path.basename(path), self.objects[path])
        return shipped


@ray.remote(num_cpus=1, max_retries=RETRIES)
def _play(task: GameTask, limits: Limits, shipped: Shipped) -> GameRecord | GameFailed:
    """Play ``task`` here with the local runner, its specs reading the ``shipped`` files from a private
    temporary directory; the record carries ``task`` itself."""
    with Scratch("game") as folder:
        # The agents' hosts read their files as users of their own (tournament.sandbox.users): they
        # may pass through the folders, not list them, and read the files, which Landlock confines
        # each host to its own (tournament.sandbox.isolation).
        os.chmod(folder, 0o711)
        local = {}
        for index, (written, (name, ref)) in enumerate(shipped.items()):
            path = Path(folder, str(index), name)
            path.parent.mkdir(mode=0o711)
            path.write_bytes(ray.get(ref))
            path.chmod(0o644)
            local[written] = str(path)
        here = dataclasses.replace(
            task, first=with_paths(task.first, local), second=with_paths(task.second, local)
        )
        (result,) = run_games([here], 1, limits)
    if isinstance(result, GameRecord):
        return dataclasses.replace(result, task=task)
    return result


def run_games_ray(
    tasks: Iterable[GameTask],
    limits: Limits = Limits(),  # noqa: B008 - immutable
    *,
    address: str | None = None,
    workers: int | None = None,
) -> Generator[Finished, None, None]:
    """Play ``tasks`` on the Ray cluster at ``address`` (:func:`connected`), at most ``workers`` games
    submitted at once (default: twice its CPUs); yield each result as it ends.

    Same contract as :func:`tournament.runner.run_games`: a :class:`GameRecord` per game, or a
    :class:`GameFailed` (not raised) when the referee failed or Ray lost the game for good
    (:data:`RETRIES`); completion order; closing the iterator cancels the games in flight.
    """
    with connected(address) as cpus:
        window = workers or 2 * max(cpus, 1)
        files = _Files()
        pending = iter(tasks)
        running: dict[ray.ObjectRef, GameTask] = {}
        try:
            while True:
                while len(running) < window and (task := next(pending, None)) is not None:
                    running[_play.remote(task, limits, files.of(task))] = task
                if not running:
                    return
                (ref,), _ = ray.wait(list(running), num_returns=1)
                task = running.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayError as error:
                    result = GameFailed(f"game {task.game_id} failed on the Ray cluster: {error}")
                yield result
        finally:
            _cancel(list(running))


def _cancel(refs: list[ray.ObjectRef]) -> None:
    """Force-cancel the games of ``refs`` and return once Ray has ended each of them.

    A cancel that reaches the worker before the task itself (Ray pushes a queued task to the worker
    that just freed, while the cancel travels through the raylet) finds nothing to cancel there and
    is not retried by Ray: the game would then play on to its own time limit, holding its CPU (a
    hanging agent: ``actTimeout`` plus the overage bank, 60 s). So the cancel is sent again, every
    :data:`CANCEL_CHECK` seconds, to the games not yet ended; each ends by its time limit at the latest.
    """
    for ref in refs:
        ray.cancel(ref, force=True)
    while refs:
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_CHECK, fetch_local=False)
        for ref in refs:
            ray.cancel(ref, force=True)
