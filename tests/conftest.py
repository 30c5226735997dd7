from __future__ import annotations

from collections.abc import Iterator

import pytest

import contextgrid as cg


@pytest.fixture(autouse=True)
def _registry_left_as_found() -> Iterator[None]:
    """Metrics a test or a docs example registers do not leak into the next test."""
    before = {name: cg.METRICS.get(name) for name in cg.METRICS.names()}
    yield
    for name in cg.METRICS.names():
        if name not in before:
            cg.METRICS.unregister(name)
    for name, cls in before.items():
        cg.METRICS.register(name, replace=True)(cls)
