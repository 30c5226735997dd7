"""How fast the dashboard answers, measured in a real browser.

Generates a workspace of 50 configurations x 10,000 questions x 20 deep
(TREC runs and shared qrels, seeded), starts `streamlit run app.py` on it, and
times in Debian's Chromium, driven by Playwright:

- the Overview, cold (a fresh server's first visit) and warm (navigating back to it, data cached);
- a switch from the Overview to the Questions page;
- every page on the bundled sample workspace;
- for information, a browser reload, which also restarts Streamlit's front end, and Streamlit's own floor
  (a fresh server's first visit to a page that only draws a heading), to read the cold times against.

Targets: Overview under 5 s cold and 1 s warm, a page switch under 1 s, every
sample page under 2 s. Run: python bench/bench_app.py [--configs 50 --questions 10000 --depth 20]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np
from playwright.sync_api import Page, sync_playwright

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io import write_qrels, write_run

ROOT = Path(__file__).resolve().parent.parent
# The browser flags are the browser tests' own: one list, so the bench drives Chromium exactly as the tests do.
sys.path.insert(0, str(ROOT / "tests"))
from browsing import CHROMIUM_ARGS  # type: ignore[import-not-found]  # noqa: E402


def make_workspace(folder: Path, configs: int, questions: int, depth: int, seed: int = 7) -> None:
    """Shared qrels (3 judged chunks per question) and one TREC run per configuration."""
    rng = np.random.default_rng(seed)
    pool = 400
    qids = np.array([f"q{i}" for i in range(questions)])
    judged = np.stack([rng.choice(pool, 3, replace=False) for _ in range(questions)])
    qrels = QrelsTable.from_columns(
        np.repeat(qids, 3), np.char.add("c", judged.ravel().astype(str)), rng.integers(0, 3, questions * 3)
    )
    write_qrels(qrels, folder / "qrels.txt")
    (folder / "runs").mkdir()
    lines = ['name = "bench"', 'qrels = "qrels.txt"']
    for index in range(configs):
        # Each row: the judged chunks at random depths among random others, distinct per question.
        ranked = np.argsort(rng.random((questions, pool)), axis=1)[:, :depth]
        chunk_ids = np.char.add("c", ranked.ravel().astype(str))
        run = RunTable.from_columns(np.repeat(qids, depth), chunk_ids, rank=np.tile(np.arange(1, depth + 1), questions))
        name = f"config-{index:02d}"
        write_run(run, folder / "runs" / f"{name}.trec", tag=name)
        size, retriever = (256, 512, 1024, 2048, 4096)[index % 5], ("bm25", "dense")[index // 25]
        lines += [
            "",
            "[[config]]",
            f'name = "{name}"',
            f'run = "runs/{name}.trec"',
            "[config.params]",
            f"size = {size}",
            f'retriever = "{retriever}"',
            f"seed = {index}",
        ]
    (folder / "contextgrid.toml").write_text("\n".join(lines) + "\n")


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


FLOOR_APP = 'import streamlit as st\n\nst.title("Overview")\n'
"""Streamlit's own floor: a page that only draws a heading, the least any first visit costs."""


