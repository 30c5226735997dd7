"""ruff and mypy, as configured in pyproject.toml, are clean on the whole project."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "."],
        ["ruff", "format", "--check", "."],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_static_checks_are_clean(command: list[str], tmp_path: Path) -> None:
    # Their caches go under the test's temporary folder, not .ruff_cache/ and .mypy_cache/ in the checkout.
    cache = ["--cache-dir", str(tmp_path / "cache")]
    result = subprocess.run(
        [sys.executable, "-m", *command, *cache], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
