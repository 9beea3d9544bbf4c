"""One move of an agent spec, called as Kaggle calls it and timed as Kaggle's referee times it.

Used by :mod:`benchmarks.mistakes`; each call plays a fresh agent (nothing is kept from an earlier
move). Times are ``time.perf_counter()`` seconds around the call alone, as
``kaggle_environments.agent.Agent.act`` measures a move's ``duration``.

* Our agents (``negamax``, ``network:search=none``...): :func:`agents.registry.load_agent` builds the
  agent (outside the timing), which is called with ``(obs, config)`` as
  :func:`agents.kit.adapter.observation` gives them (``Struct``-like dicts).
* kaggle-environments' built-ins (``kaggle-negamax``, ``kaggle-random``): their functions from
  ``kaggle_environments.envs.connectx.connectx.agents``, called the same way.
* A ``.py`` file (a built submission such as ``main.py``): :class:`FilePlayer`. The registry only
  hands the path on (:func:`agents.registry.load_agent`); loading it in this process, where
  ``agents`` is imported, could not guarantee that nothing of the package reaches the file (a file
  that runs ``import agents`` would get the project's package). So the file plays in a separate
  ``python -I`` process of the same interpreter, set up as :mod:`submissions.probe` sets up
  ``connectx check``: the file alone is copied into an empty directory, the project's packages
  are made unimportable (:func:`submissions.probe.isolate`, then verified with
  ``importlib.util.find_spec``) before kaggle_environments is imported (without the modules the
  referee does not need, :data:`tournament.refusal.REFEREE_UNNEEDED`), and every move builds a
  fresh agent with Kaggle's own ``build_agent``, whose lazy ``get_last_callable`` executes the
  file inside the timed first call -- so each move's time includes loading the file, as a Kaggle
  agent's first move does (modules the file imports, numpy say, stay imported from one move to the
  next, as they would not on Kaggle, and so do the file's own modules: a built file runs them once a
  process, :mod:`submissions.runtime`, so only the first move compiles its solver). After each move the
  process lists the project modules it holds (``leaks``; always empty unless isolation failed).
  One-file submissions only: a file that reads neighbours in its directory will not find them.
  ``hidden`` modules (``("numba", "llvmlite")``) are made unimportable in that process first
  (``sys.modules[name] = None``: an import raises ``ModuleNotFoundError``), as on a machine without
  them.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.registry import AgentSpec, load_agent
from tournament.refusal import REFEREE_UNNEEDED

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""Directory holding this project's packages (``agents``, ``benchmarks``...)."""

ANSWER_GRACE = 30.0
"""Seconds beyond ``actTimeout + remainingOverageTime`` a file agent's process may take to answer
before it is killed (the move is then an error)."""

PLAYER = r"""
import contextlib, importlib.util, io, json, sys, time, traceback
here, root, packages, path = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
for name in json.loads(sys.argv[5]):
    sys.modules[name] = None  # hidden: its import raises ModuleNotFoundError
sys.path.insert(0, here)
import probe
sys.path.remove(here)
probe.isolate(root, packages)
out = sys.stdout
importable = [name for name in packages if importlib.util.find_spec(name) is not None]
if importable:
    out.write(json.dumps({"error": "project packages still importable: " + ", ".join(importable)}) + "\n")
    out.flush()
    sys.exit(3)
# kaggle-environments imported as the check's probe does; kaggle prints the environments it skips
with probe.refusing(json.loads(sys.argv[6])), contextlib.redirect_stdout(sys.stderr):
    from kaggle_environments.agent import build_agent  # after isolate: it puts an agents.py on sys.path
    from kaggle_environments.utils import structify
out.write(json.dumps({"ready": True}) + "\n")
out.flush()
for line in sys.stdin:
    request = json.loads(line)
    obs, config = structify(request["obs"]), structify(request["config"])
    agent, _ = build_agent(path, {}, "connectx")
    action, error = None, None
    with io.StringIO() as buffer, contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        start = time.perf_counter()
        try:
            action = agent(obs, config)
        except Exception:
            error = traceback.format_exc(limit=-4)
        seconds = time.perf_counter() - start
    if error is None and type(action) is not int:
        action, error = None, "returned %r, not a Python int" % (action,)
    leaks = sorted(
        name for name, module in list(sys.modules.items())
        if probe.project_path(getattr(module, "__file__", None) or "", root)
    )
    out.write(json.dumps({"action": action, "seconds": seconds, "error": error, "leaks": leaks}) + "\n")
    out.flush()
"""
"""The script a :class:`FilePlayer` runs (standard library and kaggle_environments only): one JSON
line in (``obs``, ``config``), one out (``action``, ``seconds``, ``error``, ``leaks``)."""


@dataclass(frozen=True, slots=True)
class Move:
    """One call of an agent: ``column`` (0-based, Kaggle's action; None when the call failed),
    ``seconds`` of the call, the stage of the agent's ``last_move`` when it keeps one (else ``"?"``),
    ``error`` (a traceback's tail or why the answer is not a column; None when fine) and, for a file
    agent, the project modules its process held afterwards (``leaks``)."""

    column: int | None
    seconds: float
    stage: str = "?"
    error: str | None = None
    leaks: tuple[str, ...] = field(default=())


