"""Trainer of ``ppo``: sb3-contrib's ``MaskablePPO`` through :class:`~training.envs.ConnectXEnv`.

``connectx train ppo --steps N --out DIR`` (the ``[rl]`` extra: Stable-Baselines3, sb3-contrib,
PyTorch) trains the course's policy network (:mod:`agents.ppo` gives its layers) with PPO
(Schulman et al. 2017) and invalid-action masking (Huang & Ontañón, "A Closer Look at Invalid Action
Masking in Policy Gradient Algorithms", 2022: full columns get no probability, so no step is wasted on
them). The course trained ``PPO("CnnPolicy", ...)`` for 60,000 steps against ``random`` with its own
rewards; here (:class:`Parameters`, each one a ``--param NAME=VALUE`` of ``connectx train``):

* ``envs`` environments (:class:`~stable_baselines3.common.vec_env.DummyVecEnv`, one process),
  environment ``i`` against ``opponents[i % len]`` (``random`` and ``one_step`` by default): agent
  specs, or ``self``, the policy's own weights as of the start of the rollout (self-play against a
  snapshot); the learner's colour alternates; half the episodes start from a random opening of 1-8
  plies (:func:`random_opening`), so that it meets the middle game; Kaggle's rewards (+1, -1, 0);
  opponents untimed, a built-in one in this process, a file sandboxed as in a run;
* ``gamma`` 0.9 (Stable-Baselines3's default 0.99 makes a win now hardly better than a win later,
  and the policy learnt to stack its column while wins at once stood open) and ``ent_coef`` 0.05
  (at 0.01 the policy put 0.99 on one column within 300,000 steps).

The driver (:mod:`training.driver`) counts this learner's training in steps (:data:`UNIT`: the
learner's moves) and calls :meth:`PPOLearner.train` one rollout at a time (``envs * n_steps`` steps,
:meth:`Parameters.chunk`); it evaluates the policy alone (``ppo:tactics=false``, what training
learns) and checkpoints the model with its optimiser. A resumed run starts its environments and its
episodes in progress afresh, so it does not end with the same weights as an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

try:
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
except ImportError as missing:
    raise ImportError(
        f"ppo trains with the [rl] extra, not installed ({missing}): pip install -e '.[rl]' "
        "(docs/rl.md: PyTorch's CPU build first)"
    ) from missing

from agents import ppo, weights
from agents.engine.board import Board, Geometry
from agents.kit.adapter import Agent
from agents.registry import files_of
from training.envs import ConnectXEnv

__all__ = ["SELF", "UNIT", "CourseCNN", "PPOLearner", "Parameters", "export", "random_opening"]

UNIT = "step"
"""What the driver counts of this learner's training: steps, the learner's moves."""
SELF = "self"
"""The opponent spec that means the policy's own weights as of the start of the rollout."""


