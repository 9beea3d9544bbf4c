"""The script :mod:`submissions.check` runs as ``python -I probe.py REQUEST`` to play a file as Kaggle does.

It imports nothing of this project (standard library and ``kaggle_environments`` only) and runs in
a fresh interpreter in isolated mode (``-I``: no ``PYTHON*`` variables, no user site, neither the
script's directory nor the working directory -- a temporary one -- on ``sys.path``). The project is
installed in the virtualenv in editable mode, which would still make ``agents`` importable; so
first the finders, path hooks and ``sys.path`` entries that reach the project root are removed and
``importlib.util.find_spec`` must then fail for every project package (else the probe stops: the
check could not be honest). kaggle-environments is imported only afterwards (it appends a directory
holding an unrelated ``agents.py`` to ``sys.path``).

A check runs the probe once (``stage`` ``"check"``): once isolated and with kaggle-environments
imported, it forks; the child runs the ``"load"`` stage and ends, and unless the load failed
(:func:`_plays_on`) the probe itself then runs the ``"games"`` stage, in which the file has never
been loaded. Each is a fresh process for the file, as on Kaggle, which imports its package before
it loads an agent; the interpreter starts and kaggle-environments is imported once a check. (A
``stage`` of ``"load"`` or ``"games"`` runs that stage alone.)

* ``"load"``: the file is loaded once with Kaggle's loader, as Kaggle does inside the first move but
  without calling the agent: kaggle-environments reads the file when it builds the agent, before
  its clock starts (``kaggle_environments.utils.read_file``), so the probe reads it first, then
  emits ``loading`` and times ``kaggle_environments.agent.get_last_callable`` alone (compiling and
  executing the module level, its imports included, since nothing is cached yet), and names the
  last callable. The parent watches for ``loading`` to time a load that never ends.
* ``"games"``: each game is one ``kaggle_environments.make("connectx", configuration=...).run([...])``
  with the file's **path** among the agents, so Kaggle's own ``build_agent`` / ``get_last_callable``
  load it lazily at its first move and Kaggle's referee times every call (``env.logs[step][agent]
  ["duration"]``, seconds, loading included on the first call) and keeps each agent's overage bank
  (``remainingOverageTime``, reported as ``banks``: the seconds left at the end). The games: the
  validation episode (the file against itself), then ``games`` against each opponent, colours
  alternating. Before each call of the file's agent it emits ``call`` (the ``mark`` and the
  ``limit``: ``actTimeout`` plus the overage bank it has left, the seconds Kaggle's servers wait for
  a move), and ``returned`` after, so that the parent can kill a move that never returns once Kaggle
  would have given up on it (:func:`_announce_calls`). The probe stops after the first game in which
  the file ends ``ERROR``, ``INVALID`` or ``TIMEOUT``, or one of its moves took longer than
  ``stop_over`` seconds (unless that is null).
  An ``INVALID`` move is replayed on a fresh load of the file (:func:`_replay`) and reported with the
  board and the action tagged as :func:`encode` tags it, for the parent to put in words.

Each stage ends its process at once after its ``done`` event (``os._exit``): neither the
interpreter's clean-up (half a second on a busy machine, with kaggle-environments and numpy
imported) nor what the file left behind (a thread that never ends, an ``atexit`` handler) holds the
check up; on Kaggle they hold up nothing either.

``REQUEST`` is a JSON object (``stage``, ``path``, ``act_timeout``, ``games``, ``opponents``,
``out``, ``project_root``, ``packages``, ``refuse``, ``seed``, ``stop_over``, ``load_limit``).
Results are appended to ``out`` as JSON lines, flushed one event at a time, so the parent still
knows which stage or game was running if it must kill a hung probe.
"""

import contextlib
import importlib.abc
import importlib.util
import json
import os
import random
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

BAD = ("ERROR", "INVALID", "TIMEOUT")