@contextmanager
def streamlit(workspace: Path | None, app: Path = ROOT / "app.py") -> Iterator[str]:
    port = _port()
    command = [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless=true"]
    command += [f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false"]
    if workspace is not None:
        command += ["--", "--workspace", str(workspace)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(180):
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


# Checked on every animation frame (wait_for_function's default): expect() polls ever more slowly,
# up to once a second, which would add its own wait to every time measured.
SETTLED = """heading => {
    const app = document.querySelector("[data-testid='stApp']");
    const headings = [...document.querySelectorAll("h1, h2, h3")];
    // A chart in a closed expander is drawn when opened, not before.
    const drawn = [...document.querySelectorAll(
        "[data-testid=stPlotlyChart], [data-testid=stVegaLiteChart], [data-testid=stDataFrame]"
    )].filter(element => element.checkVisibility())
        .every(element => element.querySelector(".main-svg, canvas, svg.marks"));
    return app !== null && app.dataset.testScriptState === "notRunning"
        && document.querySelector("[data-stale='true']") === null
        && (heading === null || headings.some(h => h.textContent.trim() === heading && h.checkVisibility()))
        && drawn;
}"""
WAIT = 300_000


def settled(page: Page, heading: str | None = None) -> None:
    """The script run is over, nothing from the previous run is left, ``heading`` (if given) is on
    screen, every table and chart is drawn and the browser is idle: what the user sees is final."""
    page.wait_for_function(SETTLED, arg=heading, timeout=WAIT)
    # Drawing goes on after the DOM is in place; a click before it ends waits for it.
    page.evaluate("new Promise(done => requestIdleCallback(() => done(), {timeout: 30000}))")


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def visit(page: Page, url: str | None, heading: str) -> None:
    """Open ``url`` (``None``: reload) and wait until ``heading``'s page is rendered."""
    if url is None:
        page.reload()
    else:
        page.goto(url)
    settled(page, heading)


def follow(page: Page, link: str) -> None:
    """Click the navigation link ``link`` and wait until its page is rendered."""
    page.get_by_role("link", name=link).click()
    settled(page, link)


TAB_SHOWN = """tab => [...document.querySelectorAll("[role=tab][aria-selected=true]")]
    .some(selected => selected.textContent.trim() === tab)
    && document.querySelectorAll("[data-testid=stVegaLiteChart]").length === 1"""


def show_tab(page: Page, tab: str) -> None:
    """Click the tab ``tab`` of the page and wait until the chart it runs is drawn."""
    page.get_by_role("tab", name=tab).click()
    page.wait_for_function(TAB_SHOWN, arg=tab, timeout=WAIT)
    settled(page)


def verdict(label: str, seconds: float, target: float) -> None:
    print(f"{label:<44} {seconds:7.2f} s  target < {target:.0f} s  {'PASS' if seconds < target else 'MISS'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=50)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=20)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        folder = Path(scratch)
        started = time.perf_counter()
        make_workspace(folder, args.configs, args.questions, args.depth)
        # The files just written are still being flushed to disk: let that finish before anything is timed.
        os.sync()
        print(
            f"workspace: {args.configs} configurations x {args.questions} questions x {args.depth} deep, "
            f"written in {time.perf_counter() - started:.1f} s"
        )
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)

        def fresh_tab() -> Page:
            """A new tab for each fresh server, as a user opens the address it prints: the last server's page,
            torn down in the same renderer, would otherwise be timed with the next first visit."""
            return browser.new_page(viewport={"width": 1400, "height": 1000})

        # What this machine gives Streamlit itself right now (a shared machine's speed varies by the hour): the
        # cold times below include it.
        floor_app = folder / "floor.py"
        floor_app.write_text(FLOOR_APP)
        with streamlit(None, floor_app) as url:
            page = fresh_tab()
            floor = timed(partial(visit, page, url, "Overview"))
            page.close()
        print(f"{'floor: a one-heading app, first visit':<44} {floor:7.2f} s  (Streamlit alone, for information)")

        with streamlit(folder) as url:
            page = fresh_tab()
            verdict("Overview, cold (fresh server, first visit)", timed(partial(visit, page, url, "Overview")), 5)
            verdict("switch Overview -> Questions, first time", timed(partial(follow, page, "Questions")), 1)
            verdict("Overview, warm (back from Questions)", timed(partial(follow, page, "Overview")), 1)
            verdict("switch Overview -> Questions, again", timed(partial(follow, page, "Questions")), 1)
            verdict("switch Questions -> Compare, first time", timed(partial(follow, page, "Compare")), 1)
            verdict("Overview, warm (back from Compare)", timed(partial(follow, page, "Overview")), 1)
            for tab in ("Heatmap", "Two parameters at once", "Metric against k"):
                verdict(f"Overview tab: {tab}", timed(partial(show_tab, page, tab)), 1)
            # A browser reload also fetches and starts Streamlit's front end: reported, not held to the 1 s.
            reload = timed(partial(visit, page, url, "Overview"))
            print(f"{'Overview, browser reload (for information)':<44} {reload:7.2f} s")
            page.close()

        with streamlit(None) as url:
            page = fresh_tab()
            verdict("sample workspace: Overview, fresh server", timed(partial(visit, page, url, "Overview")), 2)
            for link in ("Questions", "Compare", "Context waste", "Answers", "Overview"):
                verdict(f"sample workspace: {link}", timed(partial(follow, page, link)), 2)
        browser.close()


if __name__ == "__main__":
    main()
