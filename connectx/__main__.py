"""``python -m connectx``: the ``connectx`` command (see :mod:`connectx.cli`)."""

from connectx.cli import main

raise SystemExit(main())
