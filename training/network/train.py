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
data, since early positions cost the solver minutes each. Adam (Kingma & Ba 2015) with cosine decay.

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
minutes-long run for tests (tiny data, few steps, few games).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.engine.board import geometry
from agents.network.features import COLUMNS, PLANES, ROWS, encode_batch, legal_mask_batch
from agents.network.numpy_forward import load_weights
from training.evaluation import opponent, paired_score
from training.network.data import add_shard_arguments, load_shards, shards_from_args
from training.network.evaluate import plot_curves
from training.network.examples import book_examples, child_examples, targets

__all__ = ["main"]

STANDARD = geometry(6, 7, 4)
"""The board the network plays."""


def _log(out: Path, message: str) -> None:
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}"
    with open(out / "train.log", "a") as f:
        f.write(line + "\n")
    from tqdm import tqdm

    tqdm.write(line, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring. Returns 0."""
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
        "--init-from",
        type=Path,
        help="start a new run from these weights (.npz), grown to --channels / --blocks (model.grow)",
    )
    parser.add_argument("--data", type=Path, help="directory of the data shards (default OUT/data)")
    parser.add_argument("--smoke", action="store_true", help="minutes-long run for tests")
    args = parser.parse_args(argv)
    small = None
    if args.init_from is not None:
        try:
            small = load_weights(args.init_from.read_bytes())
        except (OSError, ValueError) as exc:
            parser.error(f"--init-from {args.init_from}: {exc}")
    if args.smoke:
        args.shards, args.shard_size, args.min_ply, args.early_fraction = 2, 200, 22, 0.0
        args.steps, args.batch, args.eval_every, args.eval_games = 40, 32, 20, 1
        args.channels, args.blocks = 16, 1
    out: Path = args.out
    data_dir = args.data or out / "data"
    out.mkdir(parents=True, exist_ok=True)
    _log(out, f"start: {' '.join(sys.argv if argv is None else argv)}")

    # 1. Data (resumable: a shard is written whole or not at all).
    paths = shards_from_args(args, data_dir, log=lambda m: _log(out, m))
    train_data = load_shards(paths[:-1])
    lost = None
    if args.book:
        labelled, lost = book_examples()
        train_data = {key: np.concatenate([train_data[key], labelled[key]]) for key in train_data}
    val_data = load_shards(paths[-1:])
    train_policy, train_value = targets(train_data["values"])
    val_policy, val_value = targets(val_data["values"])
    train_planes = encode_batch(train_data["position"], train_data["mask"])
    children = child_examples(train_data)
    if lost is not None:
        children = {key: np.concatenate([children[key], lost[key]]) for key in children}
    child_planes = encode_batch(children["position"], children["mask"])
    child_legal = legal_mask_batch(children["mask"])
    child_value = children["value"]
    val_planes = encode_batch(val_data["position"], val_data["mask"])
    train_legal = legal_mask_batch(train_data["mask"])
    val_legal = legal_mask_batch(val_data["mask"])
    val_best = val_policy > 0
    _log(
        out,
        f"data: {len(train_value)} training positions (+{len(child_value)} value-only children), "
        f"{len(val_value)} held out",
    )

    # 2. Model and optimiser (framework imports only here).
    import jax
    import jax.numpy as jnp
    import optax
    from tqdm import tqdm

    from agents.network.agent import make_agent_from_weights
    from training.network.model import PolicyValueNet, export_weights, grow

    net = PolicyValueNet(channels=args.channels, blocks=args.blocks)
    schedule = optax.cosine_decay_schedule(args.lr, args.steps, alpha=0.02)
    optimiser = optax.adamw(schedule, weight_decay=args.weight_decay)
    checkpoint = out / "checkpoint.pkl"
    if checkpoint.exists():
        with open(checkpoint, "rb") as f:
            state = pickle.load(f)
        params, opt_state, step, history = (
            state["params"],
            state["opt_state"],
            state["step"],
            state["history"],
        )
        _log(out, f"resumed at step {step}")
        if small is not None:
            _log(out, f"--init-from {args.init_from} ignored: the run resumes from its checkpoint")
    else:
        params = net.init(jax.random.PRNGKey(args.seed), jnp.zeros((1, ROWS, COLUMNS, PLANES)))["params"]
        if small is not None:
            try:
                params = grow(small, params)
            except ValueError as exc:
                parser.error(f"--init-from {args.init_from}: {exc}")
            _log(out, f"initialised from {args.init_from}, grown to {args.channels}x{args.blocks}")
        opt_state = optimiser.init(params)
        step, history = 0, []

    def losses(p: Any, planes: jnp.ndarray, legal: jnp.ndarray, policy: jnp.ndarray, value: jnp.ndarray):
        logits, value_logits = net.apply({"params": p}, planes)
        logits = jnp.where(legal, logits, -1e9)
        # Rows with an all-zero policy (value-only children) do not count in the policy loss.
        has_policy = policy.sum(axis=-1)
        policy_loss = -jnp.sum(policy * jax.nn.log_softmax(logits)) / jnp.maximum(has_policy.sum(), 1.0)
        value_loss = optax.softmax_cross_entropy_with_integer_labels(value_logits, value).mean()
        return policy_loss + value_loss, (policy_loss, value_loss, logits, value_logits)

    @jax.jit
    def train_step(p: Any, o: Any, planes, legal, policy, value):
        (loss, _), grads = jax.value_and_grad(losses, has_aux=True)(p, planes, legal, policy, value)
        updates, o = optimiser.update(grads, o, p)
        return optax.apply_updates(p, updates), o, loss

    @jax.jit
    def evaluate(p: Any, planes, legal, policy, value, best):
        _, (pl, vl, logits, value_logits) = losses(p, planes, legal, policy, value)
        choice = jnp.argmax(logits, axis=-1)
        pacc = jnp.take_along_axis(best, choice[:, None], axis=1)[:, 0].mean()
        vacc = (jnp.argmax(value_logits, axis=-1) == value).mean()
        return pl, vl, pacc, vacc

    rng = np.random.default_rng(args.seed + step)
    n = len(train_value)
    running: list[float] = []
    start = time.perf_counter()
    bar = tqdm(total=args.steps, initial=step, desc="train", unit="step", smoothing=0.05)
    while step < args.steps:
        # Half a batch of labelled positions, half of value-only children.
        idx = rng.integers(0, n, args.batch // 2)
        kid = rng.integers(0, len(child_value), args.batch - args.batch // 2)
        planes = np.concatenate([train_planes[idx], child_planes[kid]])
        legal = np.concatenate([train_legal[idx], child_legal[kid]])
        policy = np.concatenate([train_policy[idx], np.zeros((len(kid), COLUMNS), np.float32)])
        value = np.concatenate([train_value[idx], child_value[kid]])
        if rng.random() < 0.5:  # mirror symmetry
            planes, legal, policy = planes[:, :, ::-1, :], legal[:, ::-1], policy[:, ::-1]
        params, opt_state, loss = train_step(params, opt_state, planes, legal, policy, value)
        running.append(float(loss))
        step += 1
        bar.update(1)
        if step % args.eval_every == 0 or step == args.steps:
            parts = [
                evaluate(
                    params,
                    val_planes[i : i + 4096],
                    val_legal[i : i + 4096],
                    val_policy[i : i + 4096],
                    val_value[i : i + 4096],
                    val_best[i : i + 4096],
                )
                for i in range(0, len(val_value), 4096)
            ]
            sizes = [min(4096, len(val_value) - i) for i in range(0, len(val_value), 4096)]
            pl, vl, pacc, vacc = (
                float(np.average([float(x[j]) for x in parts], weights=sizes)) for j in range(4)
            )
            weights = export_weights(params)
            agent = make_agent_from_weights(weights, search="none")  # the network alone
            empty = [()] * args.eval_games  # game pairs from the empty board
            vs_random = paired_score(agent, opponent("random", seed=step), STANDARD, empty)
            vs_negamax = paired_score(agent, opponent("negamax", seed=step), STANDARD, empty)
            record = {
                "step": step,
                "seconds": time.perf_counter() - start,
                "train_loss": float(np.mean(running)),
                "val_policy_loss": pl,
                "val_value_loss": vl,
                "val_policy_acc": pacc,
                "val_value_acc": vacc,
                "vs_random": vs_random,
                "vs_negamax": vs_negamax,
                "positions": n,
            }
            running = []
            history.append(record)
            _log(out, json.dumps(record))
            np.savez(out / "network.npz", **{k: v.astype(np.float16) for k, v in weights.items()})
            with open(out / "history.json", "w") as f:
                json.dump(history, f, indent=1)
            plot_curves(history, out / "curves.png")
            state = {
                "params": jax.tree_util.tree_map(np.asarray, params),
                "opt_state": jax.tree_util.tree_map(np.asarray, opt_state),
                "step": step,
                "history": history,
                "args": vars(args) | {"out": str(out)},
            }
            with open(checkpoint.with_suffix(".tmp"), "wb") as f:
                pickle.dump(state, f)
            os.replace(checkpoint.with_suffix(".tmp"), checkpoint)
    bar.close()
    _log(out, f"done at step {step}; weights in {out / 'network.npz'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
