"""Train the policy/value network on positions labelled by perfect play; resumable, with curves.

Method (supervised distillation of the solver, chosen because it learns fastest per CPU-second
here): positions from noisy tactical games are weak-solved move by move by the numba solver
(:mod:`training.network.data`); the policy target is uniform over the moves of the best outcome class
(immediate wins preferred), the value target the position's class (loss / draw / win). Losses:
cross-entropy of the masked policy plus cross-entropy of the value (AlphaZero's two heads, Silver et
al. 2018, with solver targets instead of MCTS visit counts and game outcomes). The solved moves give
free value-only examples (the position after each move, valued by the solver): half of every batch.
Mirror symmetry doubles the data (each batch is flipped at random). ``--book`` adds the opening
book's 96 K positions (plies 0-16, one winning move each: a one-hot policy target) to the labelled
data, since early positions cost the solver minutes each. ``--exact DIR`` adds the exact data set of
:mod:`training.exact` (balanced games, every move scored through the solved game's databases; built
there when missing, its last shard of each part held out), drawn for ``--exact-fraction`` of the
labelled half of every batch. ``--teacher FILE.npz`` makes another network's policy the target of the
noisy positions from ``--teacher-ply`` on (knowledge distillation, Hinton, Vinyals & Dean 2015), so that
a fine-tune on the exact set keeps the late-game moves of the weights it started from. Adam (Kingma &
Ba 2015) with cosine decay.

Command::

    nice -n 19 python -m training.network.train --out runs/network [--steps N] [--smoke]

``OUT/data/shard-*.npz`` are generated first when missing (``--shards``, ``--shard-size``); then
``OUT/checkpoint.pkl`` is resumed if present (a resumed run may be given more ``--shards`` and
``--steps``: the cosine schedule is then stretched to the new length, and the last shard, held out,
changes). A new run may start from smaller weights instead of random ones: ``--init-from FILE.npz``
grows them to ``--channels`` / ``--blocks`` without changing what they compute
(:func:`training.network.model.grow`). ``--data DIR`` reads the shards from another run's directory.
Every ``--eval-every`` steps: validation metrics on the held-out shard (policy accuracy =
argmax among the solver's best moves; value accuracy), games of the network alone against ``random``
and kaggle's ``negamax``, a checkpoint, ``OUT/history.json``, ``OUT/curves.png`` and
``OUT/network.npz`` (float16 weights for the agent). Log: ``OUT/train.log``. ``--smoke`` is a
short run for tests (tiny data, 40 steps, one evaluation at the end).
"""

from __future__ import annotations

import argparse
import functools
import json
import pickle
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.engine.board import geometry
from agents.files import replace_atomically
from agents.network.features import COLUMNS, PLANES, ROWS
from agents.network.numpy_forward import load_weights
from training.evaluation import opponent, paired_score
from training.network.batches import Data, Examples, load_data, sample_batch
from training.network.data import add_shard_arguments
from training.network.evaluate import plot_curves

__all__ = ["main"]

STANDARD = geometry(6, 7, 4)
"""The board the network plays."""
VALIDATION_CHUNK = 4096
"""Held-out positions evaluated a batch."""


