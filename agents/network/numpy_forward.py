"""The policy/value network's forward pass in plain numpy (the shipped agent imports no framework).

Architecture (defined for training in :mod:`training.network.model`, flax): a small residual CNN in
the style of AlphaZero (Silver et al., "A general reinforcement learning algorithm that masters
chess, shogi and Go through self-play", Science 2018), without batch normalisation:

* stem: 3x3 convolution, ``3 -> C`` channels, ReLU;
* ``N`` residual blocks: ``h = relu(h + conv3x3(relu(conv3x3(h))))``;
* policy head: 1x1 convolution to 2 channels, ReLU, flatten (row-major ``(row, column, channel)``),
  dense to 7 logits (one per column);
* value head: 1x1 convolution to 1 channel, ReLU, flatten, dense to 64, ReLU, dense to 3 logits for
  the outcome of the side to move: ``[loss, draw, win]``.

Convolutions use "SAME" zero padding and are cross-correlations, as ``flax.linen.Conv``. Weights are
a mapping ``name -> array`` (see :data:`LAYERS`), stored in ``agents/data/network.npz`` as float16 and
computed in float32. Input planes are those of :mod:`agents.network.features`: ``(B, 6, 7, 3)``,
row 0 at the bottom, plane 0 the side to move.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import numpy as np

from agents.network import blas

__all__ = ["Weights", "blocks_of", "forward", "load_weights", "value_of"]

Weights = dict[str, np.ndarray]

LAYERS = ("stem", "policy_conv", "policy_dense", "value_conv", "value_hidden", "value_out")
"""Layer names besides the residual blocks ``block{i}a`` / ``block{i}b``; each has ``/kernel``, ``/bias``."""


def load_weights(data: bytes) -> Weights:
    """Weights from the bytes of an ``.npz`` file, converted to float32.

    Raises ``ValueError`` when a layer named in :data:`LAYERS` is missing.
    """
    with np.load(io.BytesIO(data)) as archive:
        weights = {name: archive[name].astype(np.float32) for name in archive.files}
    for layer in LAYERS:
        if f"{layer}/kernel" not in weights or f"{layer}/bias" not in weights:
            raise ValueError(f"network weights lack layer {layer!r}")
    return weights


def blocks_of(weights: Mapping[str, np.ndarray]) -> int:
    """Number of residual blocks in ``weights``."""
    n = 0
    while f"block{n}a/kernel" in weights:
        n += 1
    return n


def _conv3x3(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'SAME' 3x3 convolution of ``x`` (B, H, W, Cin) with ``kernel`` (3, 3, Cin, Cout) by im2col."""
    b, h, w, c = x.shape
    padded = np.zeros((b, h + 2, w + 2, c), dtype=x.dtype)
    padded[:, 1:-1, 1:-1, :] = x
    patches = np.concatenate(
        [padded[:, i : i + h, j : j + w, :] for i in range(3) for j in range(3)], axis=-1
    )  # (B, H, W, 9 * Cin) in (kh, kw, cin) order, like kernel.reshape(9 * Cin, Cout)
    out = patches.reshape(b * h * w, 9 * c) @ kernel.reshape(9 * c, -1)
    result: np.ndarray = out.reshape(b, h, w, -1) + bias
    return result


def _conv1x1(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    result: np.ndarray = x @ kernel.reshape(kernel.shape[-2], kernel.shape[-1]) + bias
    return result


def forward(weights: Mapping[str, np.ndarray], planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Policy and value logits of a batch.

    ``planes``: float32 ``(B, 6, 7, 3)`` (or ``(6, 7, 3)`` for one position, then the batch axis is
    added). Returns ``(policy, value)``: policy logits ``(B, 7)`` over columns (illegal columns are
    *not* masked here), value logits ``(B, 3)`` for ``[loss, draw, win]`` of the side to move.
    numpy's BLAS runs on one thread meanwhile (:func:`agents.network.blas.one_thread`).
    """
    x = np.asarray(planes, dtype=np.float32)
    if x.ndim == 3:
        x = x[None]
    with blas.one_thread():  # BLAS threads spin-wait: on a busy machine they cost 100x (see blas)
        return _forward(weights, x)


def _forward(weights: Mapping[str, np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    relu = lambda a: np.maximum(a, 0.0)  # noqa: E731
    h = relu(_conv3x3(x, weights["stem/kernel"], weights["stem/bias"]))
    for i in range(blocks_of(weights)):
        y = relu(_conv3x3(h, weights[f"block{i}a/kernel"], weights[f"block{i}a/bias"]))
        y = _conv3x3(y, weights[f"block{i}b/kernel"], weights[f"block{i}b/bias"])
        h = relu(h + y)
    batch = h.shape[0]
    p = relu(_conv1x1(h, weights["policy_conv/kernel"], weights["policy_conv/bias"])).reshape(batch, -1)
    policy = p @ weights["policy_dense/kernel"] + weights["policy_dense/bias"]
    v = relu(_conv1x1(h, weights["value_conv/kernel"], weights["value_conv/bias"])).reshape(batch, -1)
    v = relu(v @ weights["value_hidden/kernel"] + weights["value_hidden/bias"])
    value = v @ weights["value_out/kernel"] + weights["value_out/bias"]
    return policy, value


def value_of(value_logits: np.ndarray) -> np.ndarray:
    """Expected outcome ``P(win) - P(loss)`` in [-1, 1] from value logits ``(B, 3)``; shape ``(B,)``."""
    z = value_logits - value_logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=-1, keepdims=True)
    expected: np.ndarray = p[:, 2] - p[:, 0]
    return expected
