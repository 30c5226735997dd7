"""What the library's doctests may use beyond the package: the hand-made workspace of the checkout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HANDMADE = Path(__file__).resolve().parent / "sample_data" / "handmade"


@pytest.fixture(autouse=True)
def _handmade(doctest_namespace: dict[str, Any]) -> None:
    """``HANDMADE`` in every doctest: a small workspace that is not shipped with the package."""
    doctest_namespace["HANDMADE"] = HANDMADE
