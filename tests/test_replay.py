"""The learners' replay buffer (training.learners.replay): a ring that overwrites its oldest rows,
uniform minibatches, checkpoints, packed cells and the left-right mirror of a position's planes."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from agents.engine.board import Board, geometry
from agents.features import planes
from training.learners.replay import ReplayBuffer, mirror_permutation, pack, packed_width, unpack

FIELDS = {"cells": ((3,), np.uint8), "target": ((), np.float32)}


def _rows(start: int, n: int) -> dict[str, np.ndarray]:
    """Rows ``start .. start + n - 1``: cells ``[i, i, i]``, target ``i / 2``."""
    i = np.arange(start, start + n)
    return {"cells": np.repeat(i[:, None], 3, axis=1), "target": i / 2}


def _held(buffer: ReplayBuffer) -> list[int]:
    """The row numbers (of :func:`_rows`) the buffer holds, oldest first."""
    order = (buffer.head - len(buffer) + np.arange(len(buffer))) % buffer.capacity
    cells = buffer.arrays["cells"][order]
    assert np.array_equal(buffer.arrays["target"][order], cells[:, 0] / 2)
    return cells[:, 0].tolist()


def test_rows_fill_the_buffer_in_order_and_len_counts_them() -> None:
    buffer = ReplayBuffer(5, FIELDS)
    assert len(buffer) == 0 and buffer.head == 0
    assert buffer.arrays["cells"].shape == (5, 3) and buffer.arrays["cells"].dtype == np.uint8
    assert buffer.arrays["target"].shape == (5,) and buffer.arrays["target"].dtype == np.float32
    buffer.append(**_rows(0, 2))
    buffer.append(**_rows(2, 1))
    assert len(buffer) == 3 and buffer.head == 3 and _held(buffer) == [0, 1, 2]


def test_once_full_the_oldest_rows_are_overwritten() -> None:
    buffer = ReplayBuffer(5, FIELDS)
    buffer.append(**_rows(0, 4))
    buffer.append(**_rows(4, 3))  # rows 4, 5, 6 go to slots 4, 0, 1
    assert len(buffer) == 5 and buffer.head == 2
    assert buffer.arrays["cells"][:, 0].tolist() == [5, 6, 2, 3, 4]
    assert _held(buffer) == [2, 3, 4, 5, 6]
    buffer.append(**_rows(7, 5))
    assert len(buffer) == 5 and buffer.head == 2 and _held(buffer) == [7, 8, 9, 10, 11]


def test_more_rows_than_the_capacity_at_once_keep_the_last_ones_as_one_at_a_time_would() -> None:
    at_once, one_by_one = ReplayBuffer(4, FIELDS), ReplayBuffer(4, FIELDS)
    for buffer in (at_once, one_by_one):
        buffer.append(**_rows(0, 3))
    at_once.append(**_rows(3, 10))
    for i in range(3, 13):
        one_by_one.append(**_rows(i, 1))
    assert _held(at_once) == list(range(9, 13))
    assert at_once.head == one_by_one.head == 13 % 4
    for name, array in at_once.arrays.items():
        assert np.array_equal(array, one_by_one.arrays[name])


@pytest.mark.parametrize(
    "rows",
    [
        {"cells": np.zeros((2, 3)), "target": np.zeros(3)},  # unequal lengths
        {"cells": np.zeros((2, 3))},  # a field missing
        {"cells": np.zeros((2, 3)), "target": np.zeros(2), "extra": np.zeros(2)},  # an unknown field
        {"cells": np.zeros((2, 4)), "target": np.zeros(2)},  # rows of another shape
        {"cells": np.zeros((2, 3)), "target": np.float32(1.0)},  # a scalar, not rows
    ],
)
def test_bad_rows_raise_value_error_and_change_nothing(rows: dict[str, np.ndarray]) -> None:
    buffer = ReplayBuffer(5, FIELDS)
    buffer.append(**_rows(1, 2))
    before = buffer.state()
    with pytest.raises(ValueError):
        buffer.append(**rows)
    assert buffer.head == 2 and len(buffer) == 2
    for name, array in before["arrays"].items():
        assert np.array_equal(buffer.arrays[name], array)


@pytest.mark.parametrize(("capacity", "fields"), [(0, FIELDS), (5, {})])
def test_a_buffer_without_room_or_fields_is_refused(capacity: int, fields: dict) -> None:
    with pytest.raises(ValueError):
        ReplayBuffer(capacity, fields)


def test_sample_draws_rows_held_uniformly_with_one_draw_of_the_generator() -> None:
    buffer = ReplayBuffer(100, FIELDS)
    with pytest.raises(ValueError, match="empty"):
        buffer.sample(np.random.default_rng(0), 4)
    buffer.append(**_rows(10, 7))
    batch = buffer.sample(np.random.default_rng(1), (50, 8))
    index = np.random.default_rng(1).integers(0, 7, (50, 8))
    assert batch["cells"].shape == (50, 8, 3) and batch["target"].shape == (50, 8)
    assert np.array_equal(batch["cells"][..., 0], index + 10)
    assert np.array_equal(batch["target"], (index + 10) / 2)
    assert set(batch["cells"][..., 0].ravel().tolist()) == set(range(10, 17))  # 400 draws of 7 rows


def test_state_round_trips_through_pickle_and_is_a_copy() -> None:
    buffer = ReplayBuffer(5, FIELDS)
    buffer.append(**_rows(0, 7))
    state = pickle.loads(pickle.dumps(buffer.state()))
    snapshot = buffer.state()
    buffer.append(**_rows(7, 2))  # changes the buffer, not the states taken before
    assert snapshot["head"] == 2 and snapshot["arrays"]["cells"][:, 0].tolist() == [5, 6, 2, 3, 4]
    resumed = ReplayBuffer(5, FIELDS)
    resumed.load_state(state)
    assert len(resumed) == 5 and resumed.head == 2 and _held(resumed) == [2, 3, 4, 5, 6]
    state["arrays"]["cells"][:] = 99  # the loaded buffer keeps its own copy
    resumed.append(**_rows(7, 2))
    assert resumed.head == buffer.head
    for name, array in buffer.arrays.items():
        assert np.array_equal(resumed.arrays[name], array)


@pytest.mark.parametrize(
    ("capacity", "fields"),
    [
        (6, FIELDS),  # another capacity
        (5, {"cells": ((3,), np.uint8), "reward": ((), np.float32)}),  # other fields
        (5, {"cells": ((4,), np.uint8), "target": ((), np.float32)}),  # another row shape
        (5, {"cells": ((3,), np.uint8), "target": ((), np.float64)}),  # another dtype
    ],
)
def test_a_state_of_another_buffer_is_refused_and_changes_nothing(capacity: int, fields: dict) -> None:
    source = ReplayBuffer(capacity, fields)
    target = ReplayBuffer(5, FIELDS)
    target.append(**_rows(0, 3))
    with pytest.raises(ValueError):
        target.load_state(source.state())
    assert len(target) == 3 and target.head == 3 and _held(target) == [0, 1, 2]


@pytest.mark.parametrize("count", [1, 7, 8, 9, 40, 84])
def test_unpack_undoes_pack(count: int) -> None:
    cells = np.random.default_rng(count).random((3, 5, count)) < 0.5
    packed = pack(cells)
    assert packed.dtype == np.uint8 and packed.shape == (3, 5, packed_width(count))
    unpacked = unpack(packed, count)
    assert unpacked.dtype == np.float32 and np.array_equal(unpacked, cells)
    assert np.array_equal(unpack(pack(cells * np.uint8(3)), count), cells)  # nonzero integers are 1
    with pytest.raises(TypeError):
        pack(cells.astype(np.float32))


def test_a_6x7_position_packs_to_11_bytes() -> None:
    geo = geometry(6, 7, 4)
    board = Board.from_moves([3, 3, 2, 4])
    x = planes(board.position, board.mask, geo)
    assert packed_width(len(x)) == 11 and pack(x.astype(bool)).shape == (11,)
    assert np.array_equal(unpack(pack(x.astype(bool)), len(x)), x)


@pytest.mark.parametrize(("rows", "columns", "inarow"), [(6, 7, 4), (5, 4, 3), (7, 9, 5), (4, 5, 3)])
def test_the_mirror_permutation_maps_a_position_to_its_mirror_and_is_its_own_inverse(
    rows: int, columns: int, inarow: int
) -> None:
    geo = geometry(rows, columns, inarow)
    mirror = mirror_permutation(geo)
    assert sorted(mirror.tolist()) == list(range(2 * geo.size))
    assert np.array_equal(mirror[mirror], np.arange(2 * geo.size))
    rng = random.Random(rows * columns)
    for _ in range(10):
        board = Board(rows, columns, inarow)
        flipped = Board(rows, columns, inarow)
        for _ in range(rng.randrange(geo.size)):
            if board.is_game_over():
                break
            column = rng.choice(board.legal_moves())
            board.push(column)
            flipped.push(columns - 1 - column)
        x = planes(board.position, board.mask, geo)
        assert np.array_equal(x[mirror], planes(flipped.position, flipped.mask, geo))
