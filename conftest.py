"""pytest's configuration for the whole checkout (tests/conftest.py configures the tests).

``--doctest-modules`` imports every module of the packages; a module that needs an optional extra
which is not installed is left out instead of failing the collection.
"""

from __future__ import annotations

import importlib.util

collect_ignore = [] if importlib.util.find_spec("ray") else ["tournament/cluster.py"]
"""Modules of the packages that need an optional extra (``pip install -e '.[ray]'``)."""
