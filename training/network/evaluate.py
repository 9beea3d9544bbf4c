"""The network's training curves (its games are scored by :mod:`training.evaluation`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["plot_curves"]


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
    for key, label in (
        ("val_policy_acc", "policy: best move (solver)"),
        ("val_value_acc", "value: outcome class (solver)"),
    ):
        axes[1].plot(steps, [100 * h[key] for h in history], label=label)
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
