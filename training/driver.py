"""The training loop of ``connectx train``: chunks of games, evaluations, checkpoints, the curve.

:func:`run` trains a :class:`~training.learners.Learner` in chunks of :data:`CHUNK` games (a
learner counted in steps, ``ppo``, trains a chunk of its own size, one rollout, and a run of whole
chunks: ``total`` is rounded up). After every ``eval_every`` games (a multiple of the chunk) and at
the end it

1. writes the weights, ``OUT/METHOD.npz`` (:meth:`Learner.save`);
2. makes the agent of that file, ``agents.METHOD.make_agent(weights=..., **EVAL_PARAMS)`` (the
   module is the registry's, :data:`agents.registry.BUILTIN`; ``EVAL_PARAMS`` the learner's, e.g. a
   fixed depth for an agent that would otherwise search until the clock), and scores it against
   ``random`` and ``one_step`` (:mod:`training.evaluation`): ``eval_pairs`` seeded two-ply openings
   (:func:`tournament.openings.random_openings`), each played with both colours, against opponents
   seeded by the run's seed -- the same openings and opponents at every evaluation, so that the
   curve moves with the weights only;
3. gives the row of the learning curve (``OUT/curve.csv``, ``OUT/curve.png``, :mod:`training.curve`)
   its two scores. The curve has a row every :data:`METRICS_EVERY` games (a learner counted in steps:
   at evaluations only) and at every evaluation: games (or steps), wall seconds, the learner's
   metrics averaged over the chunks since the last row (weighted by their games or steps), and the
   scores in evaluation rows;
4. writes ``OUT/checkpoint.pkl`` atomically: the learner's state, games done, the curve's rows, the
   run's settings and the states of the global ``random`` and ``numpy.random`` generators (seeded
   by the run's seed at its start, for any code that draws from them).

A run given the same ``OUT`` again resumes from its checkpoint and ends with the same weights as a
run never interrupted, provided the learner's ``state()`` is complete and the run stopped on a
multiple of :data:`CHUNK` games (every checkpoint but the one of an odd ``--games`` is): chunks are
the same either way, and evaluations leave the global generators as they found them. A checkpoint of
another method, board or seed is refused (:class:`RunError`) before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import pickle
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import registry
from agents.engine.board import Geometry
from agents.files import replace_atomically
from tournament.openings import random_openings
from training import curve
from training.evaluation import opponent, paired_score
from training.learners import LEARNERS, Learner, learner, parameters, unit

__all__ = ["CHUNK", "EVAL_OPPONENTS", "Interrupted", "RunError", "TrainingSettings", "TrainingSummary", "run"]

CHUNK = 10
"""Games a :meth:`Learner.train` call plays; evaluations and checkpoints fall between chunks."""

METRICS_EVERY = 100
"""Games per row of the learner's metrics in the curve (the classic tutorials plot per 100 games)."""

EVALUATIONS = 20
"""Evaluations in a run by default (``eval_every`` = games / this, rounded up to whole chunks)."""

EVAL_OPPONENTS = ("random", "one_step")
"""The opponents of every evaluation (:func:`training.evaluation.opponent`)."""

OPENING_PLIES = 2
"""Plies of the evaluation openings."""

CHECKPOINT = "checkpoint.pkl"
FORMAT = 2
"""Version of the checkpoint's layout (2: ``value_net`` and ``q_net`` keep their replay buffer under
``learner["replay"]``, :class:`training.learners.replay.ReplayBuffer`)."""

IDENTITY = ("method", "rows", "columns", "inarow", "seed", "chunk", "params")
"""The settings a resumed run must share with its checkpoint (``params``: the learner's parameters,
None for a learner without them and in a checkpoint older than them)."""


class RunError(ValueError):
    """A run that cannot start: a checkpoint of another run, or one that cannot be read."""


class Interrupted(Exception):
    """Ctrl-C: ``games`` are in the last checkpoint (0: none was written)."""

    def __init__(self, games: int) -> None:
        super().__init__(f"interrupted with {games} games checkpointed")
        self.games = games


