"""The network's forward pass runs numpy's BLAS on one thread and gives the rest of the process its
threads back (``python -m benchmarks.network_busy`` measures why)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from agents.network import blas, numpy_forward


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_one_thread_limits_the_block_and_restores_the_count() -> None:
    if not _blas_threads():
        pytest.skip("numpy has no BLAS that threadpoolctl knows")
    with threadpool_limits(limits=2, user_api="blas"):
        assert set(_blas_threads()) == {2}
        with blas.one_thread():
            assert set(_blas_threads()) == {1}
        assert set(_blas_threads()) == {2}


def test_forward_runs_on_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    if not _blas_threads():
        pytest.skip("numpy has no BLAS that threadpoolctl knows")
    seen: list[list[int]] = []
    real_forward = numpy_forward._forward

    def spy(weights, x):  # type: ignore[no-untyped-def]
        seen.append(_blas_threads())
        return real_forward(weights, x)

    monkeypatch.setattr(numpy_forward, "_forward", spy)
    rng = np.random.default_rng(0)
    weights = {f"{layer}/{part}": rng.standard_normal(shape).astype(np.float32) for layer, part, shape in [
        ("stem", "kernel", (3, 3, 3, 8)), ("stem", "bias", (8,)),
        ("policy_conv", "kernel", (1, 1, 8, 2)), ("policy_conv", "bias", (2,)),
        ("policy_dense", "kernel", (84, 7)), ("policy_dense", "bias", (7,)),
        ("value_conv", "kernel", (1, 1, 8, 1)), ("value_conv", "bias", (1,)),
        ("value_hidden", "kernel", (42, 4)), ("value_hidden", "bias", (4,)),
        ("value_out", "kernel", (4, 3)), ("value_out", "bias", (3,)),
    ]}  # fmt: skip
    with threadpool_limits(limits=2, user_api="blas"):
        policy, value = numpy_forward.forward(weights, np.zeros((6, 7, 3), np.float32))
        assert set(_blas_threads()) == {2}
    assert policy.shape == (1, 7) and value.shape == (1, 3)
    assert seen and set(seen[0]) == {1}