Emit = Callable[..., None]
"""Writes one event, its keyword arguments, as a JSON line of ``out``."""
# kaggle_environments has no type information: its environments, steps and agents are Any here, and
# the request and the events are JSON objects.


def _within(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.realpath(path), root]) == root
    except (TypeError, ValueError):
        return False


def project_path(path: str, root: str) -> bool:
    """``path`` lies in the project tree and not in the interpreter's own (the virtualenv may live
    inside the project directory)."""
    return _within(path, root) and not any(
        _within(path, os.path.realpath(prefix)) for prefix in {sys.prefix, sys.base_prefix}
    )


def isolate(root: str, packages: list[str]) -> list[str]:
    """Remove whatever makes ``packages`` importable from ``root``; return what was removed."""
    removed = []

    def reaches_root(finder: Any) -> bool:  # any meta path finder
        if (getattr(finder, "__module__", "") or "").startswith("__editable__"):
            return True
        for name in packages:
            try:
                spec = finder.find_spec(name, None)
            except Exception:  # noqa: BLE001 - a finder that cannot answer is left alone
                continue
            if spec is not None and project_path(spec.origin or "", root):
                return True
        return False

    for finder in list(sys.meta_path):
        standard = finder.__module__ in ("_frozen_importlib", "_frozen_importlib_external")
        if not standard and reaches_root(finder):
            sys.meta_path.remove(finder)
            removed.append(repr(finder))
    for hook in list(sys.path_hooks):
        owner = getattr(getattr(hook, "__self__", None), "__module__", "") or getattr(hook, "__module__", "")
        if owner.startswith("__editable__"):
            sys.path_hooks.remove(hook)
            removed.append(repr(hook))
    for entry in list(sys.path):
        if "__editable__" in entry or project_path(entry or os.getcwd(), root):
            sys.path.remove(entry)
            removed.append(entry)
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    return removed


def _durations(env: Any, index: int) -> list[float]:
    out = []
    for step in env.logs:
        if step and index < len(step) and step[index] and "duration" in step[index]:
            out.append(step[index]["duration"])
    return out


def _stderr(env: Any, index: int) -> str:
    for step in reversed(env.logs):
        if step and index < len(step) and step[index] and step[index].get("stderr"):
            text: str = step[index]["stderr"][-4000:]
            return text
    return ""


SOLVER_SAYS = "connectx solver:"
"""How the lines start that a built file's solver writes on stderr once a process: compiled, or
searching in pure Python and why (``agents.engine.solver.SAYS``, which the probe cannot import; the
tests check that the two agree)."""


def _solver_lines(env: Any, index: int) -> list[str]:
    """The lines of agent ``index``'s stderr in every step that start with :data:`SOLVER_SAYS`."""
    lines = []
    for step in env.logs:
        if step and index < len(step) and step[index]:
            text = step[index].get("stderr") or ""
            lines += [line for line in text.splitlines() if line.startswith(SOLVER_SAYS)]
    return lines


def encode(action: object) -> dict[str, object]:
    """``action`` as JSON, tagged with its Python type, in the format of
    ``tournament.replies.encode`` (which the probe cannot import; the tests check that the two
    agree): ``{"type": "None"}``, ``{"type": "int", "value": 3}``, ``{"type": "numpy.int64", "value":
    3}``, or for any other object ``{"type": "module.Class", "repr": "..."}``."""
    kind = type(action)
    if action is None:
        return {"type": "None"}
    if kind in (bool, int, float, str):
        return {"type": kind.__name__, "value": action[:1000] if isinstance(action, str) else action}
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(action, (numpy.bool_, numpy.integer, numpy.floating)):
        return {"type": f"numpy.{kind.__name__}", "value": action.item()}
    return {"type": f"{kind.__module__}.{kind.__qualname__}", "repr": repr(action)[:200]}


