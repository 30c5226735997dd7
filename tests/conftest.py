from __future__ import annotations

import getpass
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

import contextgrid as cg

SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"

# Hypothesis keeps the examples that failed (to try them first next time) and a cache of the code's constants: in
# the system's temporary folder, not its default .hypothesis/ in the checkout (tests write only under a temporary
# folder).
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / f"contextgrid-hypothesis-{getpass.getuser()}")

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


@pytest.fixture(autouse=True)
def _main_module_left_as_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page run by AppTest becomes ``__main__`` and stays it; a later test that starts worker processes (Dask's
    LocalCluster spawns them) would run that page's code again in each worker, which fails outside a session."""
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])


@pytest.fixture(autouse=True)
def _server_allows_test_folders(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The dashboard pages run in this process (AppTest) open the folders tests make, as a server started with
    ``--allow-folders`` on them would; a test of the refusal sets its own command line."""
    allowed = [str(tmp_path_factory.getbasetemp()), str(SAMPLE_DATA)]
    monkeypatch.setattr(sys, "argv", [sys.argv[0], "--allow-folders", *allowed])


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
