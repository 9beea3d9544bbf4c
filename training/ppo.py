"""Train the ``ppo`` agent: sb3-contrib's ``MaskablePPO`` through :class:`~training.envs.ConnectXEnv`.

``python -m training.ppo --out DIR --steps N`` (the ``[rl]`` extra: Stable-Baselines3, sb3-contrib,
PyTorch) trains the course's policy network (:mod:`agents.ppo` gives its layers) with PPO
(Schulman et al. 2017) and invalid-action masking (Huang & Ontañón, "A Closer Look at Invalid Action
Masking in Policy Gradient Algorithms", 2022: full columns get no probability, so no step is wasted on
them). The course trained ``PPO("CnnPolicy", ...)`` for 60,000 steps against ``random`` with its own
rewards; here:

* ``--envs`` environments (:class:`~stable_baselines3.common.vec_env.DummyVecEnv`, one process),
  environment ``i`` against ``--opponents[i % len]`` (``random`` and ``one_step`` by default): agent
  specs, or ``self``, the policy's own last evaluated weights (self-play against a snapshot); the
  learner's colour alternates; half the episodes start from a random opening of 1-8 plies
  (:func:`random_opening`), so that it meets the middle game; Kaggle's rewards (+1, -1, 0);
  opponents untimed;
* ``--gamma`` 0.9 (Stable-Baselines3's default 0.99 makes a win now hardly better than a win later,
  and the policy learnt to stack its column while wins at once stood open) and ``--ent-coef`` 0.05
  (at 0.01 the policy put 0.99 on one column within 300,000 steps);
* every ``--eval-every`` steps and at the end: the weights exported to ``DIR/ppo.npz`` (numpy,
  :func:`export`), the policy alone (``ppo:tactics=false``, :mod:`agents.ppo`) scored against
  ``random`` and ``one_step`` over ``--eval-pairs`` game pairs of
  two-ply openings (:func:`training.evaluation.paired_score`, as ``connectx train`` scores), a row
  of the learning curve ``DIR/curve.csv`` and ``DIR/curve.png`` (:mod:`training.curve`: games,
  seconds, the mean return and score of the training games since the last row, the evaluations'
  scores, the steps), and the model ``DIR/model.zip`` with the curve's rows ``DIR/history.json``.

The same command again resumes from ``DIR/model.zip`` up to ``--steps`` (the environments and the
rollout in progress start afresh, so a resumed run does not end with the same weights as an
uninterrupted one). The weights play as ``ppo:weights=DIR/ppo.npz``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces

# Stable-Baselines3 imports the old ``gym`` when installed (kaggle-environments installs 0.26), which
# prints a notice to stderr on import that is about gym, not this program: it is swallowed here.
with contextlib.redirect_stderr(io.StringIO()):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.base_class import BaseAlgorithm
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from stable_baselines3.common.vec_env import DummyVecEnv

from agents import ppo, weights
from agents.engine.board import Board, Geometry, geometry
from agents.files import replace_atomically
from agents.kit.adapter import Agent, kaggle_agent
from tournament.openings import random_openings
from training import curve
from training.envs import ConnectXEnv
from training.evaluation import opponent, paired_score

__all__ = ["CourseCNN", "Settings", "export", "main", "random_opening", "train"]

EVAL_OPPONENTS = ("random", "one_step")
SELF = "self"
"""The opponent spec that means the policy's own last exported weights."""
MODEL = "model.zip"
HISTORY = "history.json"
WEIGHTS = "ppo.npz"


