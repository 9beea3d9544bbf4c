"""Importing kaggle-environments without the modules the ConnectX referee does not need.

``import kaggle_environments`` registers every environment it ships and imports what their
validators might use:

* its OpenSpiel bridge imports ``pyspiel`` and ``pokerkit``: 130 of the process's 187 MB, and
  0.3 s of the import;
* ``jsonschema``, which kaggle-environments imports for its specifications, imports
  ``rfc3987_syntax`` when it is installed (JupyterLab's ``jupyter-events`` brings it) to check the
  ``iri`` format, and that module builds a Lark grammar at import: 1.1 s of the import's 1.9 s
  (measured with ``python -X importtime`` on the 2-core development machine).

ConnectX needs none of them: kaggle skips the environment whose import fails (its loader catches
the failure), and jsonschema skips the ``iri`` check it cannot make, which no ConnectX specification
uses. With them refused the import takes 0.4 s and 55 MB.

This module imports nothing but the standard library, so that the submission check can hand the
names to its probe, which imports nothing of this project and so refuses them with a twin of
:func:`refusing` of its own (:func:`submissions.probe.refusing`).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
from collections.abc import Iterable, Iterator

REFEREE_UNNEEDED = ("pyspiel", "open_spiel", "pokerkit", "rfc3987_syntax")
"""Top-level modules that ``import kaggle_environments`` is spared (see the module docstring)."""


class _Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in self.names:
            raise ImportError(f"{name} is not needed by the ConnectX referee")


@contextlib.contextmanager
def refusing(names: Iterable[str] = REFEREE_UNNEEDED) -> Iterator[None]:
    """Within the block, importing a module whose top-level package is in ``names`` raises
    ImportError; afterwards (an agent's import, say) it works again, unless a module already
    imported it and kept the failure."""
    finder = _Refuse(names)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
