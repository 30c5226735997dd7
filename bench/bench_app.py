"""How fast the dashboard answers, measured in a real browser.

Generates a workspace of 50 configurations x 10,000 questions x 20 deep
(TREC runs and shared qrels, seeded), starts `streamlit run app.py` on it, and
times in Debian's Chromium, driven by Playwright:

- the Overview, cold (a fresh server's first visit) and warm (navigating back to it, data cached);
- a switch from the Overview to the Questions page;
- every page on the bundled sample workspace;
- for information, a browser reload, which also restarts Streamlit's front end.

Targets: Overview under 5 s cold and 1 s warm, a page switch under 1 s, every
sample page under 2 s. Run: python bench/bench_app.py [--configs 50 --questions 10000 --depth 20]
"""

from __future__ import annotations

import argparse
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
from playwright.sync_api import Page, expect, sync_playwright

from contextgrid.io import write_qrels, write_run
from contextgrid.tables import QrelsTable, RunTable

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


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


@contextmanager
def streamlit(workspace: Path | None) -> Iterator[str]:
    port = _port()
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless=true"]
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


def rendered(page: Page, heading: str) -> None:
    """The page's heading and first table are on screen and the script run is over."""
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=300_000)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=300_000)
    expect(page.locator("[data-testid='stDataFrame']").first).to_be_visible(timeout=300_000)


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
    rendered(page, heading)


def follow(page: Page, link: str) -> None:
    """Click the navigation link ``link`` and wait until its page is rendered."""
    page.get_by_role("link", name=link).click()
    rendered(page, link)


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
        print(
            f"workspace: {args.configs} configurations x {args.questions} questions x {args.depth} deep, "
            f"written in {time.perf_counter() - started:.1f} s"
        )
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})

        with streamlit(folder) as url:
            verdict("Overview, cold (fresh server, first visit)", timed(partial(visit, page, url, "Overview")), 5)
            verdict("switch Overview -> Questions, first time", timed(partial(follow, page, "Questions")), 1)
            verdict("Overview, warm (back from Questions)", timed(partial(follow, page, "Overview")), 1)
            verdict("switch Overview -> Questions, again", timed(partial(follow, page, "Questions")), 1)
            # A browser reload also fetches and starts Streamlit's front end: reported, not held to the 1 s.
            reload = timed(partial(visit, page, url, "Overview"))
            print(f"{'Overview, browser reload (for information)':<44} {reload:7.2f} s")

        with streamlit(None) as url:
            verdict("sample workspace: Overview, fresh server", timed(partial(visit, page, url, "Overview")), 2)
            for link in ("Questions", "Compare", "Overview"):
                verdict(f"sample workspace: {link}", timed(partial(follow, page, link)), 2)
        browser.close()


if __name__ == "__main__":
    main()