@dataclass(frozen=True, slots=True)
class TrainingSettings:
    """A run: train ``method`` (a key of :data:`training.learners.LEARNERS`) for ``total`` games
    (steps when the method counts steps, :func:`training.learners.unit`) on the board ``geo`` with
    ``seed`` and the learner's parameters ``params`` ((name, text) pairs,
    :func:`training.learners.parameters`); evaluate every ``eval_every`` games or steps (None: total /
    :data:`EVALUATIONS`; rounded up to whole chunks) with ``eval_pairs`` game pairs per opponent."""

    method: str
    geo: Geometry
    total: int
    seed: int = 0
    eval_every: int | None = None
    eval_pairs: int = 10
    params: tuple[tuple[str, str], ...] = ()

    def unit(self) -> str:
        """``"game"`` or ``"step"``: what ``total``, ``eval_every`` and the chunks count."""
        return unit(self.method)

    def chunk(self) -> int:
        """Games (or steps) of one :meth:`Learner.train` call: :data:`CHUNK`, or the learner's."""
        settings = parameters(self.method, dict(self.params))
        return int(settings.chunk()) if hasattr(settings, "chunk") else CHUNK

    def target(self) -> int:
        """Games (or steps) the run ends at: ``total``, rounded up to whole chunks for steps."""
        if self.unit() == "game":
            return self.total
        return self.chunk() * math.ceil(self.total / self.chunk())

    def every(self) -> int:
        """Games (or steps) between two evaluations: a positive multiple of :meth:`chunk`."""
        chunk = self.chunk()
        wanted = self.eval_every or math.ceil(self.total / EVALUATIONS)
        return chunk * max(1, math.ceil(wanted / chunk))

    def identity(self) -> dict[str, Any]:
        """The settings (:data:`IDENTITY`) a checkpoint must share to be resumed by this run."""
        geo = self.geo
        settings = parameters(self.method, dict(self.params))
        params = None if settings is None else dataclasses.asdict(settings)  # the values, not their texts
        values = (self.method, geo.rows, geo.columns, geo.inarow, self.seed, self.chunk(), params)
        return dict(zip(IDENTITY, values, strict=True))


@dataclass(frozen=True, slots=True)
class TrainingSummary:
    """Where a run's results are and what they say: ``weights`` (the ``.npz`` file), ``spec`` (the
    agent spec playing it), ``csv``/``png`` (the curve), ``done`` games (or steps) trained, the ``unit``
    (``"game"`` or ``"step"``), the last ``scores``
    (opponent -> score), ``seconds`` (wall, resumes added up) and ``train_seconds`` (in
    :meth:`Learner.train` only); ``already_done``: the checkpoint had the games asked, nothing ran."""

    weights: Path
    spec: str
    csv: Path
    png: Path
    done: int
    unit: str = "game"
    scores: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    train_seconds: float = 0.0
    already_done: bool = False


def run(settings: TrainingSettings, out: Path, *, progress: bool = True) -> TrainingSummary:
    """Train, evaluate and checkpoint as the module docstring says, into the directory ``out``
    (created; resumed when it holds a checkpoint). ``progress``: a tqdm bar on stderr (games, rate,
    ETA, the last scores).

    Raises :class:`RunError` for a checkpoint of another run or a damaged one, or a learner refusing
    its settings (``out`` untouched), ``KeyError`` for an unknown method, ``ImportError`` for a
    learner needing what is not installed, :class:`Interrupted` on Ctrl-C (the last checkpoint stays),
    ``OSError`` when ``out`` cannot be written.
    """
    if settings.method not in LEARNERS:
        raise KeyError(settings.method)
    saved = _read_checkpoint(out / CHECKPOINT, settings)
    summary = _summary(settings, out, saved)
    if saved is not None and saved["games"] >= settings.target():
        return dataclasses.replace(summary, already_done=True)
    try:
        try:
            trainer = learner(settings.method, settings.geo, settings.seed, dict(settings.params))
        except ValueError as error:
            raise RunError(f"cannot train {settings.method}: {error}") from None
        if saved is None:
            saved = {"games": 0, "history": [], "seconds": 0.0, "train_seconds": 0.0}
            random.seed(settings.seed)
            np.random.seed(settings.seed % 2**32)
        else:
            trained = f"{saved['games']} of {settings.target()} {settings.unit()}s"
            print(f"resuming {out}: {trained} trained", file=sys.stderr)
            trainer.load_state(saved["learner"])
            random.setstate(saved["python_random"])
            np.random.set_state(saved["numpy_random"])
        out.mkdir(parents=True, exist_ok=True)
        return _loop(settings, out, trainer, saved, progress)
    except KeyboardInterrupt:
        raise Interrupted(_checkpointed(out / CHECKPOINT)) from None