def _replay(path: str, steps: list[Any], index: int, configuration: Any) -> dict[str, object] | None:
    """What the file returns for the observation of the call Kaggle found INVALID (a fresh load):
    ``action`` (:func:`encode`), with the ``board`` it was shown, its ``mark`` and the board's
    ``rows``, ``columns`` and ``inarow``; ``error`` when the replay raised; None without a step."""
    from kaggle_environments.agent import get_last_callable
    from kaggle_environments.utils import structify

    if len(steps) < 2:
        return None
    before = steps[-2]
    obs = dict(before[index].observation)
    obs["board"] = list(before[0].observation.board)
    obs["mark"] = index + 1
    try:
        with open(path, encoding="utf-8") as handle:
            agent = get_last_callable(handle.read(), path=path)
        action = agent(structify(obs), structify(dict(configuration)))
    except Exception as error:  # noqa: BLE001 - reported, not raised
        return {"error": f"{type(error).__name__}: {error}"}
    board = {key: int(configuration[key]) for key in ("rows", "columns", "inarow")}
    return {"action": encode(action), "board": obs["board"], "mark": obs["mark"], **board}


def _load(request: dict[str, Any], emit: Emit) -> None:
    """The ``load`` stage: read the file, then time Kaggle's loader on it (see the module docstring)."""
    from kaggle_environments.agent import get_last_callable
    from kaggle_environments.utils import read_file

    path = request["path"]
    raw = read_file(path, path)  # as kaggle_environments.agent.build_agent reads it, before the clock
    emit(event="loading")
    started = time.perf_counter()
    try:
        last = get_last_callable(raw, path=path)
    except Exception as error:  # noqa: BLE001 - reported: the games show Kaggle's verdict on it
        emit(event="load", error=f"{type(error).__name__}: {error}", seconds=time.perf_counter() - started)
    else:
        emit(event="load", name=getattr(last, "__name__", repr(last)), seconds=time.perf_counter() - started)


def _announce_calls(path: str, emit: Emit) -> None:
    """Make kaggle-environments' ``Agent.act`` emit ``call`` and ``returned`` around each call of the
    file at ``path`` (the module docstring), outside the time Kaggle measures (it times the call
    inside ``act``)."""
    from kaggle_environments.agent import Agent

    act = Agent.act

    def announced(self: Any, observation: Any) -> Any:
        if self.raw != path:
            return act(self, observation)
        limit = float(self.configuration.actTimeout) + float(observation.remainingOverageTime)
        emit(event="call", mark=observation.mark, limit=limit)
        result = act(self, observation)
        emit(event="returned")
        return result

    Agent.act = announced


def _games(request: dict[str, Any], emit: Emit, make: Callable[..., Any]) -> None:
    """The ``games`` stage (see the module docstring)."""
    path = request["path"]
    _announce_calls(path, emit)
    games = [("validation episode (the file against itself)", [path, path], [0, 1])]
    for opponent in request["opponents"]:
        for number in range(request["games"]):
            if number % 2 == 0:
                games.append((f"vs kaggle-{opponent}, file first", [path, opponent], [0]))
            else:
                games.append((f"vs kaggle-{opponent}, file second", [opponent, path], [1]))
    configuration = {"actTimeout": request["act_timeout"]}
    for number, (label, agents, ours) in enumerate(games):
        emit(event="start", game=number, label=label)
        seed = request["seed"] + number
        random.seed(seed)
        try:
            import numpy

            numpy.random.seed(seed)
        except ImportError:
            pass
        started = time.perf_counter()
        env = make("connectx", configuration=configuration)
        steps = env.run(agents)
        final = steps[-1]
        statuses = [state.status for state in final]
        event: dict[str, Any] = {
            "game": number,
            "label": label,
            "agents": agents,
            "ours": ours,
            "statuses": statuses,
            "rewards": [state.reward for state in final],
            "durations": [_durations(env, index) for index in range(len(agents))],
            "banks": [state.observation.get("remainingOverageTime") for state in final],
            "plies": sum(1 for cell in final[0].observation.board if cell),
            "seconds": time.perf_counter() - started,
            "stderr": {str(i): _stderr(env, i) for i in ours if statuses[i] in BAD},
            "solver": [line for i in ours for line in _solver_lines(env, i)],
            "invalid": {
                str(i): _replay(path, steps, i, env.configuration) for i in ours if statuses[i] == "INVALID"
            },
        }
        emit(event="game", **event)
        if any(statuses[i] in BAD for i in ours):
            break
        limit = request["stop_over"]
        if limit is not None and any(t > limit for i in ours for t in event["durations"][i]):
            break