@dataclass(frozen=True, slots=True)
class Parameters:
    """PPO's settings (the module docstring): ``envs`` environments against ``opponents`` in turn
    (agent specs or :data:`SELF`), Adam's ``learning_rate``, the discount ``gamma`` a move,
    ``n_steps`` steps an environment a rollout, minibatches of ``batch_size`` steps, ``epochs``
    passes over each rollout, the entropy bonus ``ent_coef``. ``ValueError`` when a count is below 1
    or there is no opponent."""

    envs: int = 8
    opponents: tuple[str, ...] = ("random", "one_step")
    learning_rate: float = 3e-4
    gamma: float = 0.9
    n_steps: int = 256
    batch_size: int = 256
    epochs: int = 4
    ent_coef: float = 0.05

    def __post_init__(self) -> None:
        for name in ("envs", "n_steps", "batch_size", "epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.opponents:
            raise ValueError("opponents: give at least one")

    def chunk(self) -> int:
        """Steps of one rollout, ``envs * n_steps``: what one :meth:`PPOLearner.train` call trains."""
        return self.envs * self.n_steps


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
    """The :data:`SELF` opponent: a Kaggle agent playing the weights file at ``path`` as
    :mod:`agents.ppo` does, read again at each :meth:`refresh` (the first one before it plays)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.agent: Agent | None = None

    def refresh(self) -> None:
        self.agent = ppo.make_agent(weights=str(self.path))

    def __call__(self, obs: Any, config: Any) -> int:
        assert self.agent is not None, "a snapshot plays after its first refresh"
        return self.agent(obs, config)


class _Returns(BaseCallback):
    """The training games' returns and results, gathered step by step (:meth:`PPOLearner.train` reads
    and empties them); episodes run on across rollouts."""

    def __init__(self, envs: int) -> None:
        super().__init__()
        self.episode_return = np.zeros(envs)
        self.returns: list[float] = []
        self.results: list[float] = []

    def _on_step(self) -> bool:
        rewards, dones, infos = self.locals["rewards"], self.locals["dones"], self.locals["infos"]
        self.episode_return += rewards
        for i, done in enumerate(dones):
            if done:
                self.returns.append(float(self.episode_return[i]))
                self.results.append(float(infos[i]["result"]))
                self.episode_return[i] = 0.0
        return True


class PPOLearner:
    """The ``ppo`` trainer on the board ``geo`` (:class:`training.learners.Learner`, counted in
    steps): a ``MaskablePPO`` with :class:`CourseCNN` (policy layers 64, 64; value layers 64, 64)
    seeded by ``seed``, its environments seeded by ``seed``. ``ValueError`` for an opponent spec that
    is not an agent. Evaluations score the policy alone (:data:`EVAL_PARAMS`)."""

    EVAL_PARAMS: dict[str, Any] = {"tactics": False}
    """The agent evaluations score: the policy alone, what training learns."""

    def __init__(self, geo: Geometry, seed: int, parameters: Parameters | None = None) -> None:
        torch.set_num_threads(1)  # small networks: a second thread only competes with the environments
        self.geo, self.seed = geo, seed
        self.parameters = parameters or Parameters()
        self._scratch = tempfile.TemporaryDirectory(prefix="connectx-ppo-")  # the self opponents' file
        self.snapshots: list[Snapshot] = []
        self.vec = self._environments()
        self.model = self._model()
        self.returns = _Returns(self.parameters.envs)

    def train(self, steps: int) -> dict[str, float]:
        """Train ``steps`` steps, which must be one rollout (:meth:`Parameters.chunk`). Metrics, over
        the training games that ended in it (none when none did): ``return``, their mean return;
        ``training_score``, their mean result (1 win, 0.5 draw, 0 loss)."""
        assert steps == self.parameters.chunk(), f"ppo trains whole rollouts, asked {steps} steps"
        if self.snapshots:
            export(self.model, self._snapshot_file(), self.geo)
            for snapshot in self.snapshots:
                snapshot.refresh()
        self.model.learn(total_timesteps=steps, callback=self.returns, reset_num_timesteps=False)
        returns, results = self.returns.returns, self.returns.results
        self.returns.returns, self.returns.results = [], []
        if not returns:
            return {}
        return {"return": float(np.mean(returns)), "training_score": float(np.mean(results))}

    def save(self, path: Path) -> None:
        """The policy as the weights file of :mod:`agents.ppo` (:func:`export`)."""
        export(self.model, path, self.geo)

    def state(self) -> dict[str, Any]:
        """The model (its weights, its optimiser's state, its step count) as Stable-Baselines3 saves
        it, and PyTorch's generator (the actions' draws)."""
        buffer = io.BytesIO()
        self.model.save(buffer)
        return {"model": buffer.getvalue(), "torch_random": torch.get_rng_state()}

    def load_state(self, state: dict[str, Any]) -> None:
        self.model = MaskablePPO.load(io.BytesIO(state["model"]), env=self.vec, device="cpu")
        self.model.set_logger(Logger(folder=None, output_formats=[]))  # its default makes a folder in /tmp
        torch.set_rng_state(state["torch_random"])

    def _snapshot_file(self) -> Path:
        return Path(self._scratch.name) / "self.npz"

    def _environments(self) -> DummyVecEnv:
        geo, settings = self.geo, self.parameters

        def make(i: int) -> Callable[[], ConnectXEnv]:
            spec = settings.opponents[i % len(settings.opponents)]
            return lambda: ConnectXEnv(
                geo.rows,
                geo.columns,
                geo.inarow,
                opponent=self._snapshot() if spec == SELF else spec,
                # a built-in agent reading no file is this package's own code: played in this
                # process for speed; a file (or a spec naming one) plays sandboxed, as in a run
                in_process=spec != SELF and not files_of(spec),
                mark="alternate",
                openings=lambda rng: random_opening(rng, geo),
                timed=False,
            )

        vec = DummyVecEnv([make(i) for i in range(settings.envs)])
        vec.seed(self.seed)
        return vec

    def _snapshot(self) -> Snapshot:
        self.snapshots.append(Snapshot(self._snapshot_file()))
        return self.snapshots[-1]

    def _model(self) -> MaskablePPO:
        settings = self.parameters
        model = MaskablePPO(
            "MlpPolicy",
            self.vec,
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
            seed=self.seed,
            device="cpu",
            verbose=0,
        )
        model.set_logger(Logger(folder=None, output_formats=[]))  # its default makes a folder in /tmp
        return model
