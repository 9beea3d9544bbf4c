"""Training examples from labelled positions: policy and value targets, value-only children, the book.

Inputs are the arrays of :func:`training.shards.load_shards` (``position``, ``mask`` uint64
bitboards of 6x7 boards, :mod:`agents.network.features`; ``ply``; per-move labels ``values``).
Value classes are 0 loss, 1 draw, 2 win for the side to move (the network's ``[loss, draw, win]``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from agents.engine.book import NO_MOVE, load_book
from agents.network.features import COLUMNS, ROWS
from training.network.data import FULL, UNSOLVED

__all__ = [
    "FORWARD_CHUNK",
    "book_examples",
    "child_examples",
    "forward_in_chunks",
    "targets",
    "teacher_policy",
]


def targets(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Policy and value targets from per-move labels ``values`` (int8 ``(n, 7)``, see
    :mod:`training.network.data`).

    Returns ``policy`` float32 ``(n, 7)`` (uniform over the best-valued moves) and ``value`` int32
    ``(n,)``: 0 loss, 1 draw, 2 win for the side to move.
    """
    known = (values != FULL) & (values != UNSOLVED)
    scored = np.where(known, values, -100).astype(np.int32)
    best = scored.max(axis=1)
    policy = (scored == best[:, None]).astype(np.float32)
    policy /= policy.sum(axis=1, keepdims=True)
    value = (np.minimum(best, 1) + 1).astype(np.int32)
    return policy, value


FORWARD_CHUNK = 512
"""Positions a call of the numpy forward pass takes in :func:`forward_in_chunks` (bounds its memory)."""


def forward_in_chunks(weights: Mapping[str, np.ndarray], planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`agents.network.numpy_forward.forward` over any number of positions,
    :data:`FORWARD_CHUNK` at a time: ``planes`` ``(n, 6, 7, 3)`` float32 in, the policy logits
    ``(n, 7)`` and the value logits ``(n, 3)`` ([loss, draw, win] of the side to move) out."""
    from agents.network.numpy_forward import forward

    parts = [forward(weights, planes[i : i + FORWARD_CHUNK]) for i in range(0, len(planes), FORWARD_CHUNK)]
    if not parts:
        return np.zeros((0, COLUMNS), np.float32), np.zeros((0, 3), np.float32)
    return np.concatenate([p for p, _ in parts]), np.concatenate([v for _, v in parts])


def teacher_policy(weights: Mapping[str, np.ndarray], planes: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Policy targets from another network (knowledge distillation, Hinton, Vinyals & Dean 2015): its
    softmax over the legal columns.

    ``weights`` as :func:`agents.network.numpy_forward.load_weights` returns; ``planes`` ``(n, 6, 7, 3)``
    and ``legal`` ``(n, 7)`` bool as :class:`training.network.batches.Examples` holds them. Returns
    float32 ``(n, 7)``, each row summing to 1 over its legal columns (0 elsewhere).
    """
    logits = np.where(legal, forward_in_chunks(weights, planes)[0], -np.inf)
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    policy: np.ndarray = (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)
    return policy


def child_examples(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Value-only examples: the positions after each solved move of ``data`` (see ``load_shards``).

    A move valued ``v`` in {-1, 0, 1} for the mover leaves the opponent, now to move, with outcome
    ``-v``: class ``1 - v`` (0 loss, 1 draw, 2 win). Immediate wins (game over) and unsolved moves are
    skipped; children are not deduplicated. Returns ``position``, ``mask`` (uint64) and ``value``.
    """
    height = ROWS + 1
    positions, masks, classes = [], [], []
    for c in range(COLUMNS):
        v = data["values"][:, c].astype(np.int32)
        keep = (v >= -1) & (v <= 1) & (data["ply"] < ROWS * COLUMNS - 1)
        mask = data["mask"][keep]
        bottom = np.uint64(1 << (c * height))
        column = np.uint64(((1 << ROWS) - 1) << (c * height))
        cell = (mask + bottom) & column
        positions.append(data["position"][keep] ^ mask)
        masks.append(mask | cell)
        classes.append(1 - v[keep])
    return {
        "position": np.concatenate(positions),
        "mask": np.concatenate(masks),
        "value": np.concatenate(classes).astype(np.int32),
    }


def book_examples() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The opening book (:mod:`agents.engine.book`, 6x7) as training examples, in two parts.

    ``labelled``: the positions with a move (won or drawn), as
    :func:`training.shards.load_shards` returns them, where ``values`` holds the book's weak
    value at its column and ``UNSOLVED`` at the other legal columns (other moves may be as good: the
    book keeps one). ``lost``: the lost positions (no move stored) as
    value-only examples, ``position``, ``mask`` and ``value`` (class 0, loss). Positions come in the
    book's canonical orientation (the smaller of a key and its mirror's). Raises ``FileNotFoundError``
    when the book file is missing.
    """
    book = load_book()
    if book is None:
        raise FileNotFoundError("the opening book agents/data/book-6x7.bin is missing")
    height, columns = book.geo.height, book.geo.columns
    keys = book.keys.astype(np.uint64)
    position = np.zeros_like(keys)
    mask = np.zeros_like(keys)
    # Pons' key = position + mask: in each column, (stones below a 1 sentinel) + the mover's stones, so
    # the column's height h satisfies 2^h - 1 <= bits < 2^(h+1) - 1.
    stones = np.array([(x + 1).bit_length() - 1 for x in range(1 << height)], dtype=np.uint64)
    for c in range(columns):
        shift = np.uint64(c * height)
        bits = (keys >> shift) & np.uint64((1 << height) - 1)
        filled = (np.uint64(1) << stones[bits.astype(np.int64)]) - np.uint64(1)
        mask |= filled << shift
        position |= (bits - filled) << shift
    entries = book.entries.astype(np.int16)
    column, value = entries & 15, (entries >> 4) - 1
    ply = np.array([int(m).bit_count() for m in mask], dtype=np.int8)
    full = np.stack([(mask & np.uint64(top)) != 0 for top in book.geo.top_cells], axis=1)
    has_move = column != NO_MOVE
    values = np.where(full, FULL, UNSOLVED).astype(np.int8)
    rows = np.flatnonzero(has_move)
    values[rows, column[rows]] = value[rows]
    labelled = {
        "position": position[has_move],
        "mask": mask[has_move],
        "ply": ply[has_move],
        "values": values[has_move],
    }
    lost = {
        "position": position[~has_move],
        "mask": mask[~has_move],
        "value": np.zeros(int((~has_move).sum()), dtype=np.int32),
    }
    return labelled, lost
