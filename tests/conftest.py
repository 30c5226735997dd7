from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

import contextgrid as cg

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


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


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, for one test module (imported here only by the tests that use it)."""
    from browsing import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page of :func:`browser` for each test."""
    from browsing import new_page

    with new_page(browser) as opened:
        yield opened
