"""``python -m contextgrid``: the ``contextgrid`` command, for a CI step or an environment whose scripts are not on
the PATH."""

import sys

from contextgrid.cli.main import main

if __name__ == "__main__":  # imported (by pytest's doctest collection, say), it runs nothing
    sys.exit(main())
