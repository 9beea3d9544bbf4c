"""What the network trains on: labelled examples in memory, their sources, and the batches drawn.

Examples are encoded as the network reads them (:mod:`agents.network.features`): planes
``(n, 6, 7, 3)`` float32, the legal columns ``(n, 7)``, a policy target ``(n, 7)`` (uniform over the
solver's best moves; all zero for value-only examples) and a value class ``(n,)`` (0 loss, 1 draw, 2 win
for the side to move). :func:`load_data` gathers them from the noisy shards (:mod:`training.network.data`,
with the opening book when asked) and the exact set (:mod:`training.exact`); :func:`sample_batch` draws a
batch: half labelled positions, half value-only children, ``exact_fraction`` of each half from the exact
set, mirrored left-right at random.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.network.features import COLUMNS, encode_batch, legal_mask_batch
from training.network.data import shards_from_args
from training.network.examples import book_examples, child_examples, targets, teacher_policy
from training.shards import load_shards

__all__ = ["Data", "Examples", "Source", "load_data", "sample_batch"]


@dataclass
class Examples:
    """Encoded examples: ``planes`` ``(n, 6, 7, 3)`` float32, ``legal`` ``(n, 7)`` bool, ``policy``
    ``(n, 7)`` float32 (all zero for value-only examples), ``value`` ``(n,)`` int32 class."""

    planes: np.ndarray
    legal: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    @classmethod
    def labelled(cls, data: dict[str, np.ndarray]) -> Examples:
        """From labelled positions (:func:`training.shards.load_shards`)."""
        policy, value = targets(data["values"])
        return cls(
            encode_batch(data["position"], data["mask"]), legal_mask_batch(data["mask"]), policy, value
        )

    @classmethod
    def value_only(cls, data: dict[str, np.ndarray]) -> Examples:
        """From value-only positions (``position``, ``mask``, ``value``)."""
        n = len(data["value"])
        planes = encode_batch(data["position"], data["mask"])
        policy = np.zeros((n, COLUMNS), np.float32)
        return cls(planes, legal_mask_batch(data["mask"]), policy, data["value"].astype(np.int32))

    def __len__(self) -> int:
        return len(self.value)

    def take(self, idx: np.ndarray) -> Examples:
        return Examples(self.planes[idx], self.legal[idx], self.policy[idx], self.value[idx])

    @staticmethod
    def join(parts: list[Examples]) -> Examples:
        return Examples(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in ("planes", "legal", "policy", "value"))
        )


@dataclass
class Source:
    """Training examples of one origin: ``labelled`` positions and the ``children`` (value-only)."""

    labelled: Examples
    children: Examples

    @classmethod
    def of(
        cls, labelled: dict[str, np.ndarray], extra_children: dict[str, np.ndarray] | None = None
    ) -> Source:
        """From labelled positions (:func:`training.shards.load_shards`); their solved moves'
        children (:func:`training.network.examples.child_examples`) plus ``extra_children``."""
        children = child_examples(labelled)
        if extra_children is not None:
            children = {key: np.concatenate([children[key], extra_children[key]]) for key in children}
        return cls(Examples.labelled(labelled), Examples.value_only(children))

    def sample(self, rng: np.random.Generator, labelled: int, children: int) -> list[Examples]:
        return [
            self.labelled.take(rng.integers(0, len(self.labelled), labelled)),
            self.children.take(rng.integers(0, len(self.children), children)),
        ]


@dataclass
class Data:
    """What a run trains on: the noisy shards (with the book when asked), the exact set (None without
    ``--exact``), and the held-out labelled sets by name."""

    noisy: Source
    exact: Source | None
    held_out: dict[str, Examples]


def load_data(args: argparse.Namespace, out: Path, teacher: Mapping[str, np.ndarray] | None = None) -> Data:
    """The shards (generated when missing), the book and the exact set, as :class:`Data`.

    With ``teacher`` weights (:func:`agents.network.numpy_forward.load_weights`), the noisy positions
    from ply ``args.teacher_ply`` on take their policy targets from that network instead of the solver
    (:func:`training.network.examples.teacher_policy`); their values, their children and the exact set
    keep the solver's labels.
    """
    paths = shards_from_args(args, args.data or out / "data")
    noisy = load_shards(paths[:-1])
    lost = None
    if args.book:
        labelled, lost = book_examples()
        noisy = {key: np.concatenate([noisy[key], labelled[key]]) for key in noisy}
    held_out = {"val": load_shards(paths[-1:])}
    exact = None
    if args.exact is not None:
        from training.exact import ensure_exact_shards

        parts = []
        for part, count in (("book", args.exact_book_shards), ("deep", args.exact_deep_shards)):
            if count > 1:
                size = 100 if args.smoke else None
                shards = ensure_exact_shards(args.exact, part, count, args.seed, size=size)
                parts.append(load_shards(shards[:-1]))
                held_out[f"exact_{part}"] = load_shards(shards[-1:])
        exact = Source.of(
            {key: np.concatenate([p[key] for p in parts]) for key in ("position", "mask", "ply", "values")}
        )
    source = Source.of(noisy, lost)
    if teacher is not None:
        late = noisy["ply"] >= args.teacher_ply
        examples = source.labelled
        examples.policy[late] = teacher_policy(teacher, examples.planes[late], examples.legal[late])
    return Data(source, exact, {name: Examples.labelled(d) for name, d in held_out.items()})


def sample_batch(rng: np.random.Generator, data: Data, size: int, exact_fraction: float) -> Examples:
    """Half labelled examples, half value-only children, ``exact_fraction`` of each half from the
    exact set; mirrored left-right with probability 1/2 (the game's symmetry)."""
    half, rest = size // 2, size - size // 2
    if data.exact is None:
        parts = data.noisy.sample(rng, half, rest)
    else:
        labelled, children = rng.binomial(half, exact_fraction), rng.binomial(rest, exact_fraction)
        parts = data.exact.sample(rng, labelled, children) + data.noisy.sample(
            rng, half - labelled, rest - children
        )
    batch = Examples.join(parts)
    if rng.random() < 0.5:
        batch = Examples(
            batch.planes[:, :, ::-1, :], batch.legal[:, ::-1], batch.policy[:, ::-1], batch.value
        )
    return batch