class CourseCNN(BaseFeaturesExtractor):
    """The course's features extractor (its ``CustomCNN``): two 3x3 convolutions without padding, 32
    and 64 channels, ReLU, flattened, then a dense layer to ``features_dim`` (128), ReLU."""

    def __init__(self, observation_space: spaces.Box, features_dim: int = 128) -> None:
        super().__init__(observation_space, features_dim)
        channels, rows, columns = observation_space.shape
        self.cnn = torch.nn.Sequential(
            torch.nn.Conv2d(channels, 32, kernel_size=3),
            torch.nn.ReLU(),
            torch.nn.Conv2d(32, 64, kernel_size=3),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
        )
        flat = 64 * (rows - 4) * (columns - 4)
        self.linear = torch.nn.Sequential(torch.nn.Linear(flat, features_dim), torch.nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.linear(self.cnn(observations))
        return out


def export(model: BaseAlgorithm, path: Path, geo: Geometry) -> None:
    """Write the policy of ``model`` (a ``MaskablePPO`` with :class:`CourseCNN`) as a weights file of
    :mod:`agents.ppo` at ``path``: the convolutions, the features layer, the policy's hidden layers and
    its logits layer (the value head is not needed to play)."""
    policy = cast(MaskableActorCriticPolicy, model.policy)
    extractor = cast(CourseCNN, policy.pi_features_extractor)
    convolutions = [m for m in extractor.cnn.children() if isinstance(m, torch.nn.Conv2d)]
    dense = [m for m in extractor.linear.children() if isinstance(m, torch.nn.Linear)]
    dense += [m for m in policy.mlp_extractor.policy_net.children() if isinstance(m, torch.nn.Linear)]
    dense.append(cast(torch.nn.Linear, policy.action_net))
    arrays: dict[str, np.ndarray] = {}
    for name, layer in [(f"conv{i}", conv) for i, conv in enumerate(convolutions)]:
        arrays[name], arrays[f"{name}_bias"] = _numpy(layer.weight), _numpy(layer.bias)
    for i, linear in enumerate(dense):
        arrays[f"w{i}"], arrays[f"b{i}"] = _numpy(linear.weight).T, _numpy(linear.bias)
    weights.save(path, arrays, geo)


def _numpy(tensor: torch.Tensor | None) -> np.ndarray:
    assert tensor is not None, "a layer without a bias"
    array: np.ndarray = tensor.detach().numpy().astype(np.float32)  # typed alike with and without torch
    return array


def random_opening(
    rng: np.random.Generator, geo: Geometry, *, share: float = 0.5, plies: int = 8
) -> list[int]:
    """Where a training episode starts: the empty board with probability ``1 - share``, else 1 to
    ``plies`` uniformly random moves (drawn from ``rng``) that leave the game going."""
    if rng.random() >= share:
        return []
    while True:
        board = Board(geo.rows, geo.columns, geo.inarow)
        for _ in range(int(rng.integers(1, plies + 1))):
            legal = board.legal_moves()
            board.push(legal[int(rng.integers(len(legal)))])
            if board.is_game_over():
                break
        if not board.is_game_over():
            return list(board.moves)


class Snapshot:
    """The ``self`` opponent: a Kaggle agent playing the weights file at ``path`` as :mod:`agents.ppo`
    does, read again after each :meth:`refresh`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.refresh()

    def refresh(self) -> None:
        self.agent: Agent = kaggle_agent(ppo.PPO(str(self.path)))

    def __call__(self, obs: Any, config: Any) -> int:
        return self.agent(obs, config)


class Settings(argparse.Namespace):
    """The command's options (see :func:`parser`)."""

    out: Path
    steps: int
    envs: int
    opponents: list[str]
    seed: int
    eval_every: int
    eval_pairs: int
    rows: int
    columns: int
    inarow: int
    learning_rate: float
    gamma: float
    n_steps: int
    batch_size: int
    epochs: int
    ent_coef: float
    quiet: bool


def parser() -> argparse.ArgumentParser:
    """The options of ``python -m training.ppo``."""
    p = argparse.ArgumentParser(
        prog="python -m training.ppo",
        description="Train the ppo agent with MaskablePPO through ConnectXEnv; the same command resumes.",
    )
    p.add_argument("--out", type=Path, required=True, help="directory of the run")
    p.add_argument("--steps", type=int, default=1_000_000, help="learner moves in all (default 1,000,000)")
    p.add_argument("--envs", type=int, default=8, help="environments played side by side (default 8)")
    p.add_argument(
        "--opponents",
        nargs="+",
        default=["random", "one_step"],
        metavar="SPEC",
        help="agent specs of the environments' opponents, in turn, or 'self' (default: random one_step)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-every", type=int, default=50_000, metavar="STEPS", help="default 50,000")
    p.add_argument("--eval-pairs", type=int, default=10, metavar="PAIRS", help="default 10")
    p.add_argument("--rows", type=int, default=6)
    p.add_argument("--columns", type=int, default=7)
    p.add_argument("--inarow", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument(
        "--gamma",
        type=float,
        default=0.9,
        help="discount a move (default 0.9: a win now is worth clearly more than a win later)",
    )
    p.add_argument("--n-steps", type=int, default=256, help="steps per environment per rollout (default 256)")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4, help="passes over each rollout (default 4)")
    p.add_argument(
        "--ent-coef",
        type=float,
        default=0.05,
        help="entropy bonus (default 0.05: at 0.01 the policy settled on one column)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


class _Evaluations(BaseCallback):
    """Counts the training games and their results; every ``every`` steps (at the end of a rollout)
    exports, scores and checkpoints (the module docstring)."""

    def __init__(
        self, settings: Settings, geo: Geometry, history: list[dict[str, float]], snapshots: list[Snapshot]
    ):
        super().__init__()
        self.settings, self.geo, self.history, self.snapshots = settings, geo, history, snapshots
        self.openings = random_openings(geo, 2, settings.eval_pairs, settings.seed) or ((),)
        last = history[-1] if history else {}
        self.games = int(last.get("games", 0))
        self.seconds = float(last.get("seconds", 0.0))
        self.began = time.perf_counter()
        self.returns: list[float] = []
        self.results: list[float] = []
        self.episode_return = np.zeros(settings.envs)
        self.next_eval = (int(last.get("steps", 0)) // settings.eval_every + 1) * settings.eval_every

    def _on_step(self) -> bool:
        rewards, dones, infos = self.locals["rewards"], self.locals["dones"], self.locals["infos"]
        self.episode_return += rewards
        for i, done in enumerate(dones):
            if done:
                self.games += 1
                self.returns.append(float(self.episode_return[i]))
                self.results.append(float(infos[i]["result"]))
                self.episode_return[i] = 0.0
        return True

    def _on_rollout_end(self) -> None:
        if self.num_timesteps >= self.next_eval:
            self.evaluate()
            self.next_eval = (self.num_timesteps // self.settings.eval_every + 1) * self.settings.eval_every

    def evaluate(self) -> None:
        out, geo = self.settings.out, self.geo
        export(self.model, out / WEIGHTS, geo)
        for snapshot in self.snapshots:
            snapshot.refresh()
        player = ppo.make_agent(weights=str(out / WEIGHTS), tactics=False)  # what training learns
        row: dict[str, float] = {"games": self.games, "steps": self.num_timesteps}
        if self.returns:
            row |= {"return": float(np.mean(self.returns)), "training_score": float(np.mean(self.results))}
        self.returns, self.results = [], []
        for name in EVAL_OPPONENTS:
            row[f"score_{name}"] = paired_score(
                player, opponent(name, self.settings.seed), geo, self.openings
            )
        row["seconds"] = round(self.seconds + time.perf_counter() - self.began, 1)
        self.history.append(row)
        title = f"ppo on {geo.rows}x{geo.columns}, {geo.inarow} in a row, seed {self.settings.seed}"
        curve.write(self.history, out, title=title)
        replace_atomically(out / MODEL, self.model.save)
        text = json.dumps(self.history, indent=1)
        replace_atomically(out / HISTORY, lambda temporary: temporary.write_text(text, encoding="utf-8"))
        if not self.settings.quiet:
            scores = ", ".join(f"{name} {100 * row[f'score_{name}']:.0f} %" for name in EVAL_OPPONENTS)
            print(
                f"{self.num_timesteps} steps, {self.games} games, {row['seconds']:.0f} s: {scores}",
                file=sys.stderr,
            )


def _environments(settings: Settings, geo: Geometry, snapshot: Callable[[], Snapshot]) -> DummyVecEnv:
    def make(i: int) -> Callable[[], ConnectXEnv]:
        spec = settings.opponents[i % len(settings.opponents)]
        return lambda: ConnectXEnv(
            geo.rows,
            geo.columns,
            geo.inarow,
            opponent=snapshot() if spec == SELF else spec,
            mark="alternate",
            openings=lambda rng: random_opening(rng, geo),
            timed=False,
        )

    vec = DummyVecEnv([make(i) for i in range(settings.envs)])
    vec.seed(settings.seed)
    return vec


def train(settings: Settings) -> list[dict[str, float]]:
    """Train (or resume) as the module docstring says; returns the learning curve's rows."""
    geo = geometry(settings.rows, settings.columns, settings.inarow)
    out = settings.out
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)  # small networks: a second thread only competes with the environments
    history: list[dict[str, float]] = []
    if (out / HISTORY).exists():
        history = json.loads((out / HISTORY).read_text(encoding="utf-8"))
    snapshots: list[Snapshot] = []

    def snapshot() -> Snapshot:
        snapshots.append(Snapshot(out / WEIGHTS))
        return snapshots[-1]

    resuming = (out / MODEL).exists()
    if SELF in settings.opponents and not resuming:
        model = _new_model(settings, None)  # the snapshot needs weights before the environments exist
        export(model, out / WEIGHTS, geo)
    vec = _environments(settings, geo, snapshot)
    if resuming:
        model = MaskablePPO.load(out / MODEL, env=vec, device="cpu")
        if not settings.quiet:
            print(f"resuming {out} at {model.num_timesteps} steps", file=sys.stderr)
    else:
        model = _new_model(settings, vec)
    callback = _Evaluations(settings, geo, history, snapshots)
    remaining = settings.steps - model.num_timesteps
    if remaining > 0:
        model.set_logger(Logger(folder=None, output_formats=[]))  # its default makes a folder in /tmp
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False)
        if not history or history[-1].get("steps") != model.num_timesteps:
            callback.evaluate()
    return history


def _new_model(settings: Settings, vec: DummyVecEnv | None) -> MaskablePPO:
    geo = geometry(settings.rows, settings.columns, settings.inarow)
    if vec is None:
        vec = DummyVecEnv([lambda: ConnectXEnv(geo.rows, geo.columns, geo.inarow)])
    return MaskablePPO(
        "MlpPolicy",
        vec,
        learning_rate=settings.learning_rate,
        gamma=settings.gamma,
        n_steps=settings.n_steps,
        batch_size=settings.batch_size,
        n_epochs=settings.epochs,
        ent_coef=settings.ent_coef,
        policy_kwargs={
            "features_extractor_class": CourseCNN,
            "features_extractor_kwargs": {"features_dim": 128},
            "net_arch": {"pi": [64, 64], "vf": [64, 64]},
        },
        seed=settings.seed,
        device="cpu",
        verbose=0,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.ppo``: 0 trained, 2 bad options."""
    p = parser()
    settings = p.parse_args(argv, namespace=Settings())
    for name in ("steps", "envs", "eval_every", "eval_pairs", "n_steps", "batch_size", "epochs"):
        if getattr(settings, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    try:
        geometry(settings.rows, settings.columns, settings.inarow)
        for spec in settings.opponents:
            if spec != SELF:
                ConnectXEnv(settings.rows, settings.columns, settings.inarow, opponent=spec)
    except ValueError as error:
        p.error(str(error))
    began = time.perf_counter()
    history = train(settings)
    last = history[-1]
    spent = time.perf_counter() - began
    print(
        f"ppo: {int(last['steps'])} steps ({int(last['games'])} games) in {spent:.0f} s this run, "
        f"{last['seconds']:.0f} s in all\n"
        f"weights: {settings.out / WEIGHTS}  (agent spec: ppo:weights={settings.out / WEIGHTS})\n"
        f"curve:   {settings.out / curve.CSV}, {settings.out / curve.PNG}\n"
        "scores:  "
        + ", ".join(f"{name} {100 * last[f'score_{name}']:.1f} %" for name in EVAL_OPPONENTS)
        + " (wins + draws / 2, last evaluation)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