def _log(out: Path, message: str) -> None:
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}"
    with open(out / "train.log", "a") as f:
        f.write(line + "\n")
    from tqdm import tqdm

    tqdm.write(line, file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m training.network.train", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True)
    add_shard_arguments(parser)
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--eval-every", type=int, default=1000)
    parser.add_argument("--eval-games", type=int, default=10, help="games per colour against each opponent")
    parser.add_argument(
        "--book",
        action="store_true",
        help="add the opening book's positions (one winning move each) to the training data",
    )
    parser.add_argument(
        "--exact", type=Path, help="directory of the exact data set (training.exact; built when missing)"
    )
    parser.add_argument("--exact-book-shards", type=int, default=60, help="its shards of plies 0-11")
    parser.add_argument("--exact-deep-shards", type=int, default=8, help="its shards of plies 12-22")
    parser.add_argument(
        "--exact-fraction", type=float, default=0.75, help="share of labelled examples drawn from it"
    )
    parser.add_argument(
        "--init-from",
        type=Path,
        help="start a new run from these weights (.npz), grown to --channels / --blocks (model.grow)",
    )
    parser.add_argument("--data", type=Path, help="directory of the data shards (default OUT/data)")
    parser.add_argument(
        "--teacher",
        type=Path,
        help="weights (.npz) whose policy is the target of the noisy positions from --teacher-ply on",
    )
    parser.add_argument("--teacher-ply", type=int, default=12, help="first ply taught by --teacher")
    parser.add_argument("--smoke", action="store_true", help="short run for tests")
    return parser


@dataclass
class State:
    """The resumable state of a run: flax ``params``, optax ``opt_state``, ``step`` and ``history``
    (one record a evaluation)."""

    params: Any
    opt_state: Any
    step: int
    history: list[dict[str, float]]


def _start(args: argparse.Namespace, out: Path, optimiser: Any, init: Any, small: Any) -> State:
    """The run's checkpoint when there is one, else new parameters from ``init(key)`` (grown from
    ``small`` if given)."""
    import jax

    from training.network.model import grow

    checkpoint = out / "checkpoint.pkl"
    if checkpoint.exists():
        with open(checkpoint, "rb") as f:
            saved = pickle.load(f)
        _log(out, f"resumed at step {saved['step']}")
        if small is not None:
            _log(out, f"--init-from {args.init_from} ignored: the run resumes from its checkpoint")
        return State(saved["params"], saved["opt_state"], saved["step"], saved["history"])
    params = init(jax.random.PRNGKey(args.seed))
    if small is not None:
        params = grow(small, params)
        _log(out, f"initialised from {args.init_from}, grown to {args.channels}x{args.blocks}")
    return State(params, optimiser.init(params), 0, [])


@functools.cache
def _functions(
    channels: int, blocks: int, lr: float, steps: int, weight_decay: float
) -> tuple[Any, Any, Any, Any]:
    """The optimiser (AdamW with cosine decay) and three jitted functions of the net of ``channels``
    and ``blocks``: ``init(key) -> params``, ``train_step(params, opt_state, planes, legal, policy,
    value) -> (params, opt_state, loss)`` and ``evaluate(params, planes, legal, policy, value) ->
    (policy loss, value loss, policy accuracy, value accuracy)``. Losses: AlphaZero's two
    cross-entropies (policy over the legal moves, for rows that have a policy target; value over
    loss / draw / win).

    Cached: another run of the same net and schedule in this process (a notebook's second
    :func:`main`, a run started from another's weights) reuses the compiled functions instead of
    compiling them again: about 7 s of CPU for a 16-channel net, 4.4 s of them the initialisation
    (XLA compiles its random draws slowly; jitted whole, 1.5 s less than flax's op-by-op
    ``init``, whose values it gives bit for bit), 2 s the train step; and kept between processes
    (:mod:`training.network.model` calls :func:`training.compiled.keep_compiled`), so that a later
    run reads them back."""
    import jax
    import jax.numpy as jnp
    import optax

    from training.network.model import PolicyValueNet

    net = PolicyValueNet(channels=channels, blocks=blocks)
    optimiser = optax.adamw(optax.cosine_decay_schedule(lr, steps, alpha=0.02), weight_decay=weight_decay)

    @jax.jit
    def init(key: Any) -> Any:
        return net.init(key, jnp.zeros((1, ROWS, COLUMNS, PLANES)))["params"]

    def losses(p: Any, planes: Any, legal: Any, policy: Any, value: Any) -> tuple[Any, Any]:
        logits, value_logits = net.apply({"params": p}, planes)
        logits = jnp.where(legal, logits, -1e9)
        has_policy = policy.sum(axis=-1)
        policy_loss = -jnp.sum(policy * jax.nn.log_softmax(logits)) / jnp.maximum(has_policy.sum(), 1.0)
        value_loss = optax.softmax_cross_entropy_with_integer_labels(value_logits, value).mean()
        return policy_loss + value_loss, (policy_loss, value_loss, logits, value_logits)

    @jax.jit
    def train_step(p: Any, o: Any, planes: Any, legal: Any, policy: Any, value: Any) -> Any:
        (loss, _), grads = jax.value_and_grad(losses, has_aux=True)(p, planes, legal, policy, value)
        updates, o = optimiser.update(grads, o, p)
        return optax.apply_updates(p, updates), o, loss

    @jax.jit
    def evaluate(p: Any, planes: Any, legal: Any, policy: Any, value: Any) -> Any:
        _, (pl, vl, logits, value_logits) = losses(p, planes, legal, policy, value)
        choice = jnp.argmax(logits, axis=-1)
        pacc = jnp.take_along_axis(policy > 0, choice[:, None], axis=1)[:, 0].mean()
        vacc = (jnp.argmax(value_logits, axis=-1) == value).mean()
        return pl, vl, pacc, vacc

    return optimiser, init, train_step, evaluate


def _validate(evaluate: Any, params: Any, name: str, held: Examples) -> dict[str, float]:
    """Policy and value losses and accuracies of ``params`` on ``held``, as ``{name}_...`` keys (the
    held-out noisy shard keeps its historical ``val_...`` keys)."""
    sums = np.zeros(4)
    for i in range(0, len(held), VALIDATION_CHUNK):
        part = held.take(np.arange(i, min(i + VALIDATION_CHUNK, len(held))))
        sums += len(part) * np.array(
            [float(x) for x in evaluate(params, part.planes, part.legal, part.policy, part.value)]
        )
    means = sums / len(held)
    keys = ("policy_loss", "value_loss", "policy_acc", "value_acc")
    return {f"{name}_{key}": float(v) for key, v in zip(keys, means, strict=True)}


def _record(
    args: argparse.Namespace, out: Path, state: State, evaluate: Any, data: Data, extra: dict
) -> None:
    """Evaluate (held-out sets, games of the network alone against ``random`` and kaggle's
    ``negamax`` from the empty board) and save the weights, history, curves and checkpoint."""
    import jax

    from agents.kit.adapter import kaggle_agent
    from agents.network.agent import Network
    from training.network.model import export_weights

    weights = export_weights(state.params)
    agent = kaggle_agent(Network.of_weights(weights, search="none"))
    empty = [()] * args.eval_games
    record = {"step": state.step, **extra}
    for name, held in data.held_out.items():
        record |= _validate(evaluate, state.params, name, held)
    record["vs_random"] = paired_score(agent, opponent("random", seed=state.step), STANDARD, empty)
    record["vs_negamax"] = paired_score(agent, opponent("negamax", seed=state.step), STANDARD, empty)
    state.history.append(record)
    _log(out, json.dumps(record))
    half: dict[str, Any] = {k: v.astype(np.float16) for k, v in weights.items()}
    np.savez(out / "network.npz", **half)
    with open(out / "history.json", "w") as f:
        json.dump(state.history, f, indent=1)
    plot_curves(state.history, out / "curves.png")
    saved = {
        "params": jax.tree_util.tree_map(np.asarray, state.params),
        "opt_state": jax.tree_util.tree_map(np.asarray, state.opt_state),
        "step": state.step,
        "history": state.history,
        "args": vars(args) | {"out": str(out)},
    }
    pickled = pickle.dumps(saved)
    replace_atomically(out / "checkpoint.pkl", lambda temporary: temporary.write_bytes(pickled))


def _smoke(args: argparse.Namespace) -> None:
    """``--smoke``: tiny data, few steps, one evaluation (at the end), few games."""
    args.shards, args.shard_size, args.min_ply, args.early_fraction = 2, 100, 22, 0.0
    args.steps, args.batch, args.eval_every, args.eval_games = 40, 32, 40, 1
    args.channels, args.blocks = 16, 1
    args.exact_book_shards, args.exact_deep_shards = 2, 0


def _weights_option(parser: argparse.ArgumentParser, option: str, path: Path | None) -> Any:
    """The weights file given to ``option`` (None when not given); exits 2 (``parser.error``) when it
    cannot be read or is not a weights file, before the run's directory is touched."""
    if path is None:
        return None
    try:
        return load_weights(path.read_bytes())
    except (OSError, ValueError) as exc:
        parser.error(f"{option} {path}: {exc}")


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring. Returns 0; exits 2 on bad options."""
    parser = _parser()
    args = parser.parse_args(argv)
    small = _weights_option(parser, "--init-from", args.init_from)
    teacher = _weights_option(parser, "--teacher", args.teacher)
    if not 0 <= args.exact_fraction <= 1:
        parser.error("--exact-fraction must be between 0 and 1")
    if args.smoke:
        _smoke(args)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    _log(out, f"start: {' '.join(sys.argv if argv is None else argv)}")
    data = load_data(args, out, teacher)
    sources = [data.noisy] + ([] if data.exact is None else [data.exact])
    _log(
        out,
        f"data: {' + '.join(str(len(s.labelled)) for s in sources)} (noisy + exact) training positions "
        f"(+{sum(len(s.children) for s in sources)} value-only children), held out: "
        f"{', '.join(f'{k} {len(v)}' for k, v in data.held_out.items())}",
    )
    return _train(args, out, data, small, parser)


def _train(
    args: argparse.Namespace, out: Path, data: Data, small: Any, parser: argparse.ArgumentParser
) -> int:
    """The training loop (framework imports only here): a step a batch, :func:`_record` every
    ``--eval-every`` steps and at the end."""
    from tqdm import tqdm

    optimiser, init, train_step, evaluate = _functions(
        args.channels, args.blocks, args.lr, args.steps, args.weight_decay
    )
    try:
        state = _start(args, out, optimiser, init, small)
    except ValueError as exc:
        parser.error(f"--init-from {args.init_from}: {exc}")
    rng = np.random.default_rng(args.seed + state.step)
    positions = len(data.noisy.labelled) + (0 if data.exact is None else len(data.exact.labelled))
    running: list[float] = []
    start = time.perf_counter()
    with tqdm(total=args.steps, initial=state.step, desc="train", unit="step", smoothing=0.05) as bar:
        while state.step < args.steps:
            b = sample_batch(rng, data, args.batch, args.exact_fraction)
            state.params, state.opt_state, loss = train_step(
                state.params, state.opt_state, b.planes, b.legal, b.policy, b.value
            )
            running.append(float(loss))
            state.step += 1
            bar.update(1)
            if state.step % args.eval_every == 0 or state.step == args.steps:
                extra = {
                    "seconds": time.perf_counter() - start,
                    "train_loss": float(np.mean(running)),
                    "positions": positions,
                }
                _record(args, out, state, evaluate, data, extra)
                running = []
    _log(out, f"done at step {state.step}; weights in {out / 'network.npz'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
