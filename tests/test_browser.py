"""The dashboard in a real browser: Debian's Chromium, driven by Playwright, against `streamlit run`.

Screenshots land in tests/artifacts/ for a person to look at.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

import contextgrid as cg
from contextgrid.io import read_qrels, read_run
from contextgrid.workspace import load_workspace

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _serving() -> Iterator[str]:
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError as error:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                told = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"streamlit did not start: {told}") from error
            time.sleep(0.5)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with _serving() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: tests/run.sh installs Debian's chromium package when run as root")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(60_000)
    yield opened
    context.close()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def settled(page: Page) -> None:
    """Wait until the script run is over: Streamlit shows a 'Running' status while it works."""
    page.wait_for_load_state("networkidle")
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=60_000)


@pytest.mark.parametrize(
    ("path", "heading"),
    [("", "Overview"), ("questions", "Questions"), ("compare", "Compare")],
)
def test_every_page_renders(server: str, page: Page, path: str, heading: str) -> None:
    page.goto(f"{server}/{path}")
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    settled(page)
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    expect(page.locator("[data-testid='stDataFrame']").first).to_be_visible()
    shot(page, f"page-{heading.lower()}")


def test_question_drill_down_shows_the_first_relevant_rank(server: str, page: Page) -> None:
    settings = load_workspace(ROOT / "sample_data" / "workspace").config("dense-recursive-500-0")
    ranks = cg.first_relevant_ranks(read_qrels(settings.qrels), read_run(settings.run))
    question, rank = next((q, r) for q, r in ranks.items() if r is not None and r > 1)
    page.goto(f"{server}/questions?config=dense-recursive-500-0&k=5&question={question}")
    settled(page)
    metric = page.get_by_test_id("stMetric").filter(has_text="Rank of the first relevant chunk")
    expect(metric.get_by_test_id("stMetricValue")).to_have_text(str(rank))
    shot(page, "questions-drill-down")


def test_compare_opens_the_drill_down(server: str, page: Page) -> None:
    page.goto(f"{server}/compare?metric=recall&k=3&a=dense-recursive-500-0&b=bm25-recursive-500-0")
    settled(page)
    page.get_by_role("button", name="Open in Questions").click()
    expect(page.get_by_role("heading", name="Questions", exact=True)).to_be_visible()
    settled(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Rank of the first relevant chunk")).to_be_visible()
    shot(page, "compare-to-questions")


def test_uploading_a_malformed_run_shows_its_error(server: str, page: Page, tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 c1 2\nq2 0 c4 1\n")
    run = tmp_path / "broken.trec"
    run.write_text("q1 Q0 c1 1 0.9 mine\nq1 Q0 c2 2 0.8\n")
    page.goto(f"{server}/?source=upload")
    settled(page)
    inputs = page.locator("[data-testid='stSidebar'] input[type='file']")
    inputs.nth(0).set_input_files(str(qrels))
    settled(page)
    inputs.nth(1).set_input_files(str(run))
    settled(page)
    alert = page.get_by_test_id("stAlert").filter(has_text="broken.trec")
    expect(alert).to_contain_text("line 2")
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    shot(page, "upload-error")


def test_a_shared_link_is_the_first_thing_a_fresh_server_opens(page: Page) -> None:
    with _serving() as url:
        page.goto(f"{url}/questions?config=dense-recursive-200-0&k=10&metric=mrr")
        expect(page.get_by_role("heading", name="Questions", exact=True)).to_be_visible()
        settled(page)
        expect(page.get_by_role("link", name="Context waste")).to_be_visible()
        expect(page.get_by_text("Choose a data source in the sidebar.")).to_have_count(0)
        # The Questions page ran in full with the link's choices: it wrote its own back into the URL.
        expect(page).to_have_url(re.compile(r"config=dense-recursive-200-0.*&question=q\d+"))
        expect(page.get_by_text("dense-recursive-200-0").first).to_be_visible()
        shot(page, "shared-link-fresh-server")