def _loop(
    settings: TrainingSettings, out: Path, trainer: Learner, saved: dict[str, Any], progress: bool
) -> TrainingSummary:
    from tqdm import tqdm

    done, history = saved["games"], list(saved["history"])
    seconds, train_seconds = saved["seconds"], saved["train_seconds"]
    every, chunk, target, unit = settings.every(), settings.chunk(), settings.target(), settings.unit()
    metrics_every = METRICS_EVERY if unit == "game" else every
    openings = random_openings(settings.geo, OPENING_PLIES, settings.eval_pairs, settings.seed) or ((),)
    pending: list[tuple[int, dict[str, float]]] = []  # (games, metrics) of each chunk since the last row
    began = time.perf_counter()
    bar = tqdm(
        total=target,
        initial=done,
        unit=unit,
        desc=settings.method,
        file=sys.stderr,
        disable=not progress,
        dynamic_ncols=True,
    )
    with bar:
        while done < target:
            games = min(chunk - done % chunk, target - done)
            start = time.perf_counter()
            metrics = trainer.train(games)
            train_seconds += time.perf_counter() - start
            pending.append((games, metrics))
            done += games
            bar.update(games)
            evaluate = not done % every or done >= target
            if done % metrics_every and not evaluate:
                continue
            row = {f"{unit}s": done, "seconds": round(seconds + time.perf_counter() - began, 3)}
            row |= _average(pending)
            pending = []
            history.append(row)
            if not evaluate:
                continue
            scores = _save_and_score(settings, out, trainer, history, openings)
            row["seconds"] = round(seconds + time.perf_counter() - began, 3)
            curve.write(
                history, out, title=f"{settings.method} on {_board(settings.geo)}, seed {settings.seed}"
            )
            _write_checkpoint(out / CHECKPOINT, _checkpoint(settings, trainer, history, train_seconds))
            bar.set_postfix_str(", ".join(f"{name} {s:.2f}" for name, s in scores.items()))
    return _summary(
        settings,
        out,
        {
            "games": done,
            "history": history,
            "seconds": history[-1]["seconds"],
            "train_seconds": train_seconds,
        },
    )


def _save_and_score(
    settings: TrainingSettings,
    out: Path,
    trainer: Learner,
    history: list[dict[str, float]],
    openings: tuple[tuple[int, ...], ...],
) -> dict[str, float]:
    """Save the weights and score them (:func:`_evaluate`) into the last row of ``history``; returns
    the scores by opponent."""
    trainer.save(out / f"{settings.method}.npz")
    scores = _evaluate(settings, out, openings, getattr(trainer, "EVAL_PARAMS", {}))
    history[-1] |= {f"score_{name}": s for name, s in scores.items()}
    return scores


def _checkpoint(
    settings: TrainingSettings, trainer: Learner, history: list[dict[str, float]], train_seconds: float
) -> dict[str, Any]:
    """The checkpoint's contents after the games of ``history``'s last row."""
    return {
        "format": FORMAT,
        "settings": settings.identity()
        | {"total": settings.target(), "eval_every": settings.every(), "eval_pairs": settings.eval_pairs},
        "games": history[-1][f"{settings.unit()}s"],  # the games (or steps) done
        "history": history,
        "learner": trainer.state(),
        "python_random": random.getstate(),
        "numpy_random": np.random.get_state(),
        "seconds": history[-1]["seconds"],
        "train_seconds": train_seconds,
    }


