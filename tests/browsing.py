"""What the real-browser tests share: a `streamlit run` server and Debian's Chromium, driven by Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

from bench.browser import CHROMIUM, CHROMIUM_ARGS

# A page's run can take seconds on a busy two-core machine; expect()'s own default (5 s) would fail it for that.
expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(
    workspace: Path | None = None,
    *,
    output: Path | None = None,
    allow_folders: Sequence[Path] = (),
    temporary: Path | None = None,
) -> Iterator[str]:
    """`streamlit run app.py` on a free port (on ``workspace``, else the sample); yields its URL.

    The server's standard output and error go to ``output`` if given (what a terminal shows); visitors may open
    folders under ``allow_folders``;
    ``temporary`` is the server's temporary folder (where uploads go), if not the system's.
    """
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
    ]
    script = [] if workspace is None else ["--workspace", str(workspace)]
    script += ["--allow-folders", *map(str, allow_folders)] if allow_folders else []
    command += ["--", *script] if script else []
    environment = dict(os.environ) if temporary is None else {**os.environ, "TMPDIR": str(temporary)}
    printed = None if output is None else output.open("wb")
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=printed or subprocess.DEVNULL,
        stderr=subprocess.PIPE if printed is None else subprocess.STDOUT,
        env=environment,
    )
    if printed is not None:
        printed.close()  # the server has its own copy
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
                told = process.stderr.read().decode() if process.stderr else output.read_text() if output else ""
                raise RuntimeError(f"streamlit did not start: {told}") from error
            time.sleep(0.5)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def chromium() -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: tests/run.sh installs Debian's chromium package when run as root")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@contextmanager
def new_page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(60_000)
    try:
        yield opened
    finally:
        context.close()


def settled(page: Page, *, timeout: float = 60_000) -> None:
    """Wait until the script run is over and nothing from an earlier run is left on screen."""
    page.wait_for_load_state("networkidle")
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=timeout)
    expect(page.locator("[data-testid='stApp'][data-test-script-state='notRunning']")).to_have_count(1, timeout=timeout)
    expect(page.locator("[data-stale='true']")).to_have_count(0, timeout=timeout)
    # Until its code has loaded, a chart or table is a skeleton: the page is not yet what the run drew.
    expect(page.locator("[data-testid='stSkeleton']:visible")).to_have_count(0, timeout=timeout)


# A tab panel that shows at least one element (a run leaves the panels of tabs it did not open empty).
_PANEL_DRAWN = """tab => {
    const panel = document.getElementById(tab.getAttribute("aria-controls"));
    return panel !== null && [...panel.querySelectorAll("[data-testid=stElementContainer]")]
        .some(element => element.checkVisibility() && element.offsetHeight > 0);
}"""


def open_tab(page: Page, name: str, *, timeout: float = 60_000) -> None:
    """Open the tab ``name`` and wait for the run it starts to end.

    A tab whose view runs only when open starts a run on its click: until that run begins, the last one's state
    (not running, nothing stale) passes ``settled``, and the elements found next are replaced under the test
    (Playwright's "not attached to the DOM"). Its panel is empty until the new run has drawn in it.
    """
    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    page.wait_for_function(_PANEL_DRAWN, arg=tab.element_handle(), timeout=timeout)
    settled(page, timeout=timeout)


def upload(page: Page, uploader: str, path: Path) -> None:
    """Upload ``path`` through the sidebar's ``uploader`` and wait until the app has it: its name shows there.

    Streamlit's uploader now and then drops a file given to it while the page is still settling (a few times
    in twenty runs, mostly on a server's first start): a dropped file is given again, as a user would.
    """
    region = page.get_by_test_id("stSidebar").get_by_role("region", name=uploader)
    for attempt in range(3):
        region.locator("input[type='file']").set_input_files(str(path))
        try:
            expect(region.get_by_test_id("stFileChipName")).to_have_text(path.name, timeout=20_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
    settled(page)


def shot(page: Page, name: str, folder: Path) -> None:
    """The whole page as ``folder/name.png``, for a person to look at (a test's ``tmp_path``: tests write only
    under a temporary folder; pytest keeps the last runs' under ``/tmp/pytest-of-$USER``)."""
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def open_waste(page: Page, server: str, query: dict[str, object], *, timeout: float = 180_000) -> None:
    """The Context waste page with the choices in ``query``, reached through the app's navigation.

    The choices go to the entry page, which keeps them in the session. Opening the page's own path as the first
    request of a session would run the page script on its own, without app.py and its data source (a Streamlit
    quirk).
    """
    page.goto(f"{server}/?{urllib.parse.urlencode(query)}")
    link = page.get_by_test_id("stSidebarNav").get_by_text("Context waste")
    expect(link).to_be_visible(timeout=60_000)
    settled(page, timeout=timeout)
    link.click()
    expect(page.get_by_role("heading", name="Context waste", exact=True)).to_be_visible()
    settled(page, timeout=timeout)
