"""The dashboard in a real browser: Debian's Chromium, driven by Playwright, against `streamlit run`.

Screenshots land in each test's temporary folder (pytest keeps the last runs') for a person to look at.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from browsing import ROOT, serving, settled, shot, upload
from playwright.sync_api import Page, expect

import contextgrid as cg
from contextgrid.io import read_qrels, read_run
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import MANIFEST
from contextgrid.workspace.sample import SAMPLE

HANDMADE = ROOT / "sample_data" / "handmade"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving() as url:
        yield url


@pytest.mark.parametrize(
    ("path", "heading"),
    [("", "Overview"), ("questions", "Questions"), ("compare", "Compare")],
)
def test_every_page_renders(server: str, page: Page, path: str, heading: str, tmp_path: Path) -> None:
    page.goto(f"{server}/{path}")
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    settled(page)
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    expect(page.locator("[data-testid='stDataFrame']").first).to_be_visible()
    shot(page, f"page-{heading.lower()}", tmp_path)


@pytest.mark.parametrize("tab", ["Heatmap", "Two parameters at once", "Metric against k"])
def test_each_overview_tab_draws_its_chart(server: str, page: Page, tab: str, tmp_path: Path) -> None:
    page.goto(server)
    settled(page)
    # Above the tabs, the budget figure; each tab's chart is drawn once its tab is open.
    expect(page.locator("[data-testid='stPlotlyChart']")).to_have_count(1)
    page.get_by_role("tab", name=tab).click()
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(2)
    expect(charts.last.locator(".main-svg").first).to_be_visible()
    settled(page)
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    assert "view=" in page.url
    shot(page, f"overview-{tab.split()[0].lower()}", tmp_path)


def test_question_drill_down_shows_the_first_relevant_rank(server: str, page: Page, tmp_path: Path) -> None:
    settings = load_workspace(ROOT / "sample_data" / "workspace").config("lsa-recursive-500-0")
    ranks = cg.first_relevant_ranks(read_qrels(settings.qrels), read_run(settings.run))
    question, rank = next((q, r) for q, r in ranks.items() if r is not None and r > 1)
    page.goto(f"{server}/questions?config=lsa-recursive-500-0&k=5&question={question}")
    settled(page)
    metric = page.get_by_test_id("stMetric").filter(has_text="Rank of the first relevant chunk")
    expect(metric.get_by_test_id("stMetricValue")).to_have_text(str(rank))
    shot(page, "questions-drill-down", tmp_path)


def test_compare_opens_the_drill_down(server: str, page: Page, tmp_path: Path) -> None:
    page.goto(f"{server}/compare?metric=recall&k=3&a=lsa-recursive-500-0&b=bm25-recursive-500-0")
    settled(page)
    page.get_by_role("button", name="Open in Questions").click()
    expect(page.get_by_role("heading", name="Questions", exact=True)).to_be_visible()
    settled(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Rank of the first relevant chunk")).to_be_visible()
    shot(page, "compare-to-questions", tmp_path)


def test_a_bar_of_why_questions_fail_opens_its_questions(server: str, page: Page, tmp_path: Path) -> None:
    from contextgrid.analysis.causes import cause_counts
    from contextgrid.render.cause_figures import BAR_ORDER
    from contextgrid.workspace.causes import failure_causes

    config = load_workspace(SAMPLE).names[0]
    split = int(cause_counts(failure_causes(load_workspace(SAMPLE), k=5)).loc[config, "split"])
    assert split > 0
    page.goto(f"{server}/?view=Why+questions+fail&k=5")
    settled(page)
    chart = page.get_by_test_id("stPlotlyChart").last  # below the budget figure
    bars = chart.locator(".barlayer .trace")
    expect(bars).to_have_count(len(BAR_ORDER))
    shot(page, "overview-why-questions-fail", tmp_path)
    # The bar of the first configuration in the split trace. Plotly's drag layer lies over the bars and turns a
    # click at a bar's place into that bar's selection, so the click goes to the place, not the element.
    bar = bars.nth(BAR_ORDER.index("split")).locator(".point").first
    bar.hover(force=True)
    bar.click(force=True)
    expect(page.get_by_role("heading", name="Questions", exact=True)).to_be_visible()
    settled(page)
    expect(page).to_have_url(re.compile(rf"config={config}.*cause=split|cause=split.*config={config}"))
    expect(page.get_by_text(f"{split} of 274 questions, worst first.")).to_be_visible()
    expect(page.get_by_test_id("stMultiSelect").filter(has_text="split")).to_be_visible()
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    expect(page.locator("[data-testid='stDataFrame'] canvas").first).to_be_visible()
    shot(page, "questions-from-a-cause", tmp_path)


def test_uploading_a_malformed_run_shows_its_error(server: str, page: Page, tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 c1 2\nq2 0 c4 1\n")
    run = tmp_path / "broken.trec"
    run.write_text("q1 Q0 c1 1 0.9 mine\nq1 Q0 c2 2 0.8\n")
    page.goto(f"{server}/?source=upload")
    settled(page)
    upload(page, "Qrels", qrels)
    upload(page, "Runs (one configuration each)", run)
    alert = page.get_by_test_id("stAlert").filter(has_text="broken.trec")
    expect(alert).to_contain_text("line 2")
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    shot(page, "upload-error", tmp_path)


def test_a_shared_link_is_the_first_thing_a_fresh_server_opens(page: Page, tmp_path: Path) -> None:
    with serving() as url:
        page.goto(f"{url}/questions?config=lsa-recursive-200-0&k=10&metric=mrr")
        expect(page.get_by_role("heading", name="Questions", exact=True)).to_be_visible()
        settled(page)
        expect(page.get_by_role("link", name="Context waste")).to_be_visible()
        expect(page.get_by_text("Choose a data source in the sidebar.")).to_have_count(0)
        # The Questions page ran in full with the link's choices: it wrote its own back into the URL.
        expect(page).to_have_url(re.compile(r"config=lsa-recursive-200-0.*&question=q\d+"))
        expect(page.get_by_text("lsa-recursive-200-0").first).to_be_visible()
        shot(page, "shared-link-fresh-server", tmp_path)


def _printed(output: Path, start: str, *, timeout: float = 90) -> str:
    """The first line the server printed that starts with ``start``, waiting for it up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in output.read_text().splitlines():
            if line.strip().startswith(start):
                return line.strip()
        time.sleep(0.2)
    raise AssertionError(f"the server never printed {start!r}; it printed:\n{output.read_text()}")


