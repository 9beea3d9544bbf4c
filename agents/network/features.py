"""Network input planes from bitboards (numpy only; shared by training and the agent).

Input planes, shape ``(6, 7, 3)`` per position (channels last, NHWC as flax's ``nn.Conv`` expects),
for a 6x7 board in :mod:`agents.engine.board`'s layout (bit ``c * 7 + r`` is row ``r``, column ``c``):

* row index 0 is the **bottom** row (the opposite of Kaggle's ``obs.board``, whose row 0 is the top);
  column index ``c`` is column ``c`` (0-based, as everywhere except Pons' move strings);
* plane 0: stones of the **side to move** (``Board.position``);
* plane 1: stones of the opponent (``Board.mask ^ Board.position``);
* plane 2: the cells a stone would land on (one per non-full column, ``Board.possible()``).

Values are 0.0 or 1.0 (float32). Mirror symmetry (column ``c`` <-> ``6 - c``) maps planes to planes
flipped on axis ``-2`` and policies to policies reversed on their last axis.
"""

from __future__ import annotations

import numpy as np

__all__ = ["COLUMNS", "INAROW", "PLANES", "ROWS", "encode", "encode_batch", "legal_mask_batch"]

ROWS = 6
COLUMNS = 7
INAROW = 4
"""The board the network knows: ``ROWS`` x ``COLUMNS``, ``INAROW`` to connect."""
PLANES = 3
_HEIGHT = ROWS + 1
_BOTTOM = sum(1 << (c * _HEIGHT) for c in range(COLUMNS))
_BOARD = sum(((1 << ROWS) - 1) << (c * _HEIGHT) for c in range(COLUMNS))
# _BIT[r, c]: bit index of row r (0 = bottom), column c.
_BIT = np.array([[c * _HEIGHT + r for c in range(COLUMNS)] for r in range(ROWS)], dtype=np.uint64)
_TOP_BIT = np.array([c * _HEIGHT + ROWS - 1 for c in range(COLUMNS)], dtype=np.uint64)


def encode_batch(position: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Planes of many positions: ``position``, ``mask`` are uint64 (or int64) arrays of shape ``(B,)``.

    Returns float32 ``(B, 6, 7, 3)`` (see the module docstring). Positions must be 6x7 bitboards.
    """
    pos = np.asarray(position).astype(np.uint64)
    msk = np.asarray(mask).astype(np.uint64)
    possible = (msk + np.uint64(_BOTTOM)) & np.uint64(_BOARD)
    stacked = np.stack([pos, msk ^ pos, possible], axis=-1)  # (B, 3)
    bits = (stacked[:, None, None, :] >> _BIT[None, :, :, None]) & np.uint64(1)
    planes: np.ndarray = bits.astype(np.float32)
    return planes


def encode(position: int, mask: int) -> np.ndarray:
    """Planes ``(6, 7, 3)`` float32 of one position given as Python-int bitboards."""
    planes: np.ndarray = encode_batch(
        np.array([position], dtype=np.uint64), np.array([mask], dtype=np.uint64)
    )[0]
    return planes


def legal_mask_batch(mask: np.ndarray) -> np.ndarray:
    """Boolean ``(B, 7)``: True where the column is not full, for uint64 ``mask`` of shape ``(B,)``."""
    msk = np.asarray(mask).astype(np.uint64)
    legal: np.ndarray = ((msk[:, None] >> _TOP_BIT[None, :]) & np.uint64(1)) == 0
    return legal