def _evaluate(
    settings: TrainingSettings, out: Path, openings: tuple[tuple[int, ...], ...], params: dict[str, Any]
) -> dict[str, float]:
    """Score of the agent of ``OUT/METHOD.npz`` with ``params`` against each of :data:`EVAL_OPPONENTS`."""
    module = registry.module(settings.method)
    agent = module.make_agent(weights=str(out / f"{settings.method}.npz"), **params)
    with _global_generators_kept():
        return {
            name: paired_score(agent, opponent(name, settings.seed), settings.geo, openings)
            for name in EVAL_OPPONENTS
        }


@contextlib.contextmanager
def _global_generators_kept() -> Iterator[None]:
    """Restore the global ``random`` and ``numpy.random`` states on leaving, so that evaluating
    (wherever it falls) does not change what training draws."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


def _average(chunks: list[tuple[int, dict[str, float]]]) -> dict[str, float]:
    """Each metric averaged over the chunks reporting it, weighted by their games."""
    names = list(dict.fromkeys(name for _, metrics in chunks for name in metrics))
    averages = {}
    for name in names:
        pairs = [(games, float(metrics[name])) for games, metrics in chunks if name in metrics]
        averages[name] = sum(games * value for games, value in pairs) / sum(games for games, _ in pairs)
    return averages


def _board(geo: Geometry) -> str:
    return f"{geo.rows}x{geo.columns}, {geo.inarow} in a row"


def _read_checkpoint(path: Path, settings: TrainingSettings) -> dict[str, Any] | None:
    """The checkpoint at ``path`` (None when there is none); :class:`RunError` when it cannot be read
    or belongs to another run."""
    if not path.exists():
        return None
    try:
        with open(path, "rb") as handle:
            saved = pickle.load(handle)
        stored = {
            key: saved["settings"].get(key) if key == "params" else saved["settings"][key] for key in IDENTITY
        }
    except Exception as error:  # unpickling a damaged file raises many kinds
        problem = f"{type(error).__name__}: {error}"
        raise RunError(f"{path} cannot be read ({problem}); move it away to start over") from None
    if saved.get("format") != FORMAT:
        raise RunError(f"{path} has checkpoint format {saved.get('format')!r}, this toolkit reads {FORMAT}")
    wanted = settings.identity()
    if stored != wanted:
        differ = ", ".join(
            f"{key} {stored[key]} (asked {wanted[key]})" for key in IDENTITY if stored[key] != wanted[key]
        )
        raise RunError(f"{path.parent} holds another training run: {differ}; use another --out")
    checkpoint: dict[str, Any] = saved
    return checkpoint


def _checkpointed(path: Path) -> int:
    """Games in the checkpoint at ``path`` (0 when there is none)."""
    if not path.exists():
        return 0
    with open(path, "rb") as handle:
        return int(pickle.load(handle)["games"])


def _write_checkpoint(path: Path, saved: dict[str, Any]) -> None:
    data = pickle.dumps(saved, protocol=pickle.HIGHEST_PROTOCOL)
    replace_atomically(path, lambda temporary: temporary.write_bytes(data))


def _summary(settings: TrainingSettings, out: Path, saved: dict[str, Any] | None) -> TrainingSummary:
    weights = out / f"{settings.method}.npz"
    saved = saved or {"games": 0, "history": [], "seconds": 0.0, "train_seconds": 0.0}
    last = saved["history"][-1] if saved["history"] else {}
    return TrainingSummary(
        weights=weights,
        spec=f"{settings.method}:weights={weights}",
        csv=out / curve.CSV,
        png=out / curve.PNG,
        done=saved["games"],
        unit=settings.unit(),
        scores={name: last[f"score_{name}"] for name in EVAL_OPPONENTS if f"score_{name}" in last},
        seconds=saved["seconds"],
        train_seconds=saved["train_seconds"],
    )