def test_the_server_scores_its_workspace_as_it_starts(page: Page, tmp_path: Path) -> None:
    output = tmp_path / "server.txt"
    with serving(HANDMADE, output=output) as url:
        # Before any browser asks: the line comes from the server's own start.
        assert _printed(output, "contextgrid: scored").startswith(f"contextgrid: scored {HANDMADE} in ")
        page.goto(url)
        settled(page)
        grid = load_workspace(HANDMADE).evaluate().to_dataframe()
        expect(page.get_by_test_id("stDataFrame")).to_have_count(1)
        expect(page.get_by_text(f"{len(grid)} configurations")).to_be_visible()
        expect(page.locator("[data-testid='stException']")).to_have_count(0)


def test_the_terminal_shows_no_streamlit_warning_as_the_sample_is_scored(tmp_path: Path) -> None:
    output = tmp_path / "server.txt"
    with serving(output=output):
        # The sample has evidence: its budget figure and verdict are computed too, all before any visit.
        _printed(output, "contextgrid: scored")
        assert "ScriptRunContext" not in output.read_text()


def test_a_workspace_that_fails_at_start_is_explained_on_the_page(page: Page, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(HANDMADE, broken)
    manifest = broken / MANIFEST
    manifest.write_text(manifest.read_text().replace('run = "runs/', 'run = "missing/', 1))
    output = tmp_path / "server.txt"
    with serving(broken, output=output) as url:
        said = _printed(output, "contextgrid: could not score")
        assert "missing/" in said
        page.goto(url)
        settled(page)
        alert = page.get_by_test_id("stAlert").filter(has_text="missing/")
        expect(alert).to_have_count(1)
        expect(page.locator("[data-testid='stException']")).to_have_count(0)


def test_the_grid_downloads_as_the_librarys_csv(server: str, page: Page, tmp_path: Path) -> None:
    page.goto(server)
    settled(page)
    with page.expect_download() as download:
        page.get_by_test_id("stDownloadButton").filter(has_text="Download the grid as CSV").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    workspace = load_workspace(SAMPLE)
    assert saved.name == f"{workspace.name}-grid.csv"
    pd.testing.assert_frame_equal(pd.read_csv(saved, index_col="config"), workspace.evaluate().to_dataframe())
