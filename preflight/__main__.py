"""``python -m preflight``: see :mod:`preflight.cli`."""

import sys

from preflight.cli import main

if __name__ == "__main__":
    sys.exit(main())