class _Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, names: list[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in self.names:
            raise ImportError(f"{name} is not needed by the ConnectX referee")


@contextlib.contextmanager
def refusing(names: list[str]) -> Iterator[None]:
    """Within the block, the top-level modules ``names`` do not import: the runner's
    :func:`tournament.refusal.refusing`, for a process that imports nothing of the project (the check
    hands over the names). They cost the referee seconds, never the agent, who may import them later."""
    finder = _Refuse(names)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _load_in_a_child() -> int | None:
    """Fork: None in the child; in the parent, the child's exit status once it ended (negative: the
    signal that killed it)."""
    sys.stdout.flush()
    sys.stderr.flush()  # else the child would write what is buffered again
    child = os.fork()
    if child == 0:
        return None
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


def _exit_as(status: int) -> int:
    """End this process as the load stage's child ended (``status``: its exit status, or minus the
    signal that killed it); its stderr is this one's."""
    if status < 0:
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        return 128 - status  # the shell's status, should the signal not end this process
    return status


def _plays_on(request: dict[str, Any]) -> bool:
    """Whether the games follow the load stage whose events ``request["out"]`` holds: it ended
    normally and the file loaded within ``request["load_limit"]`` seconds (or raised: the games then
    show Kaggle's verdict and traceback)."""
    with open(request["out"], encoding="utf-8") as handle:
        events = [json.loads(line) for line in handle]
    if not events or events[-1]["event"] != "done":
        return False
    loaded = [event for event in events if event["event"] == "load"]
    return bool(loaded) and ("error" in loaded[0] or loaded[0]["seconds"] <= request["load_limit"])


def main(argv: list[str]) -> int:
    request = json.loads(argv[1])
    out = open(request["out"], "a", encoding="utf-8")  # noqa: SIM115 - kept open for the whole run

    def emit(**event: object) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    root = os.path.realpath(request["project_root"])
    removed = isolate(root, request["packages"])
    importable = {name: importlib.util.find_spec(name) is not None for name in request["packages"]}
    isolation = dict(event="isolation", removed=removed, importable=importable, cwd=os.getcwd(),
                     isolated=bool(sys.flags.isolated), python=sys.version.split()[0])  # fmt: skip
    emit(**isolation)
    if any(importable.values()):
        emit(event="done", leaks=[])
        return 0

    started = time.perf_counter()
    with refusing(request["refuse"]):
        import kaggle_environments
        from kaggle_environments import make

    emit(
        event="kaggle",
        seconds=time.perf_counter() - started,
        version=getattr(kaggle_environments, "__version__", "?"),
    )
    if request["stage"] == "check":
        status = _load_in_a_child()
        if status is None:  # the child: the load stage
            request["stage"] = "load"
        elif status != 0:
            return _exit_as(status)
        elif not _plays_on(request):
            return 0
        else:
            emit(**isolation)  # the games stage begins, in this process: isolated, the file never loaded
            request["stage"] = "games"
    if request["stage"] == "load":
        _load(request, emit)
    else:
        _games(request, emit, make)
    leaks = sorted(
        name
        for name, module in list(sys.modules.items())
        if project_path(getattr(module, "__file__", None) or "", root)
    )
    emit(event="done", leaks=leaks)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # at once: see the module docstring


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception:  # noqa: BLE001 - the parent reads the traceback from stderr
        traceback.print_exc()
        sys.exit(4)
