"""The policy/value network in flax (training only; the agent runs :mod:`agents.network.numpy_forward`).

Why JAX/flax/optax: they come with kaggle-environments (no new dependency), ``jax.jit`` compiles the
whole train step into one XLA program that runs well on one CPU thread, and parameters are a plain
nested dict that exports to numpy in a few lines. (The CPU PyTorch wheel would add a ~200 MB
dependency for no gain at this size.)

Architecture and tensor layout: see :mod:`agents.network.numpy_forward` (the two must agree; the
tests compare them on random inputs). Input ``(B, 6, 7, 3)`` float32 planes of
:mod:`agents.network.features`; outputs policy logits ``(B, 7)`` and value logits ``(B, 3)``
(``[loss, draw, win]`` of the side to move).
"""

from __future__ import annotations

from collections.abc import Mapping

import flax.linen as nn
import jax.numpy as jnp
import numpy as np

from agents.network.features import COLUMNS
from agents.network.numpy_forward import blocks_of
from training.compiled import keep_compiled

keep_compiled()  # the net's programs compile once a machine, not once a process (training.compiled)

__all__ = ["PolicyValueNet", "export_weights", "grow"]


class PolicyValueNet(nn.Module):
    """Residual CNN: ``channels`` filters, ``blocks`` residual blocks (each two 3x3 convolutions).

    The second convolution of each block starts at zero, so the untrained net is a plain stack
    (the "zero-init residual" trick of Goyal et al. 2017, which stands in for batch normalisation).
    """

    channels: int = 64
    blocks: int = 4

    @nn.compact
    def __call__(self, planes: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
        conv = lambda ch, k, name, **kw: nn.Conv(ch, (k, k), padding="SAME", name=name, **kw)  # noqa: E731
        h = nn.relu(conv(self.channels, 3, "stem")(planes))
        for i in range(self.blocks):
            y = nn.relu(conv(self.channels, 3, f"block{i}a")(h))
            y = conv(self.channels, 3, f"block{i}b", kernel_init=nn.initializers.zeros)(y)
            h = nn.relu(h + y)
        batch = planes.shape[0]
        p = nn.relu(conv(2, 1, "policy_conv")(h)).reshape(batch, -1)
        policy = nn.Dense(COLUMNS, name="policy_dense")(p)
        v = nn.relu(conv(1, 1, "value_conv")(h)).reshape(batch, -1)
        v = nn.relu(nn.Dense(64, name="value_hidden")(v))
        value = nn.Dense(3, name="value_out")(v)
        return policy, value


def export_weights(params: dict, dtype: type = np.float32) -> dict[str, np.ndarray]:
    """Flatten flax ``params`` (the ``"params"`` collection) to ``{"layer/kernel": array, ...}``."""
    out: dict[str, np.ndarray] = {}
    for layer, leaves in params.items():
        for leaf, value in leaves.items():
            out[f"{layer}/{leaf}"] = np.asarray(value, dtype=dtype)
    return out


def grow(small: Mapping[str, np.ndarray], fresh: dict) -> dict:
    """Parameters of a wider and/or deeper net that computes exactly what ``small`` computes.

    ``small``: flat weights (``"layer/kernel"`` -> array, as :func:`export_weights` or
    :func:`agents.network.numpy_forward.load_weights` give) of a net with ``c`` channels and ``n``
    blocks; ``fresh``: the freshly initialised ``"params"`` of a :class:`PolicyValueNet` with
    ``C >= c`` channels and ``N >= n`` blocks. Returns a copy of ``fresh`` with the small net in its
    first ``c`` channels and ``n`` blocks. The new channels keep their random weights but nothing
    reads them into the old channels or the heads (those weights are zero), and the new blocks add
    ``conv_b(...) = 0`` (its zero initialisation), so the outputs are unchanged while every new weight
    still gets a gradient (function-preserving growth in the spirit of Net2Net, Chen et al. 2016).
    Raises ``ValueError`` when the small net does not fit.
    """
    width = small["stem/kernel"].shape[-1]
    blocks = blocks_of(small)
    big_width = fresh["stem"]["kernel"].shape[-1]
    big_blocks = sum(1 for name in fresh if name.startswith("block") and name.endswith("a"))
    if width > big_width or blocks > big_blocks:
        raise ValueError(
            f"cannot grow a {width}-channel {blocks}-block net into {big_width} channels, {big_blocks} blocks"
        )
    grown = {
        layer: {leaf: np.array(value, dtype=np.float32) for leaf, value in leaves.items()}
        for layer, leaves in fresh.items()
    }
    for name, value in small.items():
        layer, leaf = name.split("/")
        target = grown[layer][leaf]
        if layer in ("stem", "policy_dense", "value_hidden", "value_out") or leaf == "bias":
            target[tuple(slice(0, s) for s in value.shape)] = value
            continue
        # A convolution reading the residual stream: old outputs must ignore the new channels.
        target[..., width:, : value.shape[-1]] = 0.0
        target[..., :width, : value.shape[-1]] = value
    return grown
