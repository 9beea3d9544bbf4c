"""``python -m tournament``: see :mod:`tournament.cli`."""

from tournament.cli import main

raise SystemExit(main())
