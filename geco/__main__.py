"""``python -m geco``: the ``geco`` command line."""

import sys

from geco.cli import main

sys.exit(main())
