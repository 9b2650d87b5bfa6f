"""``python -m mastermind``: the command line (:mod:`mastermind.cli`)."""

import sys

from .cli import main

sys.exit(main())
