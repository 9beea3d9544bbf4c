"""XLA's compiled programs kept between runs: JAX's persistent compilation cache in the toolkit's
cache folder (:mod:`submissions.cache`), under ``connectx/jax/``.

Why: XLA compiles a net's programs anew in every process, and on a CPU that costs more than a short
run's training: about 7 s for the 16-channel net of ``--smoke`` (4.4 s of them its initialisation,
whose random draws XLA compiles slowly), every time ``python -m training.network.train`` or
``connectx train`` starts. With the cache, a later run of the same net, the same shapes and the same
JAX reads the programs back (a cache key covers the program, the shapes, the JAX and XLA versions
and the machine's backend), so it computes exactly what a fresh compilation would.

The cache is left as the user set it when they did (``jax.config``'s ``jax_compilation_cache_dir``
or ``JAX_COMPILATION_CACHE_DIR``). Everything there can be deleted; it is made again when needed.
Source: JAX's documentation, "Persistent compilation cache"
(https://docs.jax.dev/en/latest/persistent_compilation_cache.html).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from submissions.cache import folder

__all__ = ["MAX_BYTES", "keep_compiled"]

MAX_BYTES = 256 << 20
"""At most this many bytes of programs in the cache, the least recently used going first, where the
``filelock`` package imports (JAX evicts only with it; without it the cache keeps all, about 0.5 MB
for the programs of a 16-channel net's training)."""


def keep_compiled(base: Path | None = None) -> Path | None:
    """Have JAX keep every program it compiles from now on (even once it compiled some) in
    ``connectx/jax/`` under ``base`` (default: the user's cache folder), however fast it compiled;
    return that folder, or None when the user chose a cache folder of their own (then it is left as
    it is)."""
    import jax

    if jax.config.values["jax_compilation_cache_dir"]:
        return None
    path = folder(base) / "jax"
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if importlib.util.find_spec("filelock") is not None:
        jax.config.update("jax_compilation_cache_max_size", MAX_BYTES)
    return path
