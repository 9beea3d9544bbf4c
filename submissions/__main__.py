"""``python -m submissions``: see :mod:`submissions.cli`."""

import sys

from submissions.cli import main

sys.exit(main())
