"""``python -m geco.cli``: the ``geco`` command line, as ``python -m geco``."""

import sys

from geco.cli import main

sys.exit(main())
