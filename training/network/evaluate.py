"""The network's training curves, and its accuracy on solver labels by ply (its games are scored by
:mod:`training.evaluation`).

Command (accuracy of some weights on labelled shards, and their value on the suite's drawn openings)::

    python -m training.network.evaluate WEIGHTS.npz SHARD.npz [SHARD.npz ...]
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = ["PLY_BUCKETS", "accuracy_by_ply", "drawn_opening_values", "main", "plot_curves"]

PLY_BUCKETS = ((0, 8), (9, 11), (12, 17), (18, 42))
"""Inclusive ply ranges of :func:`accuracy_by_ply`: the openings (up to the built-in suite's 8 plies),
the early middle game the data of ``--min-ply 12`` misses, the rest of the middle game, the end."""


def accuracy_by_ply(
    weights: Mapping[str, np.ndarray], data: Mapping[str, np.ndarray]
) -> list[dict[str, float]]:
    """The network's agreement with the solver on labelled positions, per :data:`PLY_BUCKETS` range.

    ``weights`` as :func:`agents.network.numpy_forward.load_weights` returns; ``data`` as
    :func:`training.shards.load_shards` returns. One dict per range that holds positions, in
    order: ``first``, ``last`` (plies), ``positions``, ``policy`` (share whose policy argmax over the
    legal columns is one of the solver's best moves), ``value`` (share whose value argmax is the
    position's class: loss / draw / win for the side to move) and ``draws`` (share of drawn positions).
    """
    from agents.network.features import encode_batch, legal_mask_batch
    from training.network.examples import forward_in_chunks, targets

    policy_target, value_target = targets(data["values"])
    logits, value_logits = forward_in_chunks(weights, encode_batch(data["position"], data["mask"]))
    choice = np.where(legal_mask_batch(data["mask"]), logits, -np.inf).argmax(axis=1)
    policy_hit = policy_target[np.arange(len(choice)), choice] > 0
    value_hit = value_logits.argmax(axis=1) == value_target
    ply = data["ply"].astype(int)
    rows = []
    for first, last in PLY_BUCKETS:
        inside = (ply >= first) & (ply <= last)
        if inside.any():
            rows.append(
                {
                    "first": first,
                    "last": last,
                    "positions": int(inside.sum()),
                    "policy": float(policy_hit[inside].mean()),
                    "value": float(value_hit[inside].mean()),
                    "draws": float((value_target[inside] == 1).mean()),
                }
            )
    return rows


def drawn_opening_values(weights: Mapping[str, np.ndarray]) -> dict[int, tuple[int, float]]:
    """The value head on the built-in suite's drawn openings (:mod:`tournament.openings`, ``drawn``),
    by the mark to move: ``{mark: (openings, mean of P(win) - P(loss) for that mark)}``. Every one of
    these positions is a draw with perfect play, so a calibrated head gives about 0 for both marks."""
    from agents.engine.board import Board, geometry
    from agents.network.features import encode_batch
    from agents.network.numpy_forward import forward, value_of
    from tournament.openings import resolve

    geo = geometry(6, 7, 4)
    boards = [
        Board.from_moves(opening, rows=6, columns=7) for opening in resolve("drawn", geo, pairs=1, seed=0)[1]
    ]
    planes = encode_batch(
        np.array([b.position for b in boards], dtype=np.uint64),
        np.array([b.mask for b in boards], dtype=np.uint64),
    )
    values = value_of(forward(weights, planes)[1])
    marks = np.array([b.ply % 2 + 1 for b in boards])
    return {
        int(m): (int((marks == m).sum()), float(values[marks == m].mean()))
        for m in (1, 2)
        if (marks == m).any()
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m training.network.evaluate`` (module docstring). Returns 0, or 2 for a file that
    cannot be read (one line on stderr)."""
    import sys

    from agents.network.numpy_forward import load_weights
    from training.shards import load_shards

    parser = argparse.ArgumentParser(
        prog="python -m training.network.evaluate",
        description="Accuracy of network weights on solver-labelled shards, by ply.",
    )
    parser.add_argument("weights", type=Path, help="weights (.npz, as agents/data/network.npz)")
    parser.add_argument("shards", type=Path, nargs="+", help="labelled shards (training.network.data)")
    args = parser.parse_args(argv)
    try:
        weights = load_weights(args.weights.read_bytes())
        data = load_shards(args.shards)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.weights}: {len(data['ply'])} positions from {len(args.shards)} shard file(s)")
    print("plies   positions  policy best  value class  draws")
    for row in accuracy_by_ply(weights, data):
        print(
            f"{row['first']:2d}-{row['last']:<2d}  {row['positions']:9d}  {100 * row['policy']:10.1f} %"
            f"  {100 * row['value']:10.1f} %  {100 * row['draws']:4.0f} %"
        )
    for mark, (count, value) in drawn_opening_values(weights).items():
        print(
            f"drawn suite openings, mark {mark} to move: {count}, mean value {value:+.2f} (perfect play: 0)"
        )
    return 0


def plot_curves(history: list[dict[str, float]], path: Path) -> None:
    """Save loss, accuracy and win-rate curves against training steps to ``path`` (PNG); a dotted line
    marks each change of the training data (the records' ``positions``, labelled positions)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [h["step"] for h in history]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for key, label in (
        ("train_loss", "train loss"),
        ("val_policy_loss", "val policy CE"),
        ("val_value_loss", "val value CE"),
    ):
        axes[0].plot(steps, [h[key] for h in history], label=label)
    axes[0].set_title("loss")
    for prefix, data in (
        ("val", "noisy games"),
        ("exact_book", "exact, plies 0-11"),
        ("exact_deep", "exact, 12-22"),
    ):
        for key, label in (
            (f"{prefix}_policy_acc", "policy: best move"),
            (f"{prefix}_value_acc", "value: class"),
        ):
            points = [(h["step"], 100 * h[key]) for h in history if key in h]
            if points:
                axes[1].plot(*zip(*points, strict=True), label=f"{label} ({data})")
    axes[1].set_title("accuracy on held-out solver labels (%)")
    for key, label in (("vs_random", "vs random"), ("vs_negamax", "vs kaggle negamax")):
        axes[2].plot(steps, [100 * h[key] for h in history], marker="o", label=label)
    axes[2].set_title("score of the network alone (%)")
    axes[2].set_ylim(0, 102)
    # A resumed run may train on other data: mark where the number of labelled positions changes.
    changes = [
        (before["step"], after["positions"])
        for before, after in zip(history, history[1:], strict=False)
        if "positions" in before and "positions" in after and before["positions"] != after["positions"]
    ]
    for step, _ in changes:
        for ax in axes:
            ax.axvline(step, color="grey", linestyle=":", linewidth=1)
    if changes:
        first = f"{history[0]['positions'] / 1000:.0f} K" if "positions" in history[0] else "?"
        moves = ", ".join(f"{n / 1000:.0f} K after step {step}" for step, n in changes)
        fig.suptitle(
            f"dotted lines: training data changed (labelled positions: {first}, then {moves})", fontsize=9
        )
    for ax in axes:
        ax.set_xlabel("training step")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
