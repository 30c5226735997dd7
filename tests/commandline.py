"""Running the ``contextgrid`` command in-process, as the command-line tests do."""

from __future__ import annotations

import pytest

from contextgrid.cli.main import main


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``contextgrid ARGV...``: its exit status, and what it printed to stdout and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
