"""``python -m agents.solver [-a] [-w]``: Pons-style command-line solver (see :func:`agents.solver.main`)."""

import sys

from agents.solver import main

sys.exit(main())