def project_packages() -> list[str]:
    """Names of this project's packages: the directories of :data:`PROJECT_ROOT` with an ``__init__.py``."""
    return sorted(p.name for p in PROJECT_ROOT.iterdir() if (p / "__init__.py").is_file())


class FilePlayer:
    """A ``python -I`` process playing the ``.py`` file at ``path`` as Kaggle does (module docstring).

    :meth:`move` sends one observation and waits for the answer; :meth:`close` ends the process
    and removes its directory. ``hidden``: modules made unimportable there. Raises ``RuntimeError``
    when the process cannot start or the project's packages stay importable in it.
    """

    def __init__(self, path: str, hidden: tuple[str, ...] = ()) -> None:
        from submissions import probe

        self.path = path
        self.workdir = Path(tempfile.mkdtemp(prefix="connectx-mistakes-"))
        (self.workdir / "submission").mkdir()
        target = self.workdir / "submission" / Path(path).name
        shutil.copyfile(path, target)
        shutil.copyfile(probe.__file__, self.workdir / "probe.py")
        script = self.workdir / "player.py"
        script.write_text(PLAYER)
        self.stderr = open(self.workdir / "stderr.txt", "w+", encoding="utf-8")  # noqa: SIM115 - closed in close()
        command = [
            sys.executable,
            "-I",
            str(script),
            str(self.workdir),
            str(PROJECT_ROOT),
            json.dumps(project_packages()),
            str(target),
            json.dumps(list(hidden)),
            json.dumps(list(REFEREE_UNNEEDED)),
        ]
        self.process = subprocess.Popen(
            command,
            cwd=self.workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        first = self._answer(120.0)
        if first is None or not first.get("ready"):
            why = (first or {}).get("error") or self._stderr_tail() or "no answer"
            self.close()
            raise RuntimeError(f"the player of {path} did not start: {why}")

    def _stderr_tail(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()[-2000:].strip()

    def _answer(self, timeout: float) -> dict[str, Any] | None:
        """The next JSON line of the process, or None when it ends or says nothing for ``timeout`` s."""
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.process.stdout.readline()
        return json.loads(line) if line else None

    def move(self, obs: dict[str, Any], config: dict[str, Any]) -> Move:
        """The file agent's answer to ``(obs, config)`` (plain JSON-able dicts). A process that does not
        answer within ``actTimeout + remainingOverageTime +`` :data:`ANSWER_GRACE` is killed (later
        moves would need a new player) and the move is an error of that many seconds."""
        limit = float(config["actTimeout"]) + float(obs["remainingOverageTime"]) + ANSWER_GRACE
        self.process.stdin.write(json.dumps({"obs": dict(obs), "config": dict(config)}) + "\n")
        self.process.stdin.flush()
        answer = self._answer(limit)
        if answer is None:
            alive = self.process.poll() is None
            why = f"no answer in {limit:.0f} s" if alive else f"the player died: {self._stderr_tail()}"
            self.close()
            return Move(None, limit, error=why)
        return Move(answer["action"], answer["seconds"], error=answer["error"], leaks=tuple(answer["leaks"]))

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """End the process (closing its input; killed after 10 s) and remove its directory."""
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.stderr.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


_players: dict[tuple[str, tuple[str, ...]], FilePlayer] = {}


def close_players() -> None:
    """Close every :class:`FilePlayer` this process started."""
    while _players:
        _players.popitem()[1].close()


def _file_player(path: str, hidden: tuple[str, ...]) -> FilePlayer:
    player = _players.get((path, hidden))
    if player is None or not player.alive:
        if not _players:  # a pool worker ends through os._exit: multiprocessing's finalizers still run
            from multiprocessing import util

            util.Finalize(None, close_players, exitpriority=10)
        player = _players[path, hidden] = FilePlayer(path, hidden)
    return player


def play(
    spec: AgentSpec,
    obs: dict[str, Any],
    config: dict[str, Any],
    *,
    seed: int | None = None,
    hidden: tuple[str, ...] = (),
) -> Move:
    """One move of a fresh agent of ``spec`` for ``(obs, config)`` (see the module docstring); ``seed``
    goes to our agents' ``make_agent`` when it takes one; ``hidden``: modules a file agent's process
    cannot import (:class:`FilePlayer`; ignored for other specs). An exception of the agent, or an answer
    that is not a Python ``int``, comes back as the :class:`Move`'s ``error``."""
    if spec.kind == "file":
        return _file_player(spec.name, hidden).move(obs, config)
    agent = load_agent(spec, seed=seed)
    if isinstance(agent, str):
        from kaggle_environments.envs.connectx.connectx import agents

        agent = agents[agent]
    start = time.perf_counter()
    try:
        column = agent(obs, config)
    except Exception as error:  # noqa: BLE001 - reported as the move's error
        return Move(None, time.perf_counter() - start, error=f"{type(error).__name__}: {error}")
    seconds = time.perf_counter() - start
    last = getattr(agent, "last_move", None)  # a MoveRecord (a file agent keeps none)
    stage = str(getattr(last, "stage", "?"))
    if type(column) is not int:
        return Move(None, seconds, stage, f"returned {column!r}, not a Python int")
    return Move(column, seconds, stage)


def cores() -> int:
    """CPU cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
