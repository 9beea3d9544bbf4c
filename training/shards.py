"""Shards of labelled positions: one ``.npz`` file a shard, written whole or not at all, built in
parallel and resumed where an interrupted run stopped.

A shard holds ``position``, ``mask`` (int64 bitboards of 6x7 boards, :mod:`agents.engine.board`
layout), ``ply`` (int8) and ``values`` (int8 ``(n, 7)``, the per-move labels of
:mod:`training.network.data`), plus any more int8 ``(n, 7)`` per-move arrays (the exact scores of
:mod:`training.exact`). The generators of :mod:`training.network.data` and :mod:`training.exact`
write them; :mod:`training.network.train` reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.files import replace_atomically

__all__ = ["build_shards", "load_shards", "save_shard"]


def save_shard(path: Path, rows: list[tuple[int, int, int, list[int]]], **per_move: list[list[int]]) -> None:
    """Write labelled positions ``(position, mask, ply, values)`` to the shard ``path`` (the module
    docstring's format), with more int8 ``(n, 7)`` per-move arrays by name (``per_move``)."""
    extra: dict[str, Any] = {name: np.array(table, dtype=np.int8) for name, table in per_move.items()}
    np.savez_compressed(
        path,
        position=np.array([r[0] for r in rows], dtype=np.int64),
        mask=np.array([r[1] for r in rows], dtype=np.int64),
        ply=np.array([r[2] for r in rows], dtype=np.int8),
        values=np.array([r[3] for r in rows], dtype=np.int8),
        **extra,
    )


def load_shards(paths: list[Path]) -> dict[str, np.ndarray]:
    """Concatenate shards: ``position``, ``mask`` (uint64), ``ply`` (int8), ``values`` (int8 ``(n, 7)``)."""
    parts = [np.load(p) for p in paths]
    return {
        "position": np.concatenate([p["position"] for p in parts]).astype(np.uint64),
        "mask": np.concatenate([p["mask"] for p in parts]).astype(np.uint64),
        "ply": np.concatenate([p["ply"] for p in parts]),
        "values": np.concatenate([p["values"] for p in parts]),
    }


def build_shards(
    directory: Path,
    count: int,
    write: Callable[[Path, int], None],
    *,
    workers: int = 1,
    unit_size: int = 1,
    progress: bool = True,
) -> list[Path]:
    """Paths of shards ``directory/shard-0000.npz`` .. ``count - 1`` (``directory`` created if needed),
    the missing ones written by ``write(path, k)``.

    Each shard is written under a temporary name and renamed, so it is whole or absent and an
    interrupted run resumes at the missing shards. With ``workers > 1`` they are written in that many
    spawned processes (``concurrent.futures``; ``write`` must pickle, e.g. a ``functools.partial`` of
    a module-level function). Spawned, not forked: the caller may hold threads (JAX's) that a fork
    would copy in a bad state. A tqdm bar on stderr counts ``unit_size`` (positions) a shard when
    ``progress``. Raises ``ValueError`` when ``workers < 1``.
    """
    if workers < 1:
        raise ValueError("workers must be >= 1")
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"shard-{k:04d}.npz" for k in range(count)]
    missing = [k for k, path in enumerate(paths) if not path.exists()]
    from tqdm import tqdm

    bar = tqdm(
        total=count * unit_size,
        initial=(count - len(missing)) * unit_size,
        unit="pos" if unit_size > 1 else "shard",
        unit_scale=True,
        desc=directory.name,
        disable=not progress,
    )
    with bar:
        if workers == 1 or len(missing) <= 1:
            for k in missing:
                _write_atomically(write, paths[k], k)
                bar.update(unit_size)
            return paths
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        ) as pool:
            futures = [pool.submit(_write_atomically, write, paths[k], k) for k in missing]
            for future in as_completed(futures):
                future.result()
                bar.update(unit_size)
    return paths


def _write_atomically(write: Callable[[Path, int], None], path: Path, k: int) -> None:
    replace_atomically(path, lambda temporary: write(temporary, k))
